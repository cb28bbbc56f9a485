package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/app"
	"github.com/metaclaw/metaclaw/app/instance"
	"github.com/metaclaw/metaclaw/idle/calendar/fakegoogle"
	"github.com/metaclaw/metaclaw/idle/windows"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
	"github.com/metaclaw/metaclaw/store/testutil"
)

// patience bounds waits so a bug fails the test instead of hanging it. It
// is never an assertion about speed.
const patience = 20 * time.Second

// newHome makes a data directory with the given settings and points
// METACLAW_HOME at it (process-wide: these tests do not run in parallel).
func newHome(t *testing.T, settings map[string]string) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("METACLAW_HOME", home)
	db, err := store.Open(filepath.Join(home, instance.DBName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := config.Save(context.Background(), db, settings); err != nil {
		t.Fatal(err)
	}
	return home
}

// mustRun runs a command that must succeed and returns its output.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := Main(args, &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}); code != 0 {
		t.Fatalf("metaclaw %s: exit %d\n%s%s", strings.Join(args, " "), code, out.String(), errb.String())
	}
	return out.String()
}

// mustJSON runs a command that must succeed and decodes its JSON output.
func mustJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	out := mustRun(t, args...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("metaclaw %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// hhmm is the local wall-clock time d from now, as the settings take it.
func hhmm(d time.Duration) string { return time.Now().Add(d).Format("15:04") }

// statusJSON is what the tests read of `scheduler status --json`.
type statusJSON struct {
	windows.State
	Settings struct {
		SleepHours string `json:"sleep_hours"`
	} `json:"settings"`
	Running *windows.State `json:"running"`
}

// nextJSON is `scheduler next-window --json`.
type nextJSON struct {
	Found, Open, Enabled, Paused bool
	Reason, Detail, Calendar     string
	Start, End                   time.Time
}

func TestSchedulerStatusAndNextWindowJSON(t *testing.T) {
	in3h := hhmm(3 * time.Hour) // once: a minute may turn between config and check
	tests := []struct {
		name                 string
		start, end           string
		paused               bool
		open                 bool
		reason, detailPrefix string
		nextOpen             bool
	}{
		{"in sleep hours", hhmm(-time.Hour), in3h, false, true, "sleep", "sleep hours until " + in3h, true},
		{"before sleep hours", hhmm(2 * time.Hour), hhmm(5 * time.Hour), false, false, "", "", false},
		{"paused in sleep hours", hhmm(-time.Hour), hhmm(3 * time.Hour), true, false, "", "learning paused", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			newHome(t, map[string]string{"scheduler.enabled": "true", "scheduler.sleep_start": tt.start,
				"scheduler.sleep_end": tt.end, "scheduler.screen_fallback": "false"})
			if tt.paused {
				mustRun(t, "pause")
			}
			var st statusJSON
			mustJSON(t, &st, "scheduler", "status", "--json")
			if !st.Enabled || st.Open != tt.open || st.Reason != tt.reason || !strings.HasPrefix(st.Detail, tt.detailPrefix) {
				t.Errorf("status: %+v", st.State)
			}
			if st.IdleSource == "" && st.IdleError == "" || st.Calendar != "off" || st.Paused != tt.paused || st.Running != nil {
				t.Errorf("status signals: %+v, running %v", st.State, st.Running)
			}
			if st.Settings.SleepHours != tt.start+"–"+tt.end {
				t.Errorf("sleep hours %q", st.Settings.SleepHours)
			}
			var next nextJSON
			mustJSON(t, &next, "scheduler", "next-window", "--json")
			if !next.Found || next.Reason != "sleep" || next.Open != tt.nextOpen || next.Paused != tt.paused ||
				next.Start.Local().Format("15:04") != tt.start || next.End.Local().Format("15:04") != tt.end {
				t.Errorf("next-window: %+v", next)
			}
		})
	}
}

func TestSchedulerNextWindowNone(t *testing.T) {
	newHome(t, map[string]string{"scheduler.sleep_start": "00:00", "scheduler.sleep_end": "00:00"})
	var next nextJSON
	mustJSON(t, &next, "scheduler", "next-window", "--json")
	if next.Found || next.Enabled {
		t.Errorf("no sleep hours, no calendar, skills_only: %+v", next)
	}
	if out := mustRun(t, "scheduler", "next-window"); !strings.HasPrefix(out, "No sleep or meeting window ahead") ||
		!strings.Contains(out, "training windows are off: mode skills_only") {
		t.Errorf("text:\n%s", out)
	}
}

// connectCLI runs `metaclaw calendar connect`, playing the browser: it
// follows the printed URL through the fake's consent page back to the
// command's loopback listener. It returns the command's output.
func connectCLI(t *testing.T) string {
	t.Helper()
	var opened string
	old := browserCommand
	browserCommand = func(url string) *exec.Cmd { opened = url; return exec.Command("true") }
	t.Cleanup(func() { browserCommand = old })
	pr, pw := io.Pipe()
	code := make(chan int, 1)
	go func() {
		code <- Main([]string{"calendar", "connect"}, &Env{Stdin: strings.NewReader(""), Stdout: pw, Stderr: pw})
		pw.Close()
	}()
	var out strings.Builder
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			out.WriteString(sc.Text() + "\n")
			if strings.HasPrefix(sc.Text(), "http") {
				urls <- sc.Text()
			}
		}
		close(urls)
	}()
	u := <-urls
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("browser came back to status %d", resp.StatusCode)
	}
	select {
	case c := <-code:
		for range urls { // until the output ends
		}
		if c != 0 || opened != u {
			t.Fatalf("calendar connect: exit %d, opened %q\n%s", c, opened, out.String())
		}
	case <-time.After(patience):
		t.Fatal("calendar connect did not return")
	}
	return out.String()
}

// The calendar commands against a fake Google: connect saves the token
// 0600; status and next-window then see the meeting; disconnect revokes
// the grant and deletes the token.
func TestCalendarConnectAgainstFakeGoogle(t *testing.T) {
	g := fakegoogle.New()
	t.Cleanup(g.Close)
	secrets := filepath.Join(t.TempDir(), "client_secret.json")
	if err := os.WriteFile(secrets, g.ClientSecrets(), 0o600); err != nil {
		t.Fatal(err)
	}
	home := newHome(t, map[string]string{"scheduler.enabled": "true", "scheduler.sleep_start": "00:00", "scheduler.sleep_end": "00:00",
		"scheduler.calendar.enabled": "true", "scheduler.calendar.credentials_path": secrets})
	ep, _ := json.Marshal(map[string]string{"revoke_url": g.RevokeURL(), "api_base": g.APIBase()})
	t.Setenv(googleEndpointsEnv, string(ep))

	out := connectCLI(t)
	token := filepath.Join(home, windows.TokenName)
	if !strings.Contains(out, "Google Calendar connected; token saved to "+token+" (mode 0600)") {
		t.Errorf("connect output:\n%s", out)
	}
	if fi, err := os.Stat(token); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v, %v", fi, err)
	}

	now := time.Now()
	g.SetBusy("primary", fakegoogle.Period{Start: now.Add(-10 * time.Minute), End: now.Add(50 * time.Minute)})
	var st statusJSON
	mustJSON(t, &st, "scheduler", "status", "--json")
	if !st.Open || st.Reason != "meeting" || !st.CalendarConnected || !strings.HasPrefix(st.Calendar, "connected") {
		t.Errorf("status in a meeting: %+v", st.State)
	}
	var next nextJSON
	mustJSON(t, &next, "scheduler", "next-window", "--json")
	if !next.Found || !next.Open || next.Reason != "meeting" || next.End.Sub(now.Add(50*time.Minute)).Abs() > time.Second {
		t.Errorf("next-window in a meeting: %+v", next)
	}
	if out := mustRun(t, "calendar", "status"); !strings.Contains(out, "Google Calendar: connected; Google answers, 1 busy period(s)") {
		t.Errorf("calendar status:\n%s", out)
	}

	if out := mustRun(t, "calendar", "disconnect"); !strings.Contains(out, "disconnected") {
		t.Errorf("disconnect: %q", out)
	}
	if _, err := os.Stat(token); !os.IsNotExist(err) || g.Stats().Revocations != 1 {
		t.Errorf("after disconnect: token %v, revocations %d", err, g.Stats().Revocations)
	}
	if out := mustRun(t, "calendar", "disconnect"); !strings.Contains(out, "not connected") {
		t.Errorf("second disconnect: %q", out)
	}
}

func TestCalendarConnectNeedsCredentials(t *testing.T) {
	tests := []struct{ name, path, want string }{
		{"unset", "", "scheduler.calendar.credentials_path is not set"},
		{"missing", filepath.Join(os.TempDir(), "no-such-dir", "client_secret.json"), "does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			newHome(t, map[string]string{"scheduler.calendar.credentials_path": tt.path})
			var out, errb bytes.Buffer
			code := Main([]string{"calendar", "connect"}, &Env{Stdout: &out, Stderr: &errb})
			if code != 1 || !strings.Contains(errb.String(), tt.want) || !strings.Contains(errb.String(), `"Desktop app"`) {
				t.Errorf("exit %d, stderr %q", code, errb.String())
			}
		})
	}
}

// `metaclaw status` and `scheduler status` show what the running app
// recorded.
func TestStatusShowsTrainingWindow(t *testing.T) {
	end := hhmm(3 * time.Hour) // once: a minute may turn between config and check
	home := newHome(t, map[string]string{"proxy.port": freePort(t), "web.port": freePort(t), "scheduler.enabled": "true",
		"scheduler.sleep_start": hhmm(-time.Hour), "scheduler.sleep_end": end, "scheduler.screen_fallback": "false"})
	a, err := app.New(app.Options{Home: home, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(context.Background()); err != nil {
		a.Stop()
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Stop() })
	waitProxy(t, a.ProxyURL())
	if out := mustRun(t, "status"); !strings.Contains(out, "  window:   open (sleep) until "+end+" — sleep hours until") {
		t.Errorf("status:\n%s", out)
	}
	var st statusJSON
	mustJSON(t, &st, "scheduler", "status", "--json")
	if r := st.Running; r == nil || !r.Open || r.Reason != "sleep" || r.IdleError == "" && r.IdleSource == "" {
		t.Errorf("running: %+v", r)
	}
}

// waitProxy waits until the proxy answers, so that Stop never comes before
// it took its listener (a fiber shutdown that comes first does not stop it).
func waitProxy(t *testing.T, proxyURL string) {
	t.Helper()
	testutil.Eventually(t, "the proxy to answer", func() bool {
		_, err := fetchHealth(proxyURL, time.Second)
		return err == nil
	})
}
