package tray_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/prop"
	"github.com/metaclaw/metaclaw/app/learner"
	"github.com/metaclaw/metaclaw/app/tray"
	"github.com/metaclaw/metaclaw/store"
)

// TestTrayOverDBus drives the real metaclaw binary's tray over a private
// D-Bus session, as a desktop's panel would: it reads the menu through
// com.canonical.dbusmenu, clicks Pause learning, Start at login, Open log,
// Open MetaClaw and Quit, checks what each did, and starts MetaClaw again to
// see the state survive. A StatusNotifierWatcher stub (the tray host) runs
// in the test process; the first time it starts after MetaClaw, as a panel
// may at login.
//
// The test runs itself again under dbus-run-session; without dbus tools it
// is skipped, or fails with METACLAW_E2E=1.
func TestTrayOverDBus(t *testing.T) {
	if os.Getenv("METACLAW_TRAY_INNER") == "1" {
		trayInner(t)
		return
	}
	for _, tool := range []string{"dbus-run-session", "dbus-daemon"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("METACLAW_E2E") == "1" {
				t.Fatalf("METACLAW_E2E=1 needs %s (apt-get install dbus): %v", tool, err)
			}
			t.Skipf("%s not found (apt-get install dbus)", tool)
		}
	}
	bin := filepath.Join(t.TempDir(), "metaclaw")
	build := exec.Command("go", "build", "-ldflags", "-X main.version=tray-test", "-o", bin, "github.com/metaclaw/metaclaw/app/cmd/metaclaw")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "dbus-run-session", "--", os.Args[0], "-test.run=^TestTrayOverDBus$", "-test.v", "-test.count=1")
	cmd.Env = append(withoutEnv(os.Environ(), "DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS"),
		"METACLAW_TRAY_INNER=1", "METACLAW_TRAY_BINARY="+bin)
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("--- PASS: TestTrayOverDBus")) {
		t.Fatalf("inside dbus-run-session: %v\n%s", err, out)
	}
	if testing.Verbose() {
		t.Logf("inside dbus-run-session:\n%s", out)
	}
}

// trayInner runs inside the private session bus.
func trayInner(t *testing.T) {
	s, port := newTraySession(t)
	firstRun(t, s, port)
	secondRun(t, s)
}

