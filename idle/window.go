package idle

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/metaclaw/metaclaw/store/config"
)

// Reasons a training window is open, as found in Window.Reason.
const (
	ReasonSleep   = "sleep"
	ReasonIdle    = "idle"
	ReasonMeeting = "meeting"
)

// WindowConfig is what the window logic needs from the scheduler settings.
type WindowConfig struct {
	// SleepStart and SleepEnd bound the daily sleep hours in Location;
	// equal values mean no sleep window (see SleepHours).
	SleepStart ClockTime
	SleepEnd   ClockTime
	// IdleThreshold is the keyboard idle time that opens a window; zero or
	// less turns the idle signal off.
	IdleThreshold time.Duration
	// MinWindow is the least time that must remain of a window whose end is
	// known (sleep, meeting) for it to open; zero or less means any.
	MinWindow time.Duration
	// Location is the time zone of the sleep hours and of the times in
	// Window.Detail; nil means time.Local.
	Location *time.Location
}

// WindowConfigFrom converts the scheduler settings into a WindowConfig for
// the time zone loc (nil means time.Local).
func WindowConfigFrom(s config.Scheduler, loc *time.Location) (WindowConfig, error) {
	h, err := ParseSleepHours(s.SleepStart, s.SleepEnd)
	if err != nil {
		return WindowConfig{}, fmt.Errorf("scheduler config: %w", err)
	}
	return WindowConfig{
		SleepStart:    h.Start,
		SleepEnd:      h.End,
		IdleThreshold: time.Duration(s.IdleThresholdMinutes) * time.Minute,
		MinWindow:     time.Duration(s.MinWindowMinutes) * time.Minute,
		Location:      loc,
	}, nil
}

// SleepHours returns the configured sleep window.
func (c WindowConfig) SleepHours() SleepHours {
	return SleepHours{Start: c.SleepStart, End: c.SleepEnd}
}

func (c WindowConfig) location() *time.Location {
	if c.Location == nil {
		return time.Local
	}
	return c.Location
}

// IdleReading is one answer of the keyboard idle source.
type IdleReading struct {
	Idle   time.Duration // time since the last input; meaningful when OK
	OK     bool          // whether Idle holds a reading
	Source string        // the source's Name, "" when there is no source
	Err    error         // why there is no reading, when the source failed
}

// WindowInputs are the signals a window is evaluated from.
type WindowInputs struct {
	Now    time.Time
	Idle   IdleReading
	Busy   []Interval // calendar busy times around Now, in any order
	Paused bool       // learning paused by the person: every window shut
}

// Window says whether a training window is open, why, and until when.
type Window struct {
	Open bool
	// Reason is ReasonSleep, ReasonIdle or ReasonMeeting while open, and
	// "" while shut.
	Reason string
	// Since is when the window began (for idle: when input stopped). Zero
	// when shut, except in NextWindow's answer, where it is the start.
	Since time.Time
	// Until is when the window ends; zero when unknown (idle windows end
	// when input returns).
	Until time.Time
	// Detail is a sentence for people: "sleep hours until 07:00", "keyboard
	// idle for 42m (x11-screensaver)", "learning paused", "next: sleep at
	// 23:00".
	Detail string
}

// winSpan is one known-end signal: a sleep window or a (merged) meeting.
type winSpan struct {
	Interval
	reason string
}

// winChain is a run of spans that overlap or touch: one window whose end
// is the latest end among them.
type winChain struct {
	Interval
	spans []winSpan
}

// EvaluateWindow combines the signals at in.Now. Sleep hours and meetings
// that overlap or touch form one window (a meeting until 23:00 followed by
// sleep hours until 07:00 is a window until 07:00); it opens only while at
// least cfg.MinWindow of it remains. Keyboard idle opens a window when the
// idle time reaches cfg.IdleThreshold and shuts it as soon as input
// returns. When several signals hold, the one with the latest known end
// names the window (sleep or meeting), else idle. Paused shuts everything.
func EvaluateWindow(cfg WindowConfig, in WindowInputs) Window {
	if in.Paused {
		return Window{Detail: "learning paused"}
	}
	now, loc := in.Now, cfg.location()
	chains := winChains(cfg, now, in.Busy)
	var short *winChain
	for i := range chains {
		c := &chains[i]
		if !c.Contains(now) {
			continue
		}
		if c.End.Sub(now) >= cfg.MinWindow {
			return winOpenKnown(c, now, loc)
		}
		short = c
	}
	if winIdleOpen(cfg, in.Idle) {
		return Window{
			Open: true, Reason: ReasonIdle, Since: now.Add(-in.Idle.Idle),
			Detail: fmt.Sprintf("keyboard idle for %s%s", winDuration(in.Idle.Idle), winSourceNote(in.Idle.Source)),
		}
	}
	return Window{Detail: winShutDetail(cfg, in, short)}
}

