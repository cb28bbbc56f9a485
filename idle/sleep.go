package idle

import (
	"fmt"
	"time"
)

// ClockTime is a time of day on the local wall clock, to the minute, as
// written in scheduler.sleep_start and scheduler.sleep_end.
type ClockTime struct {
	Hour   int // 0..23
	Minute int // 0..59
}

// ParseClockTime parses "HH:MM" (00:00 to 23:59, two digits each), the
// format the config's hhmm check accepts.
func ParseClockTime(s string) (ClockTime, error) {
	if len(s) != 5 || s[2] != ':' || !sleepDigits(s[:2]) || !sleepDigits(s[3:]) {
		return ClockTime{}, fmt.Errorf("parse time of day %q: want HH:MM", s)
	}
	c := ClockTime{Hour: int(s[0]-'0')*10 + int(s[1]-'0'), Minute: int(s[3]-'0')*10 + int(s[4]-'0')}
	if c.Hour > 23 || c.Minute > 59 {
		return ClockTime{}, fmt.Errorf("parse time of day %q: want 00:00 to 23:59", s)
	}
	return c, nil
}

func sleepDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// String formats c as "HH:MM".
func (c ClockTime) String() string { return fmt.Sprintf("%02d:%02d", c.Hour, c.Minute) }

// minutes returns c as minutes since midnight.
func (c ClockTime) minutes() int { return c.Hour*60 + c.Minute }

// On returns the instant the wall clock in loc shows c on the given
// calendar day (day may overflow the month; it normalises as in time.Date).
// It is DST-safe and, unlike time.Date, deterministic at the transitions:
//
//   - a time skipped by a spring-forward change (02:30 when clocks jump
//     from 02:00 to 03:00) normalises forward by the length of the gap
//     (03:30), in every zone;
//   - a time that occurs twice on a fall-back day resolves to its first
//     occurrence (still on summer time), so the repeated hour counts once.
func (c ClockTime) On(year int, month time.Month, day int, loc *time.Location) time.Time {
	t := time.Date(year, month, day, c.Hour, c.Minute, 0, 0, loc)
	want := time.Date(year, month, day, c.Hour, c.Minute, 0, 0, time.UTC)
	got := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), 0, 0, time.UTC)
	if gap := want.Sub(got); gap > 0 {
		// time.Date resolved a skipped time backwards (it does in some
		// zones): the forward reading lies one gap later in real time.
		return t.Add(gap)
	}
	return sleepFirstOccurrence(t)
}

// sleepFirstOccurrence moves t to the first of two instants showing the
// same wall-clock time when t is the second one (the repeated stretch
// after a change to a smaller UTC offset).
func sleepFirstOccurrence(t time.Time) time.Time {
	start, _ := t.ZoneBounds()
	if start.IsZero() {
		return t
	}
	_, off := t.Zone()
	_, prevOff := start.Add(-time.Second).Zone()
	repeat := time.Duration(prevOff-off) * time.Second
	if repeat > 0 && t.Sub(start) < repeat {
		return t.Add(-repeat)
	}
	return t
}

// SleepHours is the person's daily sleep window [Start, End) in local
// wall-clock time. When End is earlier than Start the window wraps
// midnight (23:00–07:00 runs from one evening to the next morning); when
// Start equals End there is no sleep window at all (never "all day").
//
// The wall-clock start and end are computed per calendar day, so on the
// nights clocks change the window keeps its wall-clock bounds and its real
// duration is an hour shorter (spring forward) or longer (fall back); see
// ClockTime.On for skipped and repeated times.
type SleepHours struct {
	Start ClockTime
	End   ClockTime
}

// ParseSleepHours parses the two "HH:MM" settings.
func ParseSleepHours(start, end string) (SleepHours, error) {
	s, err := ParseClockTime(start)
	if err != nil {
		return SleepHours{}, fmt.Errorf("sleep start: %w", err)
	}
	e, err := ParseClockTime(end)
	if err != nil {
		return SleepHours{}, fmt.Errorf("sleep end: %w", err)
	}
	return SleepHours{Start: s, End: e}, nil
}

// Enabled reports whether there is a sleep window (Start differs from End).
func (h SleepHours) Enabled() bool { return h.Start != h.End }

// Wraps reports whether the window crosses midnight (End before Start).
func (h SleepHours) Wraps() bool { return h.End.minutes() < h.Start.minutes() }

// String formats h as "HH:MM–HH:MM", or "none" when disabled.
func (h SleepHours) String() string {
	if !h.Enabled() {
		return "none"
	}
	return h.Start.String() + "–" + h.End.String()
}

// Starting returns the sleep window that starts on the given calendar day
// in loc. It reports false when sleep hours are disabled, or when a clock
// change makes that day's window empty (say 02:00–03:00 on a
// spring-forward day, when both bounds are 03:00).
func (h SleepHours) Starting(year int, month time.Month, day int, loc *time.Location) (Interval, bool) {
	if !h.Enabled() {
		return Interval{}, false
	}
	endDay := day
	if h.Wraps() {
		endDay++
	}
	iv := Interval{Start: h.Start.On(year, month, day, loc), End: h.End.On(year, month, endDay, loc)}
	return iv, iv.Start.Before(iv.End)
}

// around returns the windows starting from the day before t's calendar day
// in loc to two days after it, in order.
func (h SleepHours) around(t time.Time, loc *time.Location) []Interval {
	lt := t.In(loc)
	var out []Interval
	for off := -1; off <= 2; off++ {
		if iv, ok := h.Starting(lt.Year(), lt.Month(), lt.Day()+off, loc); ok {
			out = append(out, iv)
		}
	}
	return out
}

// Current returns the sleep window containing t, if t is within sleep hours.
func (h SleepHours) Current(t time.Time, loc *time.Location) (Interval, bool) {
	for _, iv := range h.around(t, loc) {
		if iv.Contains(t) {
			return iv, true
		}
	}
	return Interval{}, false
}

// Contains reports whether t is within sleep hours in loc.
func (h SleepHours) Contains(t time.Time, loc *time.Location) bool {
	_, ok := h.Current(t, loc)
	return ok
}

// Next returns the sleep window containing t or, when t is outside sleep
// hours, the next one to start. It reports false only when sleep hours are
// disabled.
func (h SleepHours) Next(t time.Time, loc *time.Location) (Interval, bool) {
	for _, iv := range h.around(t, loc) {
		if t.Before(iv.End) {
			return iv, true
		}
	}
	return Interval{}, false
}
