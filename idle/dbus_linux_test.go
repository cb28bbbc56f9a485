package idle

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// TestMutterIdleGrowsAndDropsOnKey reads idle time from a real headless
// GNOME compositor (mutter --headless --wayland) on a private session bus:
// it grows while nothing happens and drops after a key is injected
// through Mutter's RemoteDesktop API.
func TestMutterIdleGrowsAndDropsOnKey(t *testing.T) {
	inputNeedTool(t, "mutter", "mutter")
	addr := inputDBus(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	src := inputStartMutter(t, ctx, addr)
	if src.Name() != "mutter-idlemonitor" {
		t.Errorf("Name = %q, want mutter-idlemonitor", src.Name())
	}

	before := inputIdle(t, ctx, src)
	time.Sleep(1500 * time.Millisecond)
	grown := inputIdle(t, ctx, src)
	t.Logf("idle %s, 1.5 s later %s", inputMs(before), inputMs(grown))
	if grown-before < time.Second {
		t.Fatalf("idle went %v -> %v over 1.5 s, want it to grow by at least 1 s", before, grown)
	}

	inputMutterKey(t, ctx, addr)
	ok, report := inputEventually(30*time.Second, func() (bool, string) {
		after := inputIdle(t, ctx, src)
		return after < grown, inputMs(after)
	})
	t.Logf("after injected key a: %s", report)
	if !ok {
		t.Fatalf("idle after an injected key = %s, want below %s", report, inputMs(grown))
	}
}

// inputStartMutter starts mutter headless on the bus at addr, with its own
// XDG_RUNTIME_DIR and config directories, and returns a Mutter source
// once the IdleMonitor answers.
func inputStartMutter(t *testing.T, ctx context.Context, addr string) *BusSource {
	t.Helper()
	dir := t.TempDir()
	runtimeDir := filepath.Join(dir, "run")
	if err := os.Mkdir(runtimeDir, 0o700); err != nil {
		t.Fatalf("runtime dir: %v", err)
	}
	log := &inputLog{}
	cmd := exec.Command("mutter", "--headless", "--wayland", "--no-x11", "--virtual-monitor", "1280x720")
	cmd.Env = inputEnv("DBUS_SESSION_BUS_ADDRESS="+addr, "XDG_RUNTIME_DIR="+runtimeDir,
		"XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_DATA_HOME="+filepath.Join(dir, "data"),
		"XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "GSETTINGS_BACKEND=memory")
	cmd.Stdout, cmd.Stderr = log, log
	exited := inputStart(t, cmd)

	var src *BusSource
	ok, report := inputEventually(90*time.Second, func() (bool, string) {
		select {
		case <-exited:
			return true, "mutter exited"
		default:
		}
		s, err := NewMutterSource(ctx, addr)
		if err != nil {
			return false, err.Error()
		}
		src = s
		return true, ""
	})
	if !ok || src == nil {
		t.Fatalf("mutter's IdleMonitor never answered (%s)\nmutter output:\n%s", report, log)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

// inputMutterKey presses and releases "a" through Mutter's RemoteDesktop
// API. A remote-desktop session lives as long as the D-Bus connection that
// created it, so all calls go over one connection.
func inputMutterKey(t *testing.T, ctx context.Context, addr string) {
	t.Helper()
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatalf("connect to bus: %v", err)
	}
	defer conn.Close()
	var session dbus.ObjectPath
	err = conn.Object("org.gnome.Mutter.RemoteDesktop", "/org/gnome/Mutter/RemoteDesktop").
		CallWithContext(ctx, "org.gnome.Mutter.RemoteDesktop.CreateSession", 0).Store(&session)
	if err != nil {
		t.Fatalf("RemoteDesktop.CreateSession: %v", err)
	}
	obj := conn.Object("org.gnome.Mutter.RemoteDesktop", session)
	const iface = "org.gnome.Mutter.RemoteDesktop.Session."
	if err := obj.CallWithContext(ctx, iface+"Start", 0).Err; err != nil {
		t.Fatalf("RemoteDesktop session Start: %v", err)
	}
	defer obj.CallWithContext(ctx, iface+"Stop", 0)
	const keysymA = 0x61
	for _, pressed := range []bool{true, false} {
		if err := obj.CallWithContext(ctx, iface+"NotifyKeyboardKeysym", 0, uint32(keysymA), pressed).Err; err != nil {
			t.Fatalf("NotifyKeyboardKeysym(a, %v): %v", pressed, err)
		}
	}
}

// inputScreenSaver is an org.freedesktop.ScreenSaver stand-in: it answers
// GetSessionIdleTime with ms, or with refuse (as gnome-screensaver and
// KDE on Wayland do).
type inputScreenSaver struct {
	ms     uint32
	refuse *dbus.Error
}

// GetSessionIdleTime is the exported D-Bus method.
func (s *inputScreenSaver) GetSessionIdleTime() (uint32, *dbus.Error) {
	if s.refuse != nil {
		return 0, s.refuse
	}
	return s.ms, nil
}

// TestFreedesktopSourceOverPrivateBus runs the KDE mechanism against a
// stand-in service on a private bus: the wire format and path fallback,
// a service that refuses, and a bus where nobody answers.
func TestFreedesktopSourceOverPrivateBus(t *testing.T) {
	addr := inputDBus(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv, err := dbus.Connect(addr)
	if err != nil {
		t.Fatalf("connect to bus: %v", err)
	}
	defer srv.Close()
	const name = "org.freedesktop.ScreenSaver"
	if reply, err := srv.RequestName(name, dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("RequestName: %v, %v", reply, err)
	}

	// Only the old path /ScreenSaver: the source falls back to it.
	if err := srv.Export(&inputScreenSaver{ms: 4242}, "/ScreenSaver", name); err != nil {
		t.Fatalf("export: %v", err)
	}
	src, err := NewFreedesktopSource(ctx, addr)
	if err != nil {
		t.Fatalf("NewFreedesktopSource: %v", err)
	}
	if got := inputIdle(t, ctx, src); got != 4242*time.Millisecond || src.Name() != "freedesktop-screensaver" {
		t.Errorf("%s: Idle = %v, want 4.242s", src.Name(), got)
	}
	src.Close()

	refusing := &inputScreenSaver{refuse: dbus.NewError("org.freedesktop.DBus.Error.NotSupported",
		[]any{"GetSessionIdleTime is not supported on this platform"})}
	for _, p := range []dbus.ObjectPath{"/ScreenSaver", "/org/freedesktop/ScreenSaver"} {
		if err := srv.Export(refusing, p, name); err != nil {
			t.Fatalf("export: %v", err)
		}
	}
	_, err = NewFreedesktopSource(ctx, addr)
	if err == nil || strings.Count(err.Error(), "not supported on this platform") != 2 {
		t.Fatalf("refusing service: err = %v, want the refusal from both paths", err)
	}
	t.Logf("refusing service: %v", err)
	var dbusErr dbus.Error
	if !errors.As(err, &dbusErr) || dbusErr.Name != "org.freedesktop.DBus.Error.NotSupported" {
		t.Errorf("errors.As does not find the D-Bus error in %v", err)
	}

	// Mutter is not on this bus: one failure, naming the mechanism.
	_, err = NewMutterSource(ctx, addr)
	if err == nil || !strings.HasPrefix(err.Error(), "mutter-idlemonitor: call ") {
		t.Fatalf("no Mutter on the bus: err = %v", err)
	}
}

// TestDetectLinux runs Detect against a private bus with nothing on it
// and an Xvfb: on X11 it picks the X server, on Wayland it tries the bus
// services first, and with nothing usable it lists every failure.
func TestDetectLinux(t *testing.T) {
	addr := inputDBus(t)
	display := inputXvfb(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	t.Setenv("WAYLAND_DISPLAY", "")
	t.Setenv("XDG_SESSION_TYPE", "x11")
	t.Setenv("DISPLAY", display)
	src, err := Detect(ctx)
	if err != nil || src.Name() != "x11-screensaver" {
		t.Fatalf("Detect on X11 = %v, %v; want x11-screensaver", src, err)
	}
	src.Close()

	t.Setenv("XDG_SESSION_TYPE", "wayland")
	src, err = Detect(ctx) // Mutter and KDE are absent; X11 answers last
	if err != nil || src.Name() != "x11-screensaver" {
		t.Fatalf("Detect on Wayland = %v, %v; want x11-screensaver", src, err)
	}
	src.Close()

	t.Setenv("DISPLAY", "")
	_, err = Detect(ctx)
	if err == nil {
		t.Fatal("Detect with nothing usable succeeded")
	}
	msg := err.Error()
	t.Logf("Detect with nothing usable: %s", msg)
	order := []string{"mutter-idlemonitor: ", "freedesktop-screensaver: ", "x11-screensaver: DISPLAY is not set"}
	last := -1
	for _, want := range order {
		i := strings.Index(msg, want)
		if i <= last {
			t.Fatalf("Detect error %q: want %q after the previous mechanism", msg, want)
		}
		last = i
	}
}

// BenchmarkBusIdle measures one idle query over D-Bus: a round trip
// through dbus-daemon to a stand-in org.freedesktop.ScreenSaver in this
// process, the same path a query to Mutter or KDE takes.
func BenchmarkBusIdle(b *testing.B) {
	addr := inputDBus(b)
	srv, err := dbus.Connect(addr)
	if err != nil {
		b.Fatalf("connect to bus: %v", err)
	}
	defer srv.Close()
	if _, err := srv.RequestName("org.freedesktop.ScreenSaver", dbus.NameFlagDoNotQueue); err != nil {
		b.Fatalf("RequestName: %v", err)
	}
	if err := srv.Export(&inputScreenSaver{ms: 1}, "/org/freedesktop/ScreenSaver", "org.freedesktop.ScreenSaver"); err != nil {
		b.Fatalf("export: %v", err)
	}
	ctx := context.Background()
	src, err := NewFreedesktopSource(ctx, addr)
	if err != nil {
		b.Fatalf("NewFreedesktopSource: %v", err)
	}
	defer src.Close()
	for b.Loop() {
		if _, err := src.Idle(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

func TestMillisBody(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		body    []any
		want    time.Duration
		wantErr string
	}{
		{"mutter uint64", []any{uint64(1669)}, 1669 * time.Millisecond, ""},
		{"kde uint32", []any{uint32(4242)}, 4242 * time.Millisecond, ""},
		{"int32", []any{int32(7)}, 7 * time.Millisecond, ""},
		{"negative", []any{int64(-1)}, 0, "out of range"},
		{"too large", []any{uint64(1 << 63)}, 0, "out of range"},
		{"string", []any{"12"}, 0, "want an integer, got string"},
		{"empty", nil, 0, "want one value, got 0"},
		{"two values", []any{uint32(1), uint32(2)}, 0, "want one value, got 2"},
	}
	for _, tc := range tests {
		got, err := millisBody(tc.body)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: err = %v, want %q", tc.name, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: millisBody = %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
}

func TestLinuxCandidateOrder(t *testing.T) {
	t.Parallel()
	names := func(cs []candidate) string {
		var s []string
		for _, c := range cs {
			s = append(s, c.name)
		}
		return strings.Join(s, ",")
	}
	if got, want := names(linuxCandidates(false)), "x11-screensaver,mutter-idlemonitor,freedesktop-screensaver"; got != want {
		t.Errorf("X11 order = %s, want %s", got, want)
	}
	if got, want := names(linuxCandidates(true)), "mutter-idlemonitor,freedesktop-screensaver,x11-screensaver"; got != want {
		t.Errorf("Wayland order = %s, want %s", got, want)
	}
}

func TestSessionBusAddress(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", dir)
	if _, err := sessionBusAddress(""); err == nil {
		t.Error("no bus anywhere: want an error, not an autolaunch")
	}
	if got, _ := sessionBusAddress("unix:path=/x"); got != "unix:path=/x" {
		t.Errorf("explicit address = %q", got)
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus")
	if got, _ := sessionBusAddress(""); got != "unix:path=/run/user/1000/bus" {
		t.Errorf("from the environment = %q", got)
	}
}
