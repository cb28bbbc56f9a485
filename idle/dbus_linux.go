package idle

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

// busMethod describes a session-bus method that takes no arguments and
// returns the idle time in milliseconds.
type busMethod struct {
	name   string            // the Source name
	dest   string            // the bus name that answers
	paths  []dbus.ObjectPath // object paths to try, in order
	method string            // interface-qualified method name
}

// mutterIdle is GNOME Shell's (Mutter's) idle monitor. It sees all input
// on GNOME, on Wayland and on X11 alike.
var mutterIdle = busMethod{
	name:   "mutter-idlemonitor",
	dest:   "org.gnome.Mutter.IdleMonitor",
	paths:  []dbus.ObjectPath{"/org/gnome/Mutter/IdleMonitor/Core"},
	method: "org.gnome.Mutter.IdleMonitor.GetIdletime",
}

// freedesktopIdle is org.freedesktop.ScreenSaver's GetSessionIdleTime
// (milliseconds) as KDE's screen locker provides it. KDE exports it at
// both paths; gnome-screensaver answers with an error, which makes the
// probe fail as it should. Recent KDE versions refuse it on Wayland.
var freedesktopIdle = busMethod{
	name:   "freedesktop-screensaver",
	dest:   "org.freedesktop.ScreenSaver",
	paths:  []dbus.ObjectPath{"/org/freedesktop/ScreenSaver", "/ScreenSaver"},
	method: "org.freedesktop.ScreenSaver.GetSessionIdleTime",
}

// BusSource reads idle time from a desktop service on the D-Bus session
// bus: Mutter's IdleMonitor (GNOME) or org.freedesktop.ScreenSaver (KDE).
// It keeps one private connection and reconnects on the next query after
// the connection drops.
type BusSource struct {
	m    busMethod
	addr string // bus address; empty means the session bus

	mu     sync.Mutex      // guards conn, path and closed
	conn   *dbus.Conn      // nil until connected and after it drops
	path   dbus.ObjectPath // the path that answered the probe
	closed bool
}

var _ Source = (*BusSource)(nil)

// NewMutterSource connects to the bus at addr (empty means the session
// bus) and asks org.gnome.Mutter.IdleMonitor once for the idle time, so a
// source it returns is known to work. Its name is "mutter-idlemonitor".
func NewMutterSource(ctx context.Context, addr string) (*BusSource, error) {
	return newBusSource(ctx, mutterIdle, addr)
}

// NewFreedesktopSource connects to the bus at addr (empty means the
// session bus) and asks org.freedesktop.ScreenSaver once for the session
// idle time, at /org/freedesktop/ScreenSaver and then /ScreenSaver. Its
// name is "freedesktop-screensaver".
func NewFreedesktopSource(ctx context.Context, addr string) (*BusSource, error) {
	return newBusSource(ctx, freedesktopIdle, addr)
}

// newBusSource connects and probes every path of m until one answers.
func newBusSource(ctx context.Context, m busMethod, addr string) (*BusSource, error) {
	s := &BusSource{m: m, addr: addr}
	var failed []error
	for _, p := range m.paths {
		s.mu.Lock()
		s.path = p
		s.mu.Unlock()
		_, err := s.Idle(ctx)
		if err == nil {
			return s, nil
		}
		failed = append(failed, err)
		if s.connOrNil() == nil || ctx.Err() != nil || noOwner(err) {
			break // the bus or the service is missing: other paths fail too
		}
	}
	s.Close()
	if len(failed) == 1 {
		return nil, failed[0]
	}
	return nil, errList(failed)
}

// Name returns the mechanism: "mutter-idlemonitor" or
// "freedesktop-screensaver".
func (s *BusSource) Name() string { return s.m.name }

