package idle

import (
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // Europe/Berlin and America/New_York on any machine

	"github.com/google/go-cmp/cmp"
)

// winLoc loads a time zone or fails the test.
func winLoc(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatalf("load %s: %v", name, err)
	}
	return loc
}

// winUTC is an instant given in UTC.
func winUTC(mo time.Month, d, h, m int) time.Time {
	return time.Date(2026, mo, d, h, m, 0, 0, time.UTC)
}

func winHours(t *testing.T, start, end string) SleepHours {
	t.Helper()
	h, err := ParseSleepHours(start, end)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestSleepParseClockTime(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    ClockTime
		wantErr string
	}{
		{in: "23:00", want: ClockTime{23, 0}},
		{in: "07:05", want: ClockTime{7, 5}},
		{in: "00:00", want: ClockTime{0, 0}},
		{in: "23:59", want: ClockTime{23, 59}},
		{in: "24:00", wantErr: "00:00 to 23:59"},
		{in: "12:60", wantErr: "00:00 to 23:59"},
		{in: "7:00", wantErr: "want HH:MM"},
		{in: "+7:00", wantErr: "want HH:MM"},
		{in: "07-00", wantErr: "want HH:MM"},
		{in: "ab:cd", wantErr: "want HH:MM"},
		{in: "", wantErr: "want HH:MM"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseClockTime(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseClockTime(%q) error = %v, want %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseClockTime(%q) (-want +got):\n%s", tt.in, diff)
			}
			if got.String() != tt.in {
				t.Errorf("String() = %q, want %q", got.String(), tt.in)
			}
		})
	}
}

func TestSleepParseSleepHours(t *testing.T) {
	t.Parallel()
	h := winHours(t, "23:00", "07:00")
	if !h.Enabled() || !h.Wraps() || h.String() != "23:00–07:00" {
		t.Errorf("23:00–07:00: Enabled %v, Wraps %v, String %q", h.Enabled(), h.Wraps(), h.String())
	}
	h = winHours(t, "01:00", "05:00")
	if !h.Enabled() || h.Wraps() {
		t.Errorf("01:00–05:00: Enabled %v, Wraps %v", h.Enabled(), h.Wraps())
	}
	h = winHours(t, "07:00", "07:00")
	if h.Enabled() || h.String() != "none" {
		t.Errorf("07:00–07:00: Enabled %v, String %q; want no window", h.Enabled(), h.String())
	}
	if _, err := ParseSleepHours("23:00", "7"); err == nil || !strings.Contains(err.Error(), "sleep end") {
		t.Errorf("bad end: error = %v, want one naming sleep end", err)
	}
	if _, err := ParseSleepHours("25:00", "07:00"); err == nil || !strings.Contains(err.Error(), "sleep start") {
		t.Errorf("bad start: error = %v, want one naming sleep start", err)
	}
}

func TestSleepCurrent(t *testing.T) {
	t.Parallel()
	loc := winLoc(t, "Europe/Berlin")
	at := func(d, h, m int) time.Time { return time.Date(2026, time.June, d, h, m, 0, 0, loc) }
	tests := []struct {
		name       string
		start, end string
		t          time.Time
		want       Interval
		wantOK     bool
	}{
		{"wrap: evening", "23:00", "07:00", at(10, 23, 30), Interval{at(10, 23, 0), at(11, 7, 0)}, true},
		{"wrap: at start", "23:00", "07:00", at(10, 23, 0), Interval{at(10, 23, 0), at(11, 7, 0)}, true},
		{"wrap: after midnight", "23:00", "07:00", at(11, 2, 0), Interval{at(10, 23, 0), at(11, 7, 0)}, true},
		{"wrap: last minute", "23:00", "07:00", at(11, 6, 59), Interval{at(10, 23, 0), at(11, 7, 0)}, true},
		{"wrap: end excluded", "23:00", "07:00", at(11, 7, 0), Interval{}, false},
		{"wrap: before start", "23:00", "07:00", at(10, 22, 59), Interval{}, false},
		{"wrap: midday", "23:00", "07:00", at(10, 12, 0), Interval{}, false},
		{"no wrap: before", "01:00", "05:00", at(10, 0, 59), Interval{}, false},
		{"no wrap: at start", "01:00", "05:00", at(10, 1, 0), Interval{at(10, 1, 0), at(10, 5, 0)}, true},
		{"no wrap: inside", "01:00", "05:00", at(10, 4, 59), Interval{at(10, 1, 0), at(10, 5, 0)}, true},
		{"no wrap: end excluded", "01:00", "05:00", at(10, 5, 0), Interval{}, false},
		{"start == end: none", "23:00", "23:00", at(10, 23, 0), Interval{}, false},
		{"start == end: none at midnight", "00:00", "00:00", at(10, 0, 0), Interval{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := winHours(t, tt.start, tt.end)
			got, ok := h.Current(tt.t, loc)
			if ok != tt.wantOK {
				t.Fatalf("Current(%v) ok = %v, want %v", tt.t, ok, tt.wantOK)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Current(%v) (-want +got):\n%s", tt.t, diff)
			}
			if h.Contains(tt.t, loc) != tt.wantOK {
				t.Errorf("Contains(%v) = %v, want %v", tt.t, !tt.wantOK, tt.wantOK)
			}
		})
	}
}

