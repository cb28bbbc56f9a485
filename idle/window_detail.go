package idle

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// This file words Window.Detail: short sentences for the tray, the web
// page and `metaclaw scheduler status`.

// winShutDetail explains a shut window: a known-end window too short to
// use, a missing idle signal, and what comes next.
func winShutDetail(cfg WindowConfig, in WindowInputs, short *winChain) string {
	now, loc := in.Now, cfg.location()
	var parts []string
	if short != nil {
		parts = append(parts, winOpenKnown(short, now, loc).Detail+
			fmt.Sprintf(" (less than %s left)", winDuration(cfg.MinWindow)))
	}
	if cfg.IdleThreshold > 0 {
		switch r := in.Idle; {
		case r.Err != nil && r.Source != "":
			parts = append(parts, fmt.Sprintf("keyboard idle unknown (%s: %v)", r.Source, r.Err))
		case r.Err != nil:
			parts = append(parts, fmt.Sprintf("keyboard idle unknown (%v)", r.Err))
		case !r.OK:
			parts = append(parts, "no keyboard idle signal")
		}
	}
	next := NextWindow(now, cfg, in.Busy)
	switch {
	case next.Reason != "":
		parts = append(parts, fmt.Sprintf("next: %s at %s", next.Reason, winClock(next.Since, now, loc)))
	case cfg.IdleThreshold > 0 && in.Idle.OK:
		parts = append(parts, fmt.Sprintf("next: after %s keyboard idle", winDuration(cfg.IdleThreshold)))
	default:
		parts = append(parts, "no training window ahead")
	}
	return strings.Join(parts, "; ")
}

// winFirst returns the span that starts chain c (the longest, then sleep,
// when several start together).
func winFirst(c *winChain) winSpan {
	first := c.spans[0]
	for _, s := range c.spans[1:] {
		if s.Start.Equal(first.Start) && s.End.After(first.End) {
			first = s
		}
	}
	return first
}

// winThen words the rest of chain c after the span ending at leadEnd:
// ", then sleep hours until 07:00, then a meeting until 08:00".
func winThen(c *winChain, leadEnd, now time.Time, loc *time.Location) string {
	var later []winSpan
	for _, s := range c.spans {
		if s.End.After(leadEnd) {
			later = append(later, s)
		}
	}
	slices.SortStableFunc(later, func(a, b winSpan) int { return a.End.Compare(b.End) })
	var b strings.Builder
	for _, s := range later {
		fmt.Fprintf(&b, ", then %s until %s", winNoun(s.reason), winClock(s.End, now, loc))
	}
	return b.String()
}

// winOngoing words a signal that holds now: "sleep hours", "in a meeting".
func winOngoing(reason string) string {
	if reason == ReasonMeeting {
		return "in a meeting"
	}
	return winNoun(reason)
}

// winNoun names a known-end signal: "sleep hours", "a meeting".
func winNoun(reason string) string {
	switch reason {
	case ReasonSleep:
		return "sleep hours"
	case ReasonMeeting:
		return "a meeting"
	}
	return reason
}

// winClock formats t as "15:04" in loc, or "Mon 15:04" when it is a day
// or more away from now.
func winClock(t, now time.Time, loc *time.Location) string {
	d := t.Sub(now)
	if d >= 24*time.Hour || d <= -24*time.Hour {
		return t.In(loc).Format("Mon 15:04")
	}
	return t.In(loc).Format("15:04")
}

// winDuration formats d to the minute: "42m", "1h05m", "2h".
func winDuration(d time.Duration) string {
	d = d.Truncate(time.Minute)
	h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
	switch {
	case d < time.Minute:
		return "under 1m"
	case h == 0:
		return fmt.Sprintf("%dm", m)
	case m == 0:
		return fmt.Sprintf("%dh", h)
	}
	return fmt.Sprintf("%dh%02dm", h, m)
}

// winSourceNote returns " (name)" for a named idle source, else "".
func winSourceNote(name string) string {
	if name == "" {
		return ""
	}
	return " (" + name + ")"
}