// NextWindow returns the next sleep or meeting window long enough to
// count: the first whose remaining time, from its start or from now if it
// has begun, is at least cfg.MinWindow. Since and Until are its start and
// end; Open is set when it has already begun. Keyboard idle cannot be
// foreseen and is not considered; pause is not either. The zero Window
// means there is none in sight (sleep hours off and no meeting in busy).
func NextWindow(now time.Time, cfg WindowConfig, busy []Interval) Window {
	loc := cfg.location()
	for _, c := range winChains(cfg, now, busy) {
		from := c.Start
		if from.Before(now) {
			from = now
		}
		if !c.End.After(now) || c.End.Sub(from) < cfg.MinWindow {
			continue
		}
		if c.Contains(now) {
			return winOpenKnown(&c, now, loc)
		}
		first := winFirst(&c)
		return Window{
			Reason: first.reason, Since: c.Start, Until: c.End,
			Detail: winNoun(first.reason) + " from " + winClock(c.Start, now, loc) +
				" until " + winClock(first.End, now, loc) + winThen(&c, first.End, now, loc),
		}
	}
	return Window{}
}

// winIdleOpen reports whether the idle reading opens a window.
func winIdleOpen(cfg WindowConfig, r IdleReading) bool {
	return cfg.IdleThreshold > 0 && r.OK && r.Idle >= cfg.IdleThreshold
}

// winOpenKnown describes the open window of chain c, named after the
// signal holding at now with the latest end (sleep on a tie).
func winOpenKnown(c *winChain, now time.Time, loc *time.Location) Window {
	var lead winSpan
	for _, s := range c.spans {
		if s.Contains(now) && (lead.reason == "" || s.End.After(lead.End)) {
			lead = s
		}
	}
	return Window{
		Open: true, Reason: lead.reason, Since: c.Start, Until: c.End,
		Detail: winOngoing(lead.reason) + " until " + winClock(lead.End, now, loc) + winThen(c, lead.End, now, loc),
	}
}

// winChains returns the known-end windows around now: sleep windows from
// yesterday to the day after tomorrow and the busy intervals (meetings
// merged first), chained where they overlap or touch, ordered by start.
func winChains(cfg WindowConfig, now time.Time, busy []Interval) []winChain {
	var spans []winSpan
	for _, iv := range cfg.SleepHours().around(now, cfg.location()) {
		spans = append(spans, winSpan{Interval: iv, reason: ReasonSleep})
	}
	for _, iv := range winMerge(busy) {
		spans = append(spans, winSpan{Interval: iv, reason: ReasonMeeting})
	}
	slices.SortStableFunc(spans, func(a, b winSpan) int { return a.Start.Compare(b.Start) })
	var chains []winChain
	for _, s := range spans {
		if n := len(chains); n > 0 && !s.Start.After(chains[n-1].End) {
			last := &chains[n-1]
			last.spans = append(last.spans, s)
			if s.End.After(last.End) {
				last.End = s.End
			}
			continue
		}
		chains = append(chains, winChain{Interval: s.Interval, spans: []winSpan{s}})
	}
	return chains
}

// winMerge returns the non-empty intervals of ivs sorted by start, with
// those that overlap or touch merged into one (14:00–15:00 and 15:00–16:00
// become 14:00–16:00). ivs is not modified.
func winMerge(ivs []Interval) []Interval {
	var out []Interval
	for _, iv := range ivs {
		if iv.Start.Before(iv.End) {
			out = append(out, iv)
		}
	}
	slices.SortFunc(out, func(a, b Interval) int {
		return cmp.Or(a.Start.Compare(b.Start), a.End.Compare(b.End))
	})
	merged := out[:0]
	for _, iv := range out {
		if n := len(merged); n > 0 && !iv.Start.After(merged[n-1].End) {
			if iv.End.After(merged[n-1].End) {
				merged[n-1].End = iv.End
			}
			continue
		}
		merged = append(merged, iv)
	}
	return merged
}
