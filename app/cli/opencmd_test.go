package cli

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/app"
	"github.com/metaclaw/metaclaw/app/instance"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// startApp runs a MetaClaw on free ports with its data in a new METACLAW_HOME.
func startApp(t *testing.T) *app.App {
	t.Helper()
	home := t.TempDir()
	t.Setenv("METACLAW_HOME", home)
	db, err := store.Open(filepath.Join(home, instance.DBName))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := config.Save(context.Background(), db, map[string]string{"proxy.port": freePort(t), "web.port": freePort(t)}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	a, err := app.New(app.Options{Home: home, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(context.Background()); err != nil {
		a.Stop()
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Stop() })
	return a
}

// TestOpenPrintLogsIn runs `metaclaw open --print` against a running app
// (another "process" through the database and pid file) and logs in with
// the URL it prints, once.
func TestOpenPrintLogsIn(t *testing.T) {
	a := startApp(t)
	var out, errb bytes.Buffer
	if code := Main([]string{"open", "--print"}, &Env{Stdout: &out, Stderr: &errb}); code != 0 {
		t.Fatalf("open --print: exit %d: %s", code, errb.String())
	}
	u := strings.TrimSpace(out.String())
	if !strings.HasPrefix(u, a.WebURL()+"/login?token=") {
		t.Fatalf("printed %q, web page at %s", u, a.WebURL())
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || (resp.Request.URL.Path != "/" && resp.Request.URL.Path != "/setup") {
		t.Fatalf("login: status %d at %s", resp.StatusCode, resp.Request.URL)
	}
	resp, err = (&http.Client{Timeout: 10 * time.Second}).Get(u)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("second use of the token: status %d", resp.StatusCode)
	}
}

func TestOpenStartsBrowser(t *testing.T) {
	a := startApp(t)
	var opened string
	old := browserCommand
	browserCommand = func(url string) *exec.Cmd { opened = url; return exec.Command("true") }
	t.Cleanup(func() { browserCommand = old })
	var out, errb bytes.Buffer
	if code := Main([]string{"open"}, &Env{Stdout: &out, Stderr: &errb}); code != 0 {
		t.Fatalf("open: exit %d: %s", code, errb.String())
	}
	if !strings.HasPrefix(opened, a.WebURL()+"/login?token=") || strings.Contains(out.String(), "token=") {
		t.Errorf("opened %q; printed %q", opened, out.String())
	}
}

func TestOpenNeedsRunningApp(t *testing.T) {
	t.Setenv("METACLAW_HOME", t.TempDir())
	var out, errb bytes.Buffer
	if code := Main([]string{"open", "--print"}, &Env{Stdout: &out, Stderr: &errb}); code != 1 || !strings.Contains(errb.String(), "not running") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}

func TestTrayWanted(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	desktop, headless := env(map[string]string{"DISPLAY": ":0"}), env(nil)
	for _, tt := range []struct {
		name   string
		f      startFlags
		getenv func(string) string
		goos   string
		want   bool
	}{
		{"foreground on a Linux desktop", startFlags{}, desktop, "linux", true},
		{"Wayland", startFlags{}, env(map[string]string{"WAYLAND_DISPLAY": "wayland-0"}), "linux", true},
		{"headless Linux", startFlags{}, headless, "linux", false},
		{"--no-tray wins", startFlags{noTray: true}, desktop, "linux", false},
		{"--tray on a headless box", startFlags{tray: true}, headless, "linux", true},
		{"Windows", startFlags{}, headless, "windows", true},
		{"macOS", startFlags{}, headless, "darwin", true},
	} {
		if got := trayWanted(tt.f, tt.getenv, tt.goos); got != tt.want {
			t.Errorf("%s: trayWanted = %v, want %v", tt.name, got, tt.want)
		}
	}
}