func TestSleepNext(t *testing.T) {
	t.Parallel()
	loc := winLoc(t, "Europe/Berlin")
	at := func(d, h, m int) time.Time { return time.Date(2026, time.June, d, h, m, 0, 0, loc) }
	tests := []struct {
		name       string
		start, end string
		t          time.Time
		want       Interval
		wantOK     bool
	}{
		{"wrap: midday, tonight", "23:00", "07:00", at(10, 12, 0), Interval{at(10, 23, 0), at(11, 7, 0)}, true},
		{"wrap: inside, current", "23:00", "07:00", at(11, 3, 0), Interval{at(10, 23, 0), at(11, 7, 0)}, true},
		{"wrap: at end, tonight", "23:00", "07:00", at(11, 7, 0), Interval{at(11, 23, 0), at(12, 7, 0)}, true},
		{"no wrap: after, tomorrow", "01:00", "05:00", at(10, 6, 0), Interval{at(11, 1, 0), at(11, 5, 0)}, true},
		{"no wrap: before, today", "01:00", "05:00", at(10, 0, 30), Interval{at(10, 1, 0), at(10, 5, 0)}, true},
		{"disabled", "07:00", "07:00", at(10, 12, 0), Interval{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := winHours(t, tt.start, tt.end).Next(tt.t, loc)
			if ok != tt.wantOK {
				t.Fatalf("Next(%v) ok = %v, want %v", tt.t, ok, tt.wantOK)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Next(%v) (-want +got):\n%s", tt.t, diff)
			}
		})
	}
}

// TestSleepDST checks the windows on the nights clocks change in 2026:
// Berlin springs forward on 29 March (02:00 CET → 03:00 CEST, 01:00 UTC)
// and falls back on 25 October (03:00 CEST → 02:00 CET, 01:00 UTC); New
// York springs forward on 8 March (02:00 EST → 03:00 EDT, 07:00 UTC) and
// falls back on 1 November (02:00 EDT → 01:00 EST, 06:00 UTC).
func TestSleepDST(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		zone       string
		start, end string
		day        time.Time // the calendar day the window starts, as a UTC date
		want       Interval  // in UTC
		wantDur    time.Duration
		wantOK     bool
	}{
		{"berlin spring wrap", "Europe/Berlin", "23:00", "07:00", winUTC(3, 28, 0, 0),
			Interval{winUTC(3, 28, 22, 0), winUTC(3, 29, 5, 0)}, 7 * time.Hour, true},
		{"berlin fall wrap", "Europe/Berlin", "23:00", "07:00", winUTC(10, 24, 0, 0),
			Interval{winUTC(10, 24, 21, 0), winUTC(10, 25, 6, 0)}, 9 * time.Hour, true},
		{"berlin spring no wrap", "Europe/Berlin", "01:00", "05:00", winUTC(3, 29, 0, 0),
			Interval{winUTC(3, 29, 0, 0), winUTC(3, 29, 3, 0)}, 3 * time.Hour, true},
		{"berlin fall no wrap", "Europe/Berlin", "01:00", "05:00", winUTC(10, 25, 0, 0),
			Interval{winUTC(10, 24, 23, 0), winUTC(10, 25, 4, 0)}, 5 * time.Hour, true},
		{"berlin skipped 02:30 starts 03:30 CEST", "Europe/Berlin", "02:30", "06:00", winUTC(3, 29, 0, 0),
			Interval{winUTC(3, 29, 1, 30), winUTC(3, 29, 4, 0)}, 150 * time.Minute, true},
		{"berlin repeated 02:30 starts at the first", "Europe/Berlin", "02:30", "06:00", winUTC(10, 25, 0, 0),
			Interval{winUTC(10, 25, 0, 30), winUTC(10, 25, 5, 0)}, 270 * time.Minute, true},
		{"berlin 02:00-03:00 vanishes on spring day", "Europe/Berlin", "02:00", "03:00", winUTC(3, 29, 0, 0),
			Interval{}, 0, false},
		{"new york spring wrap", "America/New_York", "23:00", "07:00", winUTC(3, 7, 0, 0),
			Interval{winUTC(3, 8, 4, 0), winUTC(3, 8, 11, 0)}, 7 * time.Hour, true},
		{"new york fall wrap", "America/New_York", "23:00", "07:00", winUTC(10, 31, 0, 0),
			Interval{winUTC(11, 1, 3, 0), winUTC(11, 1, 12, 0)}, 9 * time.Hour, true},
		{"new york spring no wrap", "America/New_York", "01:00", "05:00", winUTC(3, 8, 0, 0),
			Interval{winUTC(3, 8, 6, 0), winUTC(3, 8, 9, 0)}, 3 * time.Hour, true},
		{"new york fall no wrap", "America/New_York", "01:00", "05:00", winUTC(11, 1, 0, 0),
			Interval{winUTC(11, 1, 5, 0), winUTC(11, 1, 10, 0)}, 5 * time.Hour, true},
		// time.Date resolves this one backwards (01:30 EST); it must go forward.
		{"new york skipped 02:30 starts 03:30 EDT", "America/New_York", "02:30", "06:00", winUTC(3, 8, 0, 0),
			Interval{winUTC(3, 8, 7, 30), winUTC(3, 8, 10, 0)}, 150 * time.Minute, true},
		{"new york repeated 01:30 starts at the first", "America/New_York", "01:30", "06:00", winUTC(11, 1, 0, 0),
			Interval{winUTC(11, 1, 5, 30), winUTC(11, 1, 11, 0)}, 330 * time.Minute, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			loc := winLoc(t, tt.zone)
			got, ok := winHours(t, tt.start, tt.end).Starting(tt.day.Year(), tt.day.Month(), tt.day.Day(), loc)
			if ok != tt.wantOK {
				t.Fatalf("Starting ok = %v, want %v (got %v)", ok, tt.wantOK, got)
			}
			if !ok {
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Starting (-want +got):\n%s", diff)
			}
			if d := got.End.Sub(got.Start); d != tt.wantDur {
				t.Errorf("duration = %v, want %v", d, tt.wantDur)
			}
			// Every instant of the window, seen from inside, finds it.
			for _, at := range []time.Time{got.Start, got.Start.Add(got.End.Sub(got.Start) / 2), got.End.Add(-time.Minute)} {
				if cur, ok := winHours(t, tt.start, tt.end).Current(at, loc); !ok || !cur.Start.Equal(got.Start) {
					t.Errorf("Current(%v) = %v, %v; want the window starting %v", at, cur, ok, got.Start)
				}
			}
		})
	}
}

// TestSleepRepeatedHourCountsOnce: on the fall-back night the wall clock
// shows 01:00–01:45 twice in New York; the window covers the first pass
// only, and the next one is the following night's.
func TestSleepRepeatedHourCountsOnce(t *testing.T) {
	t.Parallel()
	loc := winLoc(t, "America/New_York")
	h := winHours(t, "01:00", "01:45")
	first := Interval{winUTC(11, 1, 5, 0), winUTC(11, 1, 5, 45)} // EDT
	tests := []struct {
		name string
		t    time.Time
		in   bool
		next Interval
	}{
		{"first pass, EDT", winUTC(11, 1, 5, 15), true, first},
		{"between the passes", winUTC(11, 1, 5, 50), false, Interval{winUTC(11, 2, 6, 0), winUTC(11, 2, 6, 45)}},
		{"second pass, EST", winUTC(11, 1, 6, 15), false, Interval{winUTC(11, 2, 6, 0), winUTC(11, 2, 6, 45)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := h.Contains(tt.t, loc); got != tt.in {
				t.Errorf("Contains(%v) = %v, want %v", tt.t.In(loc), got, tt.in)
			}
			next, _ := h.Next(tt.t, loc)
			if diff := cmp.Diff(tt.next, next); diff != "" {
				t.Errorf("Next(%v) (-want +got):\n%s", tt.t.In(loc), diff)
			}
		})
	}
}

func TestSleepClockTimeOnKeepsWallClock(t *testing.T) {
	t.Parallel()
	// On ordinary days On is time.Date, whatever the zone.
	for _, zone := range []string{"UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata"} {
		loc := winLoc(t, zone)
		for _, c := range []ClockTime{{0, 0}, {2, 30}, {23, 59}} {
			got := c.On(2026, time.June, 10, loc)
			want := time.Date(2026, time.June, 10, c.Hour, c.Minute, 0, 0, loc)
			if !got.Equal(want) {
				t.Errorf("%s %v.On = %v, want %v", zone, c, got, want)
			}
		}
	}
}
