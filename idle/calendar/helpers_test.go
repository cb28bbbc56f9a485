package calendar_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/metaclaw/metaclaw/idle/calendar"
	"github.com/metaclaw/metaclaw/idle/calendar/fakegoogle"
)

// patience bounds waits on goroutines so a bug fails the test instead of
// hanging it. It is never an assertion about speed.
const patience = 20 * time.Second

type fakeClock struct {
	mu sync.Mutex // guards t
	t  time.Time
}

func newClock() *fakeClock { return &fakeClock{t: time.Now().Truncate(time.Second)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// env is one fake Google plus a data directory.
type env struct {
	t     *testing.T
	g     *fakegoogle.Server
	clock *fakeClock
	cfg   calendar.Config
}

// newEnv writes client secrets that name Google's real auth and token
// URLs, and points the client at the fake through Config.Endpoints, so
// every test also shows the overrides reach every call.
func newEnv(t *testing.T, mode calendar.Mode) *env {
	t.Helper()
	g := fakegoogle.New()
	t.Cleanup(g.Close)
	dir := t.TempDir()
	secrets := bytes.ReplaceAll(g.ClientSecrets(), []byte(g.AuthURL()), []byte("https://accounts.google.com/o/oauth2/auth"))
	secrets = bytes.ReplaceAll(secrets, []byte(g.TokenURL()), []byte("https://oauth2.googleapis.com/token"))
	credPath := filepath.Join(dir, "client_secret.json")
	if err := os.WriteFile(credPath, secrets, 0o600); err != nil {
		t.Fatal(err)
	}
	clock := newClock()
	return &env{t: t, g: g, clock: clock, cfg: calendar.Config{
		CredentialsPath: credPath,
		TokenPath:       filepath.Join(dir, "data", "calendar-token.json"),
		Mode:            mode,
		Endpoints: calendar.Endpoints{
			AuthURL: g.AuthURL(), TokenURL: g.TokenURL(), RevokeURL: g.RevokeURL(), APIBase: g.APIBase(),
		},
		Clock:  clock,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}}
}

func (e *env) client() *calendar.Client {
	e.t.Helper()
	c, err := calendar.New(e.cfg)
	if err != nil {
		e.t.Fatalf("New: %v", err)
	}
	return c
}

type waitResult struct {
	tok *oauth2.Token
	err error
}

// startWait runs Wait in the background.
func startWait(ctx context.Context, p *calendar.PendingConnect) <-chan waitResult {
	ch := make(chan waitResult, 1)
	go func() {
		tok, err := p.Wait(ctx)
		ch <- waitResult{tok, err}
	}()
	return ch
}

func result(t *testing.T, ch <-chan waitResult) waitResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(patience):
		t.Fatal("Wait did not return")
		return waitResult{}
	}
}

// browse plays the browser: GET url, following redirects (Google's 302 to
// the loopback listener), and returns the final status and page.
func browse(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("browse %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// connect runs the whole flow and returns the token Wait gave.
func (e *env) connect(c *calendar.Client) *oauth2.Token {
	e.t.Helper()
	ctx := e.t.Context()
	p, err := c.StartConnect(ctx)
	if err != nil {
		e.t.Fatalf("StartConnect: %v", err)
	}
	done := startWait(ctx, p)
	status, body := browse(e.t, p.URL())
	r := result(e.t, done)
	if r.err != nil || status != http.StatusOK || !strings.Contains(body, "You can close this tab") {
		e.t.Fatalf("connect: err=%v status=%d page=%q", r.err, status, body)
	}
	return r.tok
}

// fileToken reads the token file as stored.
func (e *env) fileToken() oauth2.Token {
	e.t.Helper()
	b, err := os.ReadFile(e.cfg.TokenPath)
	if err != nil {
		e.t.Fatal(err)
	}
	var tok oauth2.Token
	if err := json.Unmarshal(b, &tok); err != nil {
		e.t.Fatalf("token file: %v", err)
	}
	return tok
}

// stepper is CacheOptions.After under the test's control: each wait Serve
// starts is reported on delays, and ends when the test sends on fire.
type stepper struct {
	delays chan time.Duration
	fire   chan time.Time
}

func newStepper() *stepper {
	return &stepper{delays: make(chan time.Duration), fire: make(chan time.Time)}
}

func (s *stepper) After(d time.Duration) <-chan time.Time {
	s.delays <- d
	return s.fire
}

func (s *stepper) next(t *testing.T) time.Duration {
	t.Helper()
	select {
	case d := <-s.delays:
		return d
	case <-time.After(patience):
		t.Fatal("Serve did not start waiting")
		return 0
	}
}

func at(day, clock string) time.Time {
	t, err := time.Parse(time.RFC3339, day+"T"+clock+"Z")
	if err != nil {
		panic(err)
	}
	return t
}
