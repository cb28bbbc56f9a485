package calendar_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strings"
	"testing"

	gcal "google.golang.org/api/calendar/v3"

	"github.com/metaclaw/metaclaw/idle/calendar"
)

func TestConnectFlow(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "")
	c := e.client()
	if c.Connected() {
		t.Fatal("Connected before connecting")
	}
	p, err := c.StartConnect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(p.URL())
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	redirect, _ := url.Parse(q.Get("redirect_uri"))
	checks := map[string]bool{
		"auth URL at the override":    strings.HasPrefix(p.URL(), e.g.AuthURL()+"?"),
		"freebusy scope only":         q.Get("scope") == gcal.CalendarFreebusyScope,
		"offline access":              q.Get("access_type") == "offline",
		"consent forced":              q.Get("prompt") == "consent",
		"PKCE S256":                   q.Get("code_challenge_method") == "S256" && len(q.Get("code_challenge")) == 43,
		"random state":                len(q.Get("state")) >= 22,
		"loopback redirect":           redirect.Scheme == "http" && redirect.Hostname() == "127.0.0.1" && redirect.Port() != "",
		"RedirectURL matches the URL": p.RedirectURL() == q.Get("redirect_uri"),
	}
	for what, ok := range checks {
		if !ok {
			t.Errorf("%s: auth URL %s", what, p.URL())
		}
	}
	done := startWait(t.Context(), p)
	status, page := browse(t, p.URL())
	r := result(t, done)
	if r.err != nil {
		t.Fatalf("Wait: %v", r.err)
	}
	if status != http.StatusOK || !strings.Contains(page, "You can close this tab") {
		t.Errorf("browser page: %d %q", status, page)
	}
	if r.tok.RefreshToken == "" || !e.g.Live(r.tok.AccessToken) {
		t.Errorf("token: refresh present=%v, access live=%v", r.tok.RefreshToken != "", e.g.Live(r.tok.AccessToken))
	}
	stored := e.fileToken()
	if stored.AccessToken != r.tok.AccessToken || stored.RefreshToken != r.tok.RefreshToken {
		t.Error("token file does not hold the granted token")
	}
	assertMode0600(t, e.cfg.TokenPath)
	if !c.Connected() || e.g.Stats().CodeExchanges != 1 {
		t.Errorf("Connected=%v exchanges=%d", c.Connected(), e.g.Stats().CodeExchanges)
	}
	// The listener is gone once Wait returned.
	if _, err := http.Get(p.RedirectURL()); err == nil {
		t.Error("loopback listener still answers after Wait")
	}
}

func assertMode0600(t *testing.T, path string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		return
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %v, want 0600", path, fi.Mode().Perm())
	}
}

// A callback with the wrong state is refused and the flow keeps waiting
// for the real one; the forged code is never exchanged.
func TestConnectStateMismatchRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "")
	c := e.client()
	p, err := c.StartConnect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	done := startWait(t.Context(), p)
	forged := p.RedirectURL() + "?" + url.Values{"code": {"4/forged"}, "state": {"not-the-state"}}.Encode()
	status, page := browse(t, forged)
	if status != http.StatusBadRequest || !strings.Contains(page, "state mismatch") {
		t.Fatalf("forged callback: %d %q", status, page)
	}
	if c.Connected() {
		t.Fatal("a token was stored from a forged callback")
	}
	status, _ = browse(t, p.URL())
	if r := result(t, done); r.err != nil || status != http.StatusOK {
		t.Fatalf("real callback after the forged one: status %d, err %v", status, r.err)
	}
	if n := e.g.Stats().CodeExchanges; n != 1 {
		t.Errorf("code exchanges = %d, want 1", n)
	}
}

func TestConnectRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		prepare func(*env)
		wantErr string
	}{
		{"person denies consent", func(e *env) { e.g.DenyConsent("access_denied") }, "access_denied"},
		{"calendar box unticked", func(e *env) { e.g.GrantScope("openid") }, "not granted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, "")
			tt.prepare(e)
			c := e.client()
			p, err := c.StartConnect(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			done := startWait(t.Context(), p)
			status, page := browse(t, p.URL())
			r := result(t, done)
			if r.err == nil || !strings.Contains(r.err.Error(), tt.wantErr) {
				t.Fatalf("Wait error = %v, want it to mention %q", r.err, tt.wantErr)
			}
			if status != http.StatusBadRequest || !strings.Contains(page, "not connected") {
				t.Errorf("browser page: %d %q", status, page)
			}
			if c.Connected() {
				t.Error("token stored after a refusal")
			}
		})
	}
}

func TestConnectCancelled(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "")
	p, err := e.client().StartConnect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := startWait(ctx, p)
	cancel()
	if r := result(t, done); !errors.Is(r.err, context.Canceled) {
		t.Fatalf("Wait after cancel: %v", r.err)
	}
	if _, err := http.Get(p.RedirectURL()); err == nil {
		t.Error("loopback listener still answers after cancel")
	}
}

func TestConnectEventsModeAsksEventsScope(t *testing.T) {
	t.Parallel()
	e := newEnv(t, calendar.ModeEvents)
	p, err := e.client().StartConnect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	u, _ := url.Parse(p.URL())
	if got := u.Query().Get("scope"); got != gcal.CalendarEventsReadonlyScope {
		t.Errorf("scope = %q, want %q", got, gcal.CalendarEventsReadonlyScope)
	}
}
