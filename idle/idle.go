// Package idle answers one question for the learner: is a training window
// open, why, and until when. It owns the signals behind that answer —
// keyboard/mouse idle time (one file per OS), the screen-activity fallback,
// sleep hours and calendar busy times (idle/calendar) — and the window logic
// that combines them with an injected clock.
//
// idle imports only store and assets; proxy, the learner, web and app may
// import it.
package idle

import (
	"context"
	"time"
)

// Source reports how long the person has not touched keyboard or mouse.
// Implementations must be cheap to ask (well under a millisecond once set
// up) and safe for concurrent use.
type Source interface {
	// Name says which mechanism answers, e.g. "x11-screensaver",
	// "mutter-idlemonitor", "freedesktop-screensaver", "windows-getlastinputinfo",
	// "macos-hididletime" or "screen-activity".
	Name() string
	// Idle returns the time since the last user input.
	Idle(ctx context.Context) (time.Duration, error)
	// Close releases the connection behind the source.
	Close() error
}

// Interval is a span of time [Start, End).
type Interval struct {
	Start time.Time
	End   time.Time
}

// Contains reports whether t falls in [Start, End).
func (iv Interval) Contains(t time.Time) bool {
	return !t.Before(iv.Start) && t.Before(iv.End)
}

// BusySource lists the person's busy times (calendar meetings) that overlap
// [from, to), sorted by start. Implementations answer from a cache and
// refresh it in the background; Busy itself must not block on the network
// for long.
type BusySource interface {
	Busy(ctx context.Context, from, to time.Time) ([]Interval, error)
}

// Clock is the time source of everything in this package, so tests can
// drive windows with a fake clock.
type Clock interface {
	Now() time.Time
}

// SystemClock is the real clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }
