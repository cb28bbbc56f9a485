package idle

import (
	"context"
	"errors"
	"image"
	"image/color"
	"image/draw"
	"strings"
	"sync"
	"testing"
	"time"
)

// inputClock is a settable Clock for the input-source tests.
type inputClock struct {
	mu  sync.Mutex // guards now
	now time.Time
}

func (c *inputClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *inputClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// scrFrames feeds the watcher one queued frame (or error) per capture.
type scrFrames struct {
	mu   sync.Mutex // guards next and errs
	next []image.Image
	errs []error
}

func (f *scrFrames) push(img image.Image, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next = append(f.next, img)
	f.errs = append(f.errs, err)
}

func (f *scrFrames) capture(context.Context) (image.Image, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.next) == 0 {
		return nil, errors.New("test: no frame queued")
	}
	img, err := f.next[0], f.errs[0]
	f.next, f.errs = f.next[1:], f.errs[1:]
	return img, err
}

// scrDesktop is a 1280x720 frame: a mid-grey desktop with a white
// "document" rectangle, like a screen with one window open.
func scrDesktop() *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, 1280, 720))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.RGBA{90, 90, 100, 255}), image.Point{}, draw.Src)
	draw.Draw(img, image.Rect(100, 80, 900, 620), image.NewUniform(color.White), image.Point{}, draw.Src)
	return img
}

// scrWith returns a copy of base with r filled with c.
func scrWith(base *image.RGBA, r image.Rectangle, c color.Color) *image.RGBA {
	img := image.NewRGBA(base.Bounds())
	copy(img.Pix, base.Pix)
	draw.Draw(img, r, image.NewUniform(c), image.Point{}, draw.Src)
	return img
}

// scrNoisy returns a copy of base with every pixel's channels moved by up
// to ±amp, deterministically.
func scrNoisy(base *image.RGBA, amp int) *image.RGBA {
	img := image.NewRGBA(base.Bounds())
	seed := uint32(12345)
	for i, v := range base.Pix {
		if i%4 == 3 {
			img.Pix[i] = v
			continue
		}
		seed = seed*1664525 + 1013904223
		d := int(seed>>16)%(2*amp+1) - amp
		img.Pix[i] = uint8(min(max(int(v)+d, 0), 255))
	}
	return img
}

func newTestWatcher(t *testing.T) (*ScreenWatcher, *scrFrames, *inputClock) {
	t.Helper()
	clk := &inputClock{now: time.Date(2026, 3, 1, 22, 0, 0, 0, time.UTC)}
	frames := &scrFrames{}
	w, err := NewScreenWatcher(ScreenOptions{Interval: time.Minute, Clock: clk, Capture: frames.capture})
	if err != nil {
		t.Fatalf("NewScreenWatcher: %v", err)
	}
	t.Cleanup(func() { w.Close() })
	return w, frames, clk
}

// pollWant polls once and checks whether the frame counted as activity.
func pollWant(t *testing.T, w *ScreenWatcher, want bool) {
	t.Helper()
	changed, err := w.Poll(context.Background())
	if err != nil {
		t.Fatalf("Poll: %v", err)
	}
	if changed != want {
		t.Fatalf("Poll changed = %v, want %v", changed, want)
	}
}

func idleWant(t *testing.T, w *ScreenWatcher, want time.Duration) {
	t.Helper()
	got, err := w.Idle(context.Background())
	if err != nil {
		t.Fatalf("Idle: %v", err)
	}
	if got != want {
		t.Fatalf("Idle = %v, want %v", got, want)
	}
}

func TestScreenWatcherIdleGrowsThenDrops(t *testing.T) {
	t.Parallel()
	w, frames, clk := newTestWatcher(t)
	base := scrDesktop()
	idleWant(t, w, 0)

	frames.push(base, nil)
	pollWant(t, w, false) // the first frame is only the baseline
	for i := 1; i <= 3; i++ {
		clk.Advance(time.Minute)
		frames.push(base, nil)
		pollWant(t, w, false)
		idleWant(t, w, time.Duration(i)*time.Minute)
	}

	// A dialog opens in the middle of the screen.
	clk.Advance(time.Minute)
	frames.push(scrWith(base, image.Rect(400, 250, 880, 470), color.RGBA{40, 40, 40, 255}), nil)
	pollWant(t, w, true)
	idleWant(t, w, 0)

	clk.Advance(30 * time.Second)
	idleWant(t, w, 30*time.Second)
}

func TestScreenWatcherIgnoresSmallChanges(t *testing.T) {
	t.Parallel()
	base := scrDesktop()
	tests := []struct {
		name  string
		frame *image.RGBA
	}{
		{"identical", base},
		{"noise of 6 levels on every pixel", scrNoisy(base, 6)},
		{"text cursor blinks (2x16, black on white)", scrWith(base, image.Rect(301, 102, 303, 118), color.Black)},
		{"block cursor appears (9x18)", scrWith(base, image.Rect(300, 300, 309, 318), color.Black)},
		{"panel clock changes two digits", scrWith(scrWith(base, image.Rect(1201, 3, 1208, 15), color.White), image.Rect(1209, 3, 1216, 15), color.White)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w, frames, clk := newTestWatcher(t)
			frames.push(base, nil)
			pollWant(t, w, false)
			clk.Advance(time.Minute)
			frames.push(tc.frame, nil)
			pollWant(t, w, false)
			idleWant(t, w, time.Minute)
		})
	}
}