// Idle calls the service's idle-time method; ctx bounds the call.
func (s *BusSource) Idle(ctx context.Context) (time.Duration, error) {
	conn, path, err := s.connection()
	if err != nil {
		return 0, err
	}
	// NoAutoStart: asking for the idle time must never launch a service.
	call := conn.Object(s.m.dest, path).CallWithContext(ctx, s.m.method, dbus.FlagNoAutoStart)
	if call.Err != nil {
		if !conn.Connected() {
			s.drop(conn)
		}
		return 0, fmt.Errorf("%s: call %s on %s: %w", s.m.name, s.m.method, path, call.Err)
	}
	d, err := millisBody(call.Body)
	if err != nil {
		return 0, fmt.Errorf("%s: %s reply: %w", s.m.name, s.m.method, err)
	}
	return d, nil
}

// Close closes the bus connection. Idle fails after Close.
func (s *BusSource) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.conn == nil {
		return nil
	}
	err := s.conn.Close()
	s.conn = nil
	if err != nil {
		return fmt.Errorf("%s: close bus connection: %w", s.m.name, err)
	}
	return nil
}

// connection returns the open connection, dialling a new one when there
// is none, and the object path to call.
func (s *BusSource) connection() (*dbus.Conn, dbus.ObjectPath, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, "", fmt.Errorf("%s: source is closed", s.m.name)
	}
	if s.conn != nil {
		return s.conn, s.path, nil
	}
	addr, err := sessionBusAddress(s.addr)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", s.m.name, err)
	}
	// No dbus.WithContext: the connection must outlive the caller's ctx.
	conn, err := dbus.Connect(addr)
	if err != nil {
		return nil, "", fmt.Errorf("%s: connect to session bus: %w", s.m.name, err)
	}
	s.conn = conn
	return conn, s.path, nil
}

// connOrNil returns the current connection, nil when there is none.
func (s *BusSource) connOrNil() *dbus.Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conn
}

// drop forgets a dead connection so the next Idle reconnects.
func (s *BusSource) drop(conn *dbus.Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == conn {
		s.conn = nil
	}
	_ = conn.Close() // already dead; its error says nothing new
}

// noOwner reports whether err says that nobody owns the bus name called.
func noOwner(err error) bool {
	var e dbus.Error
	return errors.As(err, &e) &&
		(e.Name == "org.freedesktop.DBus.Error.ServiceUnknown" || e.Name == "org.freedesktop.DBus.Error.NameHasNoOwner")
}

// sessionBusAddress returns addr, or when it is empty the session bus of
// this login: $DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus. It
// never autolaunches a bus, as godbus's ConnectSessionBus would.
func sessionBusAddress(addr string) (string, error) {
	if addr != "" {
		return addr, nil
	}
	if a := os.Getenv("DBUS_SESSION_BUS_ADDRESS"); a != "" && a != "autolaunch:" {
		return a, nil
	}
	if dir := os.Getenv("XDG_RUNTIME_DIR"); dir != "" {
		sock := filepath.Join(dir, "bus")
		if fi, err := os.Stat(sock); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return "unix:path=" + sock, nil
		}
	}
	return "", errors.New("no session bus: DBUS_SESSION_BUS_ADDRESS is not set and $XDG_RUNTIME_DIR/bus does not exist")
}

// millisBody converts a reply body holding one unsigned or non-negative
// integer of milliseconds (Mutter sends uint64, KDE uint32) to a
// duration.
func millisBody(body []any) (time.Duration, error) {
	if len(body) != 1 {
		return 0, fmt.Errorf("want one value, got %d", len(body))
	}
	var ms int64
	switch v := body[0].(type) {
	case uint32:
		ms = int64(v)
	case uint64:
		if v > uint64(maxMillis) {
			return 0, fmt.Errorf("idle time %d ms is out of range", v)
		}
		ms = int64(v)
	case int32:
		ms = int64(v)
	case int64:
		ms = v
	default:
		return 0, fmt.Errorf("want an integer, got %T", body[0])
	}
	if ms < 0 || ms > maxMillis {
		return 0, fmt.Errorf("idle time %d ms is out of range", ms)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// maxMillis is the longest idle time a time.Duration holds, in ms.
const maxMillis = int64(time.Duration(1<<63-1) / time.Millisecond)