// newTraySession sets MetaClaw up in a temporary data directory, with its
// own XDG_CONFIG_HOME and HOME, and an xdg-open that records what it is
// asked to open. It returns the proxy port.
func newTraySession(t *testing.T) (*session, int) {
	tmp := t.TempDir()
	s := &session{t: t, bin: os.Getenv("METACLAW_TRAY_BINARY"),
		home: filepath.Join(tmp, "data"), xdgConfig: filepath.Join(tmp, "config"), opened: filepath.Join(tmp, "opened")}
	fakeBin := filepath.Join(tmp, "bin")
	if err := os.MkdirAll(fakeBin, 0o755); err != nil {
		t.Fatal(err)
	}
	// xdg-open records what it was asked to open.
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" >> '" + s.opened + "'\n"
	if err := os.WriteFile(filepath.Join(fakeBin, "xdg-open"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	s.env = append(withoutEnv(os.Environ(), "DISPLAY", "WAYLAND_DISPLAY", "XDG_CONFIG_HOME", "HOME", "METACLAW_HOME", "PATH"),
		"METACLAW_HOME="+s.home, "XDG_CONFIG_HOME="+s.xdgConfig, "HOME="+filepath.Join(tmp, "home"),
		"PATH="+fakeBin+string(os.PathListSeparator)+os.Getenv("PATH"), "TEST_PROVIDER_KEY=sk-test-secret-1234")
	port := freePort(t)
	s.must("setup", "--provider", "openai", "--api-key-env", "TEST_PROVIDER_KEY", "--mode", "skills_only", "--port", strconv.Itoa(port))
	s.must("config", "set", "web.port", strconv.Itoa(freePort(t)))
	return s, port
}

// firstRun starts MetaClaw before the tray host, as at login before the
// panel: MetaClaw says so and its icon appears when the host starts. Then:
// learning, not at login. It pauses, turns on start at login, opens the log
// and the web page, and quits.
func firstRun(t *testing.T, s *session, port int) {
	if err := tray.Available(); !errors.Is(err, tray.ErrNoHost) {
		t.Fatalf("Available without a watcher = %v, want ErrNoHost", err)
	}
	run := s.launch()
	run.waitLog("tray icon waiting for a tray host")
	run.waitLog("tray menu ready; the icon shows as soon as a tray host starts")
	s.w = startWatcher(t)
	if err := tray.Available(); err != nil {
		t.Fatalf("Available with a watcher: %v", err)
	}
	run.attach(s.w)
	m := run.menu()
	// dbusmenu reads "_" as the mnemonic marker: the label doubles it so
	// that the panel shows "skills_only", not "skillsonly".
	m.want(t, "skills__only · 127.0.0.1:"+strconv.Itoa(port)+" · 0 turns today", false, false)
	for _, bad := range []string{"running without a tray icon", "systray error", "tray icon shown"} {
		if strings.Contains(run.out.String(), bad) {
			t.Errorf("the log contradicts itself: it says %q while waiting for a tray host:\n%s", bad, run.out)
		}
	}
	m.want(t, "Pause learning", true, false)
	m.want(t, "Start at login", true, false)
	if tip := run.tooltip(); tip != "MetaClaw: learning (skills_only)" {
		t.Errorf("tooltip = %q", tip)
	}
	run.click("Pause learning")
	run.waitMenu("Resume learning", true)
	if tip := run.tooltip(); tip != "MetaClaw: learning paused" {
		t.Errorf("tooltip after pause = %q", tip)
	}
	run.click("Start at login")
	run.waitMenu("Start at login", true)
	entry := filepath.Join(s.xdgConfig, "autostart", "metaclaw.desktop")
	data, err := os.ReadFile(entry)
	if err != nil {
		t.Fatalf("no autostart entry after clicking Start at login: %v", err)
	}
	if !strings.Contains(string(data), "Exec="+strconv.Quote(s.bin)+"\n") {
		t.Errorf("autostart entry does not start %s:\n%s", s.bin, data)
	}
	run.click("Open log")
	s.waitOpened(func(l string) bool { return l == filepath.Join(s.home, "metaclaw.log") }, "the log file")
	run.click("Open MetaClaw")
	s.waitOpened(func(l string) bool { return strings.HasPrefix(l, "http://127.0.0.1:") }, "a web page URL")
	run.quit()
	if got := s.meta(); got != "1" {
		t.Errorf("after Pause, meta %s = %q, want 1", learner.MetaLearningPaused, got)
	}
	if out := s.must("autostart", "status"); !strings.HasPrefix(out, "start at login: on") {
		t.Errorf("autostart status after the click: %q", out)
	}
}

// secondRun finds the state kept. The menu follows a change made with the
// CLI; clicks resume and pause again; start at login goes off.
func secondRun(t *testing.T, s *session) {
	run := s.start()
	m := run.menu()
	m.want(t, "Resume learning", true, true)
	m.want(t, "Start at login", true, true)
	s.must("resume")
	run.waitMenu("Pause learning", false) // within the tray's refresh
	run.click("Pause learning")
	run.waitMenu("Resume learning", true)
	run.click("Resume learning")
	run.waitMenu("Pause learning", false)
	run.click("Start at login")
	run.waitMenu("Start at login", false)
	entry := filepath.Join(s.xdgConfig, "autostart", "metaclaw.desktop")
	if _, err := os.Stat(entry); !os.IsNotExist(err) {
		t.Errorf("autostart entry still there after unchecking: %v", err)
	}
	run.quit()
	if got := s.meta(); got != "" {
		t.Errorf("after Resume, meta %s = %q, want empty", learner.MetaLearningPaused, got)
	}
	if out := s.must("autostart", "status"); out != "start at login: off\n" {
		t.Errorf("autostart status: %q", out)
	}
}

// session is one data directory and environment for the binary.
type session struct {
	t                            *testing.T
	w                            *watcher
	bin, home, xdgConfig, opened string
	env                          []string
}

func (s *session) must(args ...string) string {
	s.t.Helper()
	cmd := exec.Command(s.bin, args...)
	cmd.Env = s.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("metaclaw %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// meta reads the pause flag from the database of a stopped MetaClaw.
func (s *session) meta() string {
	s.t.Helper()
	db, err := store.Open(filepath.Join(s.home, "metaclaw.db"))
	if err != nil {
		s.t.Fatal(err)
	}
	defer db.Close()
	v, err := db.Meta(context.Background(), learner.MetaLearningPaused)
	if err != nil {
		s.t.Fatal(err)
	}
	return v
}

func (s *session) waitOpened(ok func(line string) bool, what string) {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		data, _ := os.ReadFile(s.opened)
		for _, l := range strings.Split(string(data), "\n") {
			if ok(l) {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	data, _ := os.ReadFile(s.opened)
	s.t.Fatalf("xdg-open was not asked to open %s; it got:\n%s", what, data)
}

// running is a started metaclaw with its tray registered.
type running struct {
	t       *testing.T
	cmd     *exec.Cmd
	out     *syncBuffer
	conn    *dbus.Conn
	item    dbus.BusObject
	menuObj dbus.BusObject
	done    chan error
}

// start runs `metaclaw` with no arguments, as a double-click or a login
// does, and waits for its tray icon.
func (s *session) start() *running {
	s.t.Helper()
	r := s.launch()
	r.attach(s.w)
	return r
}

// launch runs `metaclaw` with no arguments.
func (s *session) launch() *running {
	s.t.Helper()
	r := &running{t: s.t, out: &syncBuffer{}, done: make(chan error, 1)}
	r.cmd = exec.Command(s.bin)
	r.cmd.Env = s.env
	r.cmd.Stdout, r.cmd.Stderr = r.out, r.out
	if err := r.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	go func() { r.done <- r.cmd.Wait() }()
	s.t.Cleanup(func() {
		if r.cmd.ProcessState == nil {
			_ = r.cmd.Process.Kill()
		}
	})
	return r
}

// attach waits for the tray icon to register with the watcher and finds
// its menu.
func (r *running) attach(w *watcher) {
	r.t.Helper()
	r.conn = w.conn
	var service string
	select {
	case service = <-w.registered:
	case err := <-r.done:
		r.t.Fatalf("metaclaw exited before showing its tray icon: %v\n%s", err, r.out)
	case <-time.After(30 * time.Second):
		r.t.Fatalf("no tray icon registered in 30s\n%s", r.out)
	}
	name, path, _ := strings.Cut(service, "/")
	r.item = r.conn.Object(name, dbus.ObjectPath("/"+path))
	v, err := r.item.GetProperty("org.kde.StatusNotifierItem.Menu")
	if err != nil {
		r.t.Fatalf("read the item's Menu: %v", err)
	}
	r.menuObj = r.conn.Object(name, v.Value().(dbus.ObjectPath))
	r.waitLog("tray menu ready") // the menu's click handlers run
}

func (r *running) waitLog(s string) {
	r.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(r.out.String(), s) {
		if time.Now().After(deadline) {
			r.t.Fatalf("metaclaw did not log %q:\n%s", s, r.out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (r *running) tooltip() string {
	r.t.Helper()
	v, err := r.item.GetProperty("org.kde.StatusNotifierItem.ToolTip")
	if err != nil {
		r.t.Fatal(err)
	}
	fields, ok := v.Value().([]any)
	if !ok || len(fields) != 4 {
		r.t.Fatalf("ToolTip is %#v", v.Value())
	}
	title, _ := fields[2].(string)
	return title
}

// menuItem is one dbusmenu entry.
type menuItem struct {
	id      int32
	label   string
	checked bool // toggle-state 1
	enabled bool
}

type menuItems []menuItem

// menu reads the menu's layout.
func (r *running) menu() menuItems {
	r.t.Helper()
	var rev uint32
	var root layout
	if err := r.menuObj.Call("com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{}).Store(&rev, &root); err != nil {
		r.t.Fatalf("GetLayout: %v", err)
	}
	var items menuItems
	for _, c := range root.Children {
		var l layout
		if err := dbus.Store(c.Value().([]any), &l.ID, &l.Props, &l.Children); err != nil {
			r.t.Fatalf("menu entry %#v: %v", c.Value(), err)
		}
		it := menuItem{id: l.ID, enabled: true}
		if v, ok := l.Props["label"]; ok {
			it.label, _ = v.Value().(string)
		}
		if v, ok := l.Props["toggle-state"]; ok {
			state, _ := v.Value().(int32)
			it.checked = state == 1
		}
		if v, ok := l.Props["enabled"]; ok {
			it.enabled, _ = v.Value().(bool)
		}
		if v, ok := l.Props["visible"]; ok && !v.Value().(bool) {
			continue
		}
		items = append(items, it)
	}
	return items
}

type layout struct {
	ID       int32
	Props    map[string]dbus.Variant
	Children []dbus.Variant
}

func (m menuItems) find(label string) (menuItem, bool) {
	for _, it := range m {
		if it.label == label {
			return it, true
		}
	}
	return menuItem{}, false
}

func (m menuItems) String() string {
	var b strings.Builder
	for _, it := range m {
		fmt.Fprintf(&b, "  %d %q checked=%v enabled=%v\n", it.id, it.label, it.checked, it.enabled)
	}
	return b.String()
}

// want checks that the menu has an item with this label, tick and state.
func (m menuItems) want(t *testing.T, label string, enabled, checked bool) {
	t.Helper()
	it, ok := m.find(label)
	if !ok {
		t.Fatalf("no menu item %q in\n%s", label, m)
	}
	if it.enabled != enabled || it.checked != checked {
		t.Errorf("menu item %q: enabled=%v checked=%v, want %v %v", label, it.enabled, it.checked, enabled, checked)
	}
}

// waitMenu waits for an item with this label and tick.
func (r *running) waitMenu(label string, checked bool) {
	r.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		m := r.menu()
		if it, ok := m.find(label); ok && it.checked == checked {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("no item %q with checked=%v in\n%s\nlog:\n%s", label, checked, m, r.out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (r *running) click(label string) {
	r.t.Helper()
	m := r.menu()
	it, ok := m.find(label)
	if !ok {
		r.t.Fatalf("no menu item %q to click in\n%s", label, m)
	}
	call := r.menuObj.Call("com.canonical.dbusmenu.Event", 0, it.id, "clicked", dbus.MakeVariant(int32(0)), uint32(time.Now().Unix()))
	if call.Err != nil {
		r.t.Fatalf("click %q: %v", label, call.Err)
	}
}

// quit clicks Quit and waits for a clean exit.
func (r *running) quit() {
	r.t.Helper()
	r.click("Quit")
	select {
	case err := <-r.done:
		if err != nil {
			r.t.Fatalf("metaclaw exited with %v after Quit:\n%s", err, r.out)
		}
	case <-time.After(30 * time.Second):
		r.t.Fatalf("metaclaw still running 30s after Quit:\n%s", r.out)
	}
	if testing.Verbose() {
		r.t.Logf("metaclaw's output:\n%s", r.out)
	}
	for _, want := range []string{"quit chosen in the tray", "stopping: quit from the tray", "MetaClaw stopped"} {
		if !strings.Contains(r.out.String(), want) {
			r.t.Errorf("log lacks %q:\n%s", want, r.out)
		}
	}
}

// watcher is a minimal org.kde.StatusNotifierWatcher: the part of a tray
// host that items register with.
type watcher struct {
	conn       *dbus.Conn
	props      *prop.Properties
	registered chan string // "busname/path" of each registered item

	mu    sync.Mutex // guards items
	items []string
}

func startWatcher(t *testing.T) *watcher {
	t.Helper()
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatalf("session bus: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	w := &watcher{conn: conn, registered: make(chan string, 4)}
	const iface, path = "org.kde.StatusNotifierWatcher", "/StatusNotifierWatcher"
	if err := conn.Export(w, path, iface); err != nil {
		t.Fatal(err)
	}
	w.props, err = prop.Export(conn, path, map[string]map[string]*prop.Prop{iface: {
		"RegisteredStatusNotifierItems":  {Value: []string{}, Emit: prop.EmitTrue},
		"IsStatusNotifierHostRegistered": {Value: true, Emit: prop.EmitTrue},
		"ProtocolVersion":                {Value: int32(0), Emit: prop.EmitTrue},
	}})
	if err != nil {
		t.Fatal(err)
	}
	reply, err := conn.RequestName(iface, dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own %s: %v (reply %d)", iface, err, reply)
	}
	return w
}

// RegisterStatusNotifierItem is called by items; systray passes its object
// path, so the item is the sender's name plus that path.
func (w *watcher) RegisterStatusNotifierItem(sender dbus.Sender, service string) *dbus.Error {
	if strings.HasPrefix(service, "/") {
		service = string(sender) + service
	}
	w.mu.Lock()
	w.items = append(w.items, service)
	items := append([]string(nil), w.items...)
	w.mu.Unlock()
	w.props.SetMust("org.kde.StatusNotifierWatcher", "RegisteredStatusNotifierItems", items)
	w.registered <- service
	return nil
}

// RegisterStatusNotifierHost accepts a host.
func (w *watcher) RegisterStatusNotifierHost(service string) *dbus.Error { return nil }

func withoutEnv(env []string, names ...string) []string {
	var out []string
next:
	for _, kv := range env {
		for _, n := range names {
			if strings.HasPrefix(kv, n+"=") {
				continue next
			}
		}
		out = append(out, kv)
	}
	return out
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// syncBuffer collects a process's output for concurrent readers.
type syncBuffer struct {
	mu sync.Mutex // guards b
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
