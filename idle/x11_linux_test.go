package idle

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// inputX11Source opens an X11Source on display and closes it at cleanup.
func inputX11Source(tb testing.TB, ctx context.Context, display string) *X11Source {
	tb.Helper()
	src, err := NewX11Source(ctx, display)
	if err != nil {
		tb.Fatalf("NewX11Source(%s): %v", display, err)
	}
	tb.Cleanup(func() { src.Close() })
	return src
}

func inputIdle(tb testing.TB, ctx context.Context, src Source) time.Duration {
	tb.Helper()
	d, err := src.Idle(ctx)
	if err != nil {
		tb.Fatalf("%s: Idle: %v", src.Name(), err)
	}
	return d
}

// TestX11IdleGrowsAndDropsOnKey reads the idle time of a real X server
// (Xvfb) through MIT-SCREEN-SAVER: it grows while nothing happens and
// drops after xdotool presses a key.
func TestX11IdleGrowsAndDropsOnKey(t *testing.T) {
	inputNeedTool(t, "xdotool", "xdotool")
	display := inputXvfb(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	src := inputX11Source(t, ctx, display)
	if src.Name() != "x11-screensaver" {
		t.Errorf("Name = %q, want x11-screensaver", src.Name())
	}

	before := inputIdle(t, ctx, src)
	time.Sleep(1500 * time.Millisecond)
	grown := inputIdle(t, ctx, src)
	t.Logf("idle %s, 1.5 s later %s", inputMs(before), inputMs(grown))
	if grown-before < time.Second {
		t.Fatalf("idle went %v -> %v over 1.5 s, want it to grow by at least 1 s", before, grown)
	}

	inputRun(t, inputEnv("DISPLAY="+display), "xdotool", "key", "a")
	ok, report := inputEventually(30*time.Second, func() (bool, string) {
		after := inputIdle(t, ctx, src)
		return after < grown, inputMs(after)
	})
	t.Logf("after xdotool key a: %s", report)
	if !ok {
		t.Fatalf("idle after a key press = %s, want below %s", report, inputMs(grown))
	}
}

// TestX11SourceReconnects checks that the source survives a broken
// connection: the next query dials again.
func TestX11SourceReconnects(t *testing.T) {
	display := inputXvfb(t)
	ctx := context.Background()
	src := inputX11Source(t, ctx, display)
	src.mu.Lock()
	src.conn.Close() // as if the server had dropped us
	src.mu.Unlock()
	ok, report := inputEventually(30*time.Second, func() (bool, string) {
		_, err := src.Idle(ctx)
		return err == nil, "last error: " + errString(err)
	})
	if !ok {
		t.Fatalf("Idle never recovered after the connection closed; %s", report)
	}
	src.Close()
	if _, err := src.Idle(ctx); err == nil {
		t.Fatal("Idle after Close succeeded, want an error")
	}
}

func TestX11SourceNoServer(t *testing.T) {
	t.Parallel()
	_, err := NewX11Source(context.Background(), ":65000") // no socket there
	if err == nil || !strings.HasPrefix(err.Error(), "x11-screensaver: connect to X server: ") {
		t.Fatalf("NewX11Source on a missing display: err = %v", err)
	}
}

// TestScreenWatcherSeesWindowUnderXvfb captures a real X screen through
// kbinani/screenshot: a static screen is no activity, and a white window
// mapped by a pure-Go X client is.
func TestScreenWatcherSeesWindowUnderXvfb(t *testing.T) {
	display := inputXvfb(t)
	t.Setenv("DISPLAY", display) // kbinani/screenshot reads it
	t.Setenv("XDG_SESSION_TYPE", "x11")
	clk := &inputClock{now: time.Date(2026, 3, 1, 22, 0, 0, 0, time.UTC)}
	w, err := NewScreenWatcher(ScreenOptions{Interval: time.Minute, Clock: clk})
	if err != nil {
		t.Fatalf("NewScreenWatcher: %v", err)
	}
	defer w.Close()

	pollWant(t, w, false) // baseline
	clk.Advance(time.Minute)
	pollWant(t, w, false) // nothing moved
	idleWant(t, w, time.Minute)

	inputMapWhiteWindow(t, display)
	clk.Advance(time.Minute)
	pollWant(t, w, true)
	idleWant(t, w, 0)
}

// inputMapWhiteWindow creates and maps an 800x500 white window on display
// and keeps its connection open until the test ends.
func inputMapWhiteWindow(tb testing.TB, display string) {
	tb.Helper()
	conn, err := xgb.NewConnDisplay(display)
	if err != nil {
		tb.Fatalf("connect to %s: %v", display, err)
	}
	tb.Cleanup(conn.Close)
	screen := xproto.Setup(conn).DefaultScreen(conn)
	wid, err := xproto.NewWindowId(conn)
	if err != nil {
		tb.Fatalf("new window id: %v", err)
	}
	err = xproto.CreateWindowChecked(conn, screen.RootDepth, wid, screen.Root,
		100, 100, 800, 500, 0, xproto.WindowClassInputOutput, screen.RootVisual,
		xproto.CwBackPixel, []uint32{screen.WhitePixel}).Check()
	if err != nil {
		tb.Fatalf("create window: %v", err)
	}
	if err := xproto.MapWindowChecked(conn, wid).Check(); err != nil {
		tb.Fatalf("map window: %v", err)
	}
	// A round trip: the server has painted the background once it answers.
	if _, err := xproto.GetInputFocus(conn).Reply(); err != nil {
		tb.Fatalf("sync: %v", err)
	}
}

// BenchmarkX11Idle measures one idle query over an open connection to a
// local X server (Xvfb).
func BenchmarkX11Idle(b *testing.B) {
	display := inputXvfb(b)
	ctx := context.Background()
	src := inputX11Source(b, ctx, display)
	for b.Loop() {
		if _, err := src.Idle(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return "none"
	}
	return err.Error()
}
