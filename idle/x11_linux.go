package idle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"sync"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/screensaver"
	"github.com/jezek/xgb/xproto"
)

// init silences xgb's package-wide logger. It would otherwise print a
// warning about a missing .Xauthority on every connection, including the
// short-lived ones the screen-activity fallback opens through
// kbinani/screenshot. Setting it here, before any goroutine can use xgb,
// keeps the write free of data races.
func init() {
	xgb.Logger = log.New(io.Discard, "", 0)
}

// X11Source reads keyboard/mouse idle time from an X server through the
// MIT-SCREEN-SAVER extension (XScreenSaverQueryInfo), with pure-Go xgb.
// It keeps one connection open and reconnects on the next query after
// the connection fails (for example when the X server restarts).
//
// Under XWayland the server sees only input sent to X clients, so on a
// Wayland desktop this source is a last resort.
type X11Source struct {
	display string

	mu     sync.Mutex // guards conn, root and closed
	conn   *xgb.Conn  // nil until connected and after a failure
	root   xproto.Window
	closed bool
}

var _ Source = (*X11Source)(nil)

// NewX11Source connects to the X server display (for example ":0"; empty
// means $DISPLAY) and asks it once for the idle time, so a source it
// returns is known to work.
func NewX11Source(ctx context.Context, display string) (*X11Source, error) {
	s := &X11Source{display: display}
	if _, err := s.Idle(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Name returns "x11-screensaver".
func (s *X11Source) Name() string { return "x11-screensaver" }

// Idle returns the server's time since the last keyboard or pointer
// input. xgb cannot cancel a request in flight, so ctx is checked before
// asking; a local X server answers in well under a millisecond.
func (s *X11Source) Idle(ctx context.Context) (time.Duration, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("x11-screensaver: %w", err)
	}
	conn, root, err := s.connection()
	if err != nil {
		return 0, err
	}
	info, err := screensaver.QueryInfo(conn, xproto.Drawable(root)).Reply()
	if err != nil {
		s.drop(conn)
		return 0, fmt.Errorf("x11-screensaver: query info: %w", err)
	}
	return time.Duration(info.MsSinceUserInput) * time.Millisecond, nil
}

// Close closes the X connection. Idle fails after Close.
func (s *X11Source) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.conn != nil {
		s.conn.Close()
		s.conn = nil
	}
	return nil
}

// connection returns the open connection, dialling a new one when there
// is none.
func (s *X11Source) connection() (*xgb.Conn, xproto.Window, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, 0, errors.New("x11-screensaver: source is closed")
	}
	if s.conn != nil {
		return s.conn, s.root, nil
	}
	conn, root, err := dialScreenSaver(s.display)
	if err != nil {
		return nil, 0, err
	}
	s.conn, s.root = conn, root
	return conn, root, nil
}

// drop forgets conn after a failed query so the next Idle reconnects.
func (s *X11Source) drop(conn *xgb.Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == conn {
		s.conn = nil
	}
	conn.Close()
}

// dialScreenSaver connects to display, checks for MIT-SCREEN-SAVER and
// returns the connection with the default screen's root window.
func dialScreenSaver(display string) (*xgb.Conn, xproto.Window, error) {
	if display == "" && os.Getenv("DISPLAY") == "" {
		return nil, 0, errors.New("x11-screensaver: DISPLAY is not set")
	}
	conn, err := xgb.NewConnDisplay(display)
	if err != nil {
		return nil, 0, fmt.Errorf("x11-screensaver: connect to X server: %w", err)
	}
	if err := screensaver.Init(conn); err != nil {
		conn.Close()
		return nil, 0, fmt.Errorf("x11-screensaver: MIT-SCREEN-SAVER extension: %w", err)
	}
	setup := xproto.Setup(conn)
	if conn.DefaultScreen >= len(setup.Roots) {
		conn.Close()
		return nil, 0, fmt.Errorf("x11-screensaver: X server has no screen %d", conn.DefaultScreen)
	}
	return conn, setup.Roots[conn.DefaultScreen].Root, nil
}
