package idle

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"sync"
	"time"

	"github.com/kbinani/screenshot"
)

// ScreenOptions configure NewScreenWatcher.
type ScreenOptions struct {
	// Interval is the time between captures (scheduler.screen_poll_seconds).
	// It must be positive.
	Interval time.Duration
	// Clock decides Idle; nil means SystemClock.
	Clock Clock
	// Capture grabs one frame of the primary display; nil means the real
	// screen through kbinani/screenshot. Tests feed synthetic frames.
	Capture func(ctx context.Context) (image.Image, error)
}

// ScreenWatcher is the fallback Source for desktops where no keyboard/mouse
// idle time can be read: it captures the primary display every interval,
// shrinks the frame in memory to a 64x36 grey thumbnail and counts a
// visible change as activity (see screen_thumb.go for the thresholds).
// Frames never leave memory: they are not written to disk or sent
// anywhere, and only the last thumbnail is kept.
//
// Idle is the time since the last capture that saw a change, so it lags
// the real idle time by up to one interval, on the safe side.
type ScreenWatcher struct {
	interval time.Duration
	clock    Clock
	capture  func(ctx context.Context) (image.Image, error)
	done     chan struct{} // closed by Close
	once     sync.Once     // closes done

	mu         sync.Mutex // guards the fields below
	lastChange time.Time  // the start, then the last poll that saw a change
	last       thumb      // the previous frame, valid when haveLast
	haveLast   bool
	err        error // the latest capture's failure, nil after a success
	closed     bool
}

var _ Source = (*ScreenWatcher)(nil)

// NewScreenWatcher returns a watcher that counts its creation as the last
// activity. It captures nothing until Poll or Serve runs.
func NewScreenWatcher(opts ScreenOptions) (*ScreenWatcher, error) {
	if opts.Interval <= 0 {
		return nil, fmt.Errorf("screen-activity: poll interval must be positive, got %v", opts.Interval)
	}
	if opts.Clock == nil {
		opts.Clock = SystemClock{}
	}
	if opts.Capture == nil {
		opts.Capture = capturePrimaryDisplay
	}
	return &ScreenWatcher{
		interval:   opts.Interval,
		clock:      opts.Clock,
		capture:    opts.Capture,
		done:       make(chan struct{}),
		lastChange: opts.Clock.Now(),
	}, nil
}

// Name returns "screen-activity".
func (*ScreenWatcher) Name() string { return "screen-activity" }

// Idle returns the time since the last poll that saw the screen change
// (or since the watcher was made). While the latest capture failed it
// returns that error instead, so a watcher that cannot see the screen
// never reports the person away.
func (w *ScreenWatcher) Idle(context.Context) (time.Duration, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return 0, errors.New("screen-activity: watcher is closed")
	}
	if w.err != nil {
		return 0, w.err
	}
	return max(w.clock.Now().Sub(w.lastChange), 0), nil
}

// Close stops Serve and makes Idle fail.
func (w *ScreenWatcher) Close() error {
	w.once.Do(func() { close(w.done) })
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	return nil
}

// Serve polls at once and then every interval until ctx is done or Close
// is called; it then returns nil. Capture errors do not stop it: the
// next poll tries again, and Idle reports the error meanwhile.
func (w *ScreenWatcher) Serve(ctx context.Context) error {
	tick := time.NewTicker(w.interval)
	defer tick.Stop()
	for {
		_, _ = w.Poll(ctx) // a failure is kept for Idle
		select {
		case <-ctx.Done():
			return nil
		case <-w.done:
			return nil
		case <-tick.C:
		}
	}
}

// Poll captures one frame and compares it with the previous one. It
// reports whether the screen changed enough to count as activity; the
// first frame only sets the baseline. Every frame becomes the next
// baseline, so a slow drift (a creeping progress bar) never adds up to
// activity.
func (w *ScreenWatcher) Poll(ctx context.Context) (bool, error) {
	img, err := w.capture(ctx)
	if err == nil && img == nil {
		err = errors.New("capture returned no image")
	}
	if err != nil {
		err = fmt.Errorf("screen-activity: %w", err)
		w.mu.Lock()
		w.err = err
		w.mu.Unlock()
		return false, err
	}
	th := makeThumb(img)
	now := w.clock.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	changed := w.haveLast && th.changedCells(&w.last) >= minChangedCells
	if changed {
		w.lastChange = now
	}
	w.last, w.haveLast, w.err = th, true, nil
	return changed, nil
}

// errWaylandCapture is why the real capture refuses Wayland sessions.
var errWaylandCapture = errors.New("capture: on Wayland screenshots go through the xdg-desktop-portal, " +
	"which saves every frame to a file and may ask the person each time; not used")

// capturePrimaryDisplay grabs the primary display with kbinani/screenshot
// (pure Go through X11 on Linux, GDI on Windows, CoreGraphics with cgo on
// macOS). It refuses Wayland sessions (see errWaylandCapture).
func capturePrimaryDisplay(ctx context.Context) (image.Image, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	if os.Getenv("XDG_SESSION_TYPE") == "wayland" {
		return nil, errWaylandCapture
	}
	bounds := screenshot.GetDisplayBounds(0)
	if bounds.Empty() {
		// GetDisplayBounds hides why; a 1x1 capture tells (no X server,
		// a build without support, ...).
		if _, err := screenshot.Capture(0, 0, 1, 1); err != nil {
			return nil, fmt.Errorf("capture: %w", err)
		}
		return nil, errors.New("capture: no active display")
	}
	img, err := screenshot.CaptureRect(bounds)
	if err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	return img, nil
}
