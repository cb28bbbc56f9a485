package idle

import (
	"errors"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // Europe/Berlin and America/New_York on any machine

	"github.com/google/go-cmp/cmp"
	"github.com/metaclaw/metaclaw/store/config"
)

// winTestConfig is the default configuration in Berlin: sleep 23:00–07:00,
// idle threshold 30m, minimum window 15m.
func winTestConfig(t *testing.T) WindowConfig {
	t.Helper()
	return WindowConfig{
		SleepStart: ClockTime{23, 0}, SleepEnd: ClockTime{7, 0},
		IdleThreshold: 30 * time.Minute, MinWindow: 15 * time.Minute,
		Location: winLoc(t, "Europe/Berlin"),
	}
}

// winBerlin returns a time on 10 (Wednesday), 11 or 12 June 2026 in Berlin.
func winBerlin(t *testing.T) func(d, h, m int) time.Time {
	loc := winLoc(t, "Europe/Berlin")
	return func(d, h, m int) time.Time { return time.Date(2026, time.June, d, h, m, 0, 0, loc) }
}

func TestWindowEvaluate(t *testing.T) {
	t.Parallel()
	at := winBerlin(t)
	active := IdleReading{Idle: 2 * time.Second, OK: true, Source: "x11-screensaver"}
	idleFor := func(d time.Duration) IdleReading { return IdleReading{Idle: d, OK: true, Source: "x11-screensaver"} }
	meeting := func(h1, m1, h2, m2 int) Interval { return Interval{at(10, h1, m1), at(10, h2, m2)} }
	noSleep := func(c *WindowConfig) { c.SleepStart, c.SleepEnd = ClockTime{23, 0}, ClockTime{23, 0} }
	tests := []struct {
		name string
		cfg  func(*WindowConfig)
		in   WindowInputs
		want Window
	}{
		// Sleep hours.
		{name: "sleep after midnight", in: WindowInputs{Now: at(11, 2, 0), Idle: active},
			want: Window{Open: true, Reason: ReasonSleep, Since: at(10, 23, 0), Until: at(11, 7, 0), Detail: "sleep hours until 07:00"}},
		{name: "sleep at its start", in: WindowInputs{Now: at(10, 23, 0), Idle: active},
			want: Window{Open: true, Reason: ReasonSleep, Since: at(10, 23, 0), Until: at(11, 7, 0), Detail: "sleep hours until 07:00"}},
		{name: "sleep with exactly the minimum left", in: WindowInputs{Now: at(11, 6, 45), Idle: active},
			want: Window{Open: true, Reason: ReasonSleep, Since: at(10, 23, 0), Until: at(11, 7, 0), Detail: "sleep hours until 07:00"}},
		{name: "sleep with less than the minimum left", in: WindowInputs{Now: at(11, 6, 46), Idle: active},
			want: Window{Detail: "sleep hours until 07:00 (less than 15m left); next: sleep at 23:00"}},
		{name: "sleep ended", in: WindowInputs{Now: at(11, 7, 0), Idle: active},
			want: Window{Detail: "next: sleep at 23:00"}},

		// Meetings: a 60-minute meeting with a 15-minute minimum is open
		// from minute 0 to minute 45.
		{name: "meeting minute 0", in: WindowInputs{Now: at(10, 14, 0), Idle: active, Busy: []Interval{meeting(14, 0, 15, 0)}},
			want: Window{Open: true, Reason: ReasonMeeting, Since: at(10, 14, 0), Until: at(10, 15, 0), Detail: "in a meeting until 15:00"}},
		{name: "meeting minute 45", in: WindowInputs{Now: at(10, 14, 45), Idle: active, Busy: []Interval{meeting(14, 0, 15, 0)}},
			want: Window{Open: true, Reason: ReasonMeeting, Since: at(10, 14, 0), Until: at(10, 15, 0), Detail: "in a meeting until 15:00"}},
		{name: "meeting minute 46", in: WindowInputs{Now: at(10, 14, 46), Idle: active, Busy: []Interval{meeting(14, 0, 15, 0)}},
			want: Window{Detail: "in a meeting until 15:00 (less than 15m left); next: sleep at 23:00"}},
		{name: "meeting shorter than the minimum", in: WindowInputs{Now: at(10, 14, 0), Idle: active, Busy: []Interval{meeting(14, 0, 14, 10)}},
			want: Window{Detail: "in a meeting until 14:10 (less than 15m left); next: sleep at 23:00"}},
		{name: "long meeting", in: WindowInputs{Now: at(10, 15, 0), Idle: active, Busy: []Interval{meeting(13, 0, 17, 0)}},
			want: Window{Open: true, Reason: ReasonMeeting, Since: at(10, 13, 0), Until: at(10, 17, 0), Detail: "in a meeting until 17:00"}},
		{name: "back-to-back meetings merge", in: WindowInputs{Now: at(10, 14, 50), Idle: active,
			Busy: []Interval{meeting(15, 0, 16, 0), meeting(14, 0, 15, 0)}},
			want: Window{Open: true, Reason: ReasonMeeting, Since: at(10, 14, 0), Until: at(10, 16, 0), Detail: "in a meeting until 16:00"}},
		{name: "overlapping meetings merge", in: WindowInputs{Now: at(10, 15, 40), Idle: active,
			Busy: []Interval{meeting(14, 0, 15, 30), meeting(15, 0, 16, 0)}},
			want: Window{Open: true, Reason: ReasonMeeting, Since: at(10, 14, 0), Until: at(10, 16, 0), Detail: "in a meeting until 16:00"}},
		{name: "meetings with a gap do not merge", in: WindowInputs{Now: at(10, 14, 50), Idle: active,
			Busy: []Interval{meeting(14, 0, 15, 0), meeting(15, 5, 16, 0)}},
			want: Window{Detail: "in a meeting until 15:00 (less than 15m left); next: meeting at 15:05"}},
		{name: "empty busy interval ignored", in: WindowInputs{Now: at(10, 14, 0), Idle: active, Busy: []Interval{meeting(14, 0, 14, 0)}},
			want: Window{Detail: "next: sleep at 23:00"}},
		{name: "meeting ahead", in: WindowInputs{Now: at(10, 12, 0), Idle: active, Busy: []Interval{meeting(14, 0, 15, 0)}},
			want: Window{Detail: "next: meeting at 14:00"}},

		// Keyboard idle.
		{name: "idle just below threshold", in: WindowInputs{Now: at(10, 12, 0), Idle: idleFor(30*time.Minute - time.Second)},
			want: Window{Detail: "next: sleep at 23:00"}},
		{name: "idle at threshold", in: WindowInputs{Now: at(10, 12, 0), Idle: idleFor(30 * time.Minute)},
			want: Window{Open: true, Reason: ReasonIdle, Since: at(10, 11, 30), Detail: "keyboard idle for 30m (x11-screensaver)"}},
		{name: "idle above threshold", in: WindowInputs{Now: at(10, 12, 0), Idle: idleFor(42 * time.Minute)},
			want: Window{Open: true, Reason: ReasonIdle, Since: at(10, 11, 18), Detail: "keyboard idle for 42m (x11-screensaver)"}},
		{name: "idle source failing", in: WindowInputs{Now: at(10, 12, 0),
			Idle: IdleReading{Source: "x11-screensaver", Err: errors.New("connection refused")}},
			want: Window{Detail: "keyboard idle unknown (x11-screensaver: connection refused); next: sleep at 23:00"}},
		{name: "no idle source", in: WindowInputs{Now: at(10, 12, 0)},
			want: Window{Detail: "no keyboard idle signal; next: sleep at 23:00"}},
		{name: "idle signal off", cfg: func(c *WindowConfig) { c.IdleThreshold = 0 }, in: WindowInputs{Now: at(10, 12, 0), Idle: idleFor(3 * time.Hour)},
			want: Window{Detail: "next: sleep at 23:00"}},
		{name: "no sleep, idle possible", cfg: noSleep, in: WindowInputs{Now: at(10, 23, 30), Idle: active},
			want: Window{Detail: "next: after 30m keyboard idle"}},
		{name: "no sleep, no idle source", cfg: noSleep, in: WindowInputs{Now: at(10, 23, 30)},
			want: Window{Detail: "no keyboard idle signal; no training window ahead"}},

		// Pause shuts every window.
		{name: "paused in sleep hours", in: WindowInputs{Now: at(11, 2, 0), Idle: idleFor(time.Hour), Paused: true},
			want: Window{Detail: "learning paused"}},
		{name: "paused in a meeting", in: WindowInputs{Now: at(10, 14, 0), Idle: idleFor(time.Hour), Busy: []Interval{meeting(14, 0, 15, 0)}, Paused: true},
			want: Window{Detail: "learning paused"}},
		{name: "paused while idle", in: WindowInputs{Now: at(10, 12, 0), Idle: idleFor(time.Hour), Paused: true},
			want: Window{Detail: "learning paused"}},

		// Several signals at once: the latest known end names the window.
		{name: "sleep beats idle", in: WindowInputs{Now: at(11, 2, 0), Idle: idleFor(time.Hour)},
			want: Window{Open: true, Reason: ReasonSleep, Since: at(10, 23, 0), Until: at(11, 7, 0), Detail: "sleep hours until 07:00"}},
		{name: "meeting beats idle", in: WindowInputs{Now: at(10, 14, 0), Idle: idleFor(time.Hour), Busy: []Interval{meeting(14, 0, 15, 0)}},
			want: Window{Open: true, Reason: ReasonMeeting, Since: at(10, 14, 0), Until: at(10, 15, 0), Detail: "in a meeting until 15:00"}},
		{name: "idle beats a meeting too short", in: WindowInputs{Now: at(10, 14, 50), Idle: idleFor(time.Hour), Busy: []Interval{meeting(14, 0, 15, 0)}},
			want: Window{Open: true, Reason: ReasonIdle, Since: at(10, 13, 50), Detail: "keyboard idle for 1h (x11-screensaver)"}},
		{name: "meeting ending after sleep wins", in: WindowInputs{Now: at(11, 6, 40), Idle: active,
			Busy: []Interval{{at(11, 6, 30), at(11, 8, 0)}}},
			want: Window{Open: true, Reason: ReasonMeeting, Since: at(10, 23, 0), Until: at(11, 8, 0), Detail: "in a meeting until 08:00"}},
		{name: "sleep ending after meeting wins", in: WindowInputs{Now: at(10, 23, 45), Idle: active,
			Busy: []Interval{{at(10, 23, 30), at(11, 0, 30)}}},
			want: Window{Open: true, Reason: ReasonSleep, Since: at(10, 23, 0), Until: at(11, 7, 0), Detail: "sleep hours until 07:00"}},
		{name: "meeting running into sleep is one window", in: WindowInputs{Now: at(10, 22, 50), Idle: active,
			Busy: []Interval{meeting(22, 0, 23, 0)}},
			want: Window{Open: true, Reason: ReasonMeeting, Since: at(10, 22, 0), Until: at(11, 7, 0),
				Detail: "in a meeting until 23:00, then sleep hours until 07:00"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := winTestConfig(t)
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			got := EvaluateWindow(cfg, tt.in)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("EvaluateWindow (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWindowEvaluateDST runs sleep windows through the 2026 clock changes.
func TestWindowEvaluateDST(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		zone    string
		now     time.Time // UTC
		want    Window    // Since and Until in UTC
		wantDur time.Duration
	}{
		{"berlin spring forward", "Europe/Berlin", winUTC(3, 29, 4, 0), // 06:00 CEST
			Window{Open: true, Reason: ReasonSleep, Since: winUTC(3, 28, 22, 0), Until: winUTC(3, 29, 5, 0), Detail: "sleep hours until 07:00"}, 7 * time.Hour},
		{"berlin fall back", "Europe/Berlin", winUTC(10, 25, 1, 30), // 02:30 CET, the second one
			Window{Open: true, Reason: ReasonSleep, Since: winUTC(10, 24, 21, 0), Until: winUTC(10, 25, 6, 0), Detail: "sleep hours until 07:00"}, 9 * time.Hour},
		{"new york spring forward", "America/New_York", winUTC(3, 8, 7, 30), // 03:30 EDT
			Window{Open: true, Reason: ReasonSleep, Since: winUTC(3, 8, 4, 0), Until: winUTC(3, 8, 11, 0), Detail: "sleep hours until 07:00"}, 7 * time.Hour},
		{"new york fall back", "America/New_York", winUTC(11, 1, 6, 30), // 01:30 EST, the second one
			Window{Open: true, Reason: ReasonSleep, Since: winUTC(11, 1, 3, 0), Until: winUTC(11, 1, 12, 0), Detail: "sleep hours until 07:00"}, 9 * time.Hour},
		{"new york spring, ends at 07:00 EDT", "America/New_York", winUTC(3, 8, 11, 0),
			Window{Detail: "next: sleep at 23:00"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := winTestConfig(t)
			cfg.Location = winLoc(t, tt.zone)
			got := EvaluateWindow(cfg, WindowInputs{Now: tt.now})
			got.Detail = strings.TrimPrefix(got.Detail, "no keyboard idle signal; ")
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("EvaluateWindow (-want +got):\n%s", diff)
			}
			if d := got.Until.Sub(got.Since); d != tt.wantDur {
				t.Errorf("window lasts %v, want %v", d, tt.wantDur)
			}
		})
	}
}

func TestNextWindow(t *testing.T) {
	t.Parallel()
	at := winBerlin(t)
	noSleep := func(c *WindowConfig) { c.SleepStart, c.SleepEnd = ClockTime{7, 0}, ClockTime{7, 0} }
	tests := []struct {
		name string
		cfg  func(*WindowConfig)
		now  time.Time
		busy []Interval
		want Window
	}{
		{name: "tonight's sleep", now: at(10, 12, 0),
			want: Window{Reason: ReasonSleep, Since: at(10, 23, 0), Until: at(11, 7, 0), Detail: "sleep hours from 23:00 until 07:00"}},
		{name: "in sleep hours: the current window", now: at(11, 2, 0),
			want: Window{Open: true, Reason: ReasonSleep, Since: at(10, 23, 0), Until: at(11, 7, 0), Detail: "sleep hours until 07:00"}},
		{name: "current sleep too short: the next night", now: at(11, 6, 50),
			want: Window{Reason: ReasonSleep, Since: at(11, 23, 0), Until: at(12, 7, 0), Detail: "sleep hours from 23:00 until Fri 07:00"}},
		{name: "meeting first", now: at(10, 12, 0), busy: []Interval{{at(10, 14, 0), at(10, 15, 0)}},
			want: Window{Reason: ReasonMeeting, Since: at(10, 14, 0), Until: at(10, 15, 0), Detail: "a meeting from 14:00 until 15:00"}},
		{name: "short meeting skipped", now: at(10, 12, 0), busy: []Interval{{at(10, 14, 0), at(10, 14, 10)}},
			want: Window{Reason: ReasonSleep, Since: at(10, 23, 0), Until: at(11, 7, 0), Detail: "sleep hours from 23:00 until 07:00"}},
		{name: "short meetings merged count", now: at(10, 12, 0),
			busy: []Interval{{at(10, 14, 10), at(10, 14, 20)}, {at(10, 14, 0), at(10, 14, 10)}},
			want: Window{Reason: ReasonMeeting, Since: at(10, 14, 0), Until: at(10, 14, 20), Detail: "a meeting from 14:00 until 14:20"}},
		{name: "meeting running into sleep", now: at(10, 12, 0), busy: []Interval{{at(10, 22, 0), at(10, 23, 0)}},
			want: Window{Reason: ReasonMeeting, Since: at(10, 22, 0), Until: at(11, 7, 0),
				Detail: "a meeting from 22:00 until 23:00, then sleep hours until 07:00"}},
		{name: "no sleep, meeting in two days", cfg: noSleep, now: at(10, 12, 0), busy: []Interval{{at(12, 14, 0), at(12, 15, 0)}},
			want: Window{Reason: ReasonMeeting, Since: at(12, 14, 0), Until: at(12, 15, 0), Detail: "a meeting from Fri 14:00 until Fri 15:00"}},
		{name: "no sleep, past meeting only", cfg: noSleep, now: at(10, 12, 0), busy: []Interval{{at(10, 9, 0), at(10, 10, 0)}},
			want: Window{}},
		{name: "nothing ahead", cfg: noSleep, now: at(10, 12, 0), want: Window{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := winTestConfig(t)
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			if diff := cmp.Diff(tt.want, NextWindow(tt.now, cfg, tt.busy)); diff != "" {
				t.Errorf("NextWindow (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWindowMergeKeepsInput(t *testing.T) {
	t.Parallel()
	at := winBerlin(t)
	in := []Interval{{at(10, 15, 0), at(10, 16, 0)}, {at(10, 14, 0), at(10, 15, 0)}}
	orig := append([]Interval(nil), in...)
	got := winMerge(in)
	if diff := cmp.Diff([]Interval{{at(10, 14, 0), at(10, 16, 0)}}, got); diff != "" {
		t.Errorf("winMerge (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(orig, in); diff != "" {
		t.Errorf("winMerge changed its input (-want +got):\n%s", diff)
	}
}

func TestWindowDuration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "under 1m"},
		{59 * time.Second, "under 1m"},
		{42*time.Minute + 59*time.Second, "42m"},
		{65 * time.Minute, "1h05m"},
		{2 * time.Hour, "2h"},
	}
	for _, tt := range tests {
		if got := winDuration(tt.d); got != tt.want {
			t.Errorf("winDuration(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestWindowConfigFrom(t *testing.T) {
	t.Parallel()
	loc := winLoc(t, "Europe/Berlin")
	got, err := WindowConfigFrom(config.Defaults().Scheduler, loc)
	if err != nil {
		t.Fatal(err)
	}
	want := WindowConfig{
		SleepStart: ClockTime{23, 0}, SleepEnd: ClockTime{7, 0},
		IdleThreshold: 30 * time.Minute, MinWindow: 15 * time.Minute, Location: loc,
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b *time.Location) bool { return a == b })); diff != "" {
		t.Errorf("WindowConfigFrom (-want +got):\n%s", diff)
	}
	bad := config.Defaults().Scheduler
	bad.SleepEnd = "7am"
	if _, err := WindowConfigFrom(bad, loc); err == nil || !strings.Contains(err.Error(), "sleep end") {
		t.Errorf("bad sleep_end: error = %v, want one naming sleep end", err)
	}
}