func TestScreenWatcherCountsRealChanges(t *testing.T) {
	t.Parallel()
	base := scrDesktop()
	typed := base
	for i := range 12 { // a line of 12 dark glyphs typed into the document
		x := 120 + 9*i
		typed = scrWith(typed, image.Rect(x, 100, x+6, 112), color.RGBA{30, 30, 30, 255})
	}
	tests := []struct {
		name  string
		frame image.Image
	}{
		{"a line of text typed", typed},
		{"the window moves", scrWith(scrWith(base, image.Rect(100, 80, 900, 620), color.RGBA{90, 90, 100, 255}), image.Rect(300, 100, 1100, 640), color.White)},
		{"the resolution changes", image.NewRGBA(image.Rect(0, 0, 1920, 1080))},
		{"a grey frame of another type", image.NewGray(image.Rect(0, 0, 1280, 720))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w, frames, clk := newTestWatcher(t)
			frames.push(base, nil)
			pollWant(t, w, false)
			clk.Advance(time.Minute)
			frames.push(tc.frame, nil)
			pollWant(t, w, true)
			idleWant(t, w, 0)
		})
	}
}

// TestScreenWatcherSlowDriftIsNotActivity checks that each frame becomes
// the next baseline: a bar creeping a few pixels a poll never counts.
// The frame is 640x360, so cells are 10x10 pixels.
func TestScreenWatcherSlowDriftIsNotActivity(t *testing.T) {
	t.Parallel()
	w, frames, clk := newTestWatcher(t)
	first := image.NewRGBA(image.Rect(0, 0, 640, 360))
	draw.Draw(first, first.Bounds(), image.NewUniform(color.RGBA{90, 90, 100, 255}), image.Point{}, draw.Src)
	frame := first
	frames.push(frame, nil)
	pollWant(t, w, false)
	for i := range 16 { // each step moves one cell by about 10 levels
		clk.Advance(time.Minute)
		frame = scrWith(frame, image.Rect(50+2*i, 350, 52+2*i, 353), color.White)
		frames.push(frame, nil)
		pollWant(t, w, false)
	}
	idleWant(t, w, 16*time.Minute)
	// Against the first frame the bar is a change: a watcher that kept
	// its first baseline would have counted it.
	a, b := makeThumb(first), makeThumb(frame)
	if n := b.changedCells(&a); n < minChangedCells {
		t.Fatalf("bar changed %d cells against the first frame, want >= %d", n, minChangedCells)
	}
}

func TestScreenWatcherCaptureError(t *testing.T) {
	t.Parallel()
	w, frames, clk := newTestWatcher(t)
	base := scrDesktop()
	frames.push(base, nil)
	pollWant(t, w, false)

	clk.Advance(time.Minute)
	frames.push(nil, errors.New("display gone"))
	if _, err := w.Poll(context.Background()); err == nil || !strings.Contains(err.Error(), "display gone") {
		t.Fatalf("Poll error = %v, want the capture error", err)
	}
	if _, err := w.Idle(context.Background()); err == nil || !strings.HasPrefix(err.Error(), "screen-activity: ") {
		t.Fatalf("Idle error = %v, want the capture error with context", err)
	}

	clk.Advance(time.Minute)
	frames.push(base, nil)
	pollWant(t, w, false)
	idleWant(t, w, 2*time.Minute) // the failed poll saw nothing either way
}

func TestScreenWatcherServeAndClose(t *testing.T) {
	t.Parallel()
	clk := &inputClock{now: time.Date(2026, 3, 1, 22, 0, 0, 0, time.UTC)}
	polled := make(chan struct{}, 100)
	capture := func(context.Context) (image.Image, error) {
		polled <- struct{}{}
		return image.NewRGBA(image.Rect(0, 0, 64, 36)), nil
	}
	w, err := NewScreenWatcher(ScreenOptions{Interval: time.Millisecond, Clock: clk, Capture: capture})
	if err != nil {
		t.Fatalf("NewScreenWatcher: %v", err)
	}
	served := make(chan error, 1)
	go func() { served <- w.Serve(context.Background()) }()
	for range 3 {
		select {
		case <-polled:
		case <-time.After(30 * time.Second):
			t.Fatal("Serve did not poll")
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("Serve returned %v, want nil", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return after Close")
	}
	if _, err := w.Idle(context.Background()); err == nil {
		t.Fatal("Idle after Close succeeded, want an error")
	}
}

func TestNewScreenWatcherRejectsBadInterval(t *testing.T) {
	t.Parallel()
	for _, d := range []time.Duration{0, -time.Second} {
		if _, err := NewScreenWatcher(ScreenOptions{Interval: d}); err == nil {
			t.Errorf("NewScreenWatcher(Interval: %v) succeeded, want an error", d)
		}
	}
}

func TestCaptureRefusesWayland(t *testing.T) {
	t.Setenv("XDG_SESSION_TYPE", "wayland")
	if _, err := capturePrimaryDisplay(context.Background()); !errors.Is(err, errWaylandCapture) {
		t.Fatalf("capture on Wayland: err = %v, want errWaylandCapture", err)
	}
}

func BenchmarkScreenThumb(b *testing.B) {
	img := scrNoisy(scrDesktop(), 20)
	big := image.NewRGBA(image.Rect(0, 0, 1920, 1080))
	draw.Draw(big, big.Bounds(), img, image.Point{}, draw.Src)
	for b.Loop() {
		_ = makeThumb(big)
	}
}
