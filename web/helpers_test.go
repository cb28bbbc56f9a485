package web

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// fakeControl stands in for the app.
type fakeControl struct {
	mu           sync.Mutex // guards paused, windows, connects, disconnects, policy and served
	paused       bool
	windows      WindowStatus
	connects     int
	disconnects  int
	cfg          config.Config
	logPath      string
	calendarAuth string              // what ConnectCalendar answers; "" fails
	policy       PolicyStatus        // what Policy answers (training_test.go)
	served       []string            // ServeCheckpoint's paths, in order
	status       func(*Status)       // adds to what Status answers (trust tests)
	applied      int                 // ApplySettings calls
	restarts     int                 // Restart calls
	connErr      error               // what TestConnection answers
	folder       *SkillsFolderStatus // what SkillsFolder answers
}

var _ Control = (*fakeControl)(nil)

func (f *fakeControl) Status() Status {
	eff := f.cfg.Resolve()
	f.mu.Lock()
	defer f.mu.Unlock()
	st := Status{Version: "test", Mode: eff.Mode, ConfiguredMode: f.cfg.Mode, ProxyURL: "http://127.0.0.1:30000",
		Home: "/tmp/metaclaw-test", StartedAt: time.Now().Add(-time.Hour), Problems: eff.Problems}
	if f.status != nil {
		f.status(&st)
	}
	return st
}

func (f *fakeControl) SkillsFolder() *SkillsFolderStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.folder
}

func (f *fakeControl) ApplySettings() { f.mu.Lock(); f.applied++; f.mu.Unlock() }

func (f *fakeControl) Restart() error { f.mu.Lock(); f.restarts++; f.mu.Unlock(); return nil }

func (f *fakeControl) TestConnection(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.connErr
}
func (f *fakeControl) Paused() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.paused
}
func (f *fakeControl) SetPaused(p bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.paused = p
	return nil
}
func (f *fakeControl) Config() config.Config { return f.cfg }
func (f *fakeControl) LogPath() string       { return f.logPath }

func (f *fakeControl) Windows() WindowStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.windows
}

func (f *fakeControl) setWindows(w WindowStatus) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.windows = w
}

func (f *fakeControl) ConnectCalendar(context.Context) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.connects++
	if f.calendarAuth == "" {
		return "", errors.New("google calendar client secrets missing: scheduler.calendar.credentials_path is not set")
	}
	return f.calendarAuth, nil
}

func (f *fakeControl) DisconnectCalendar(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.disconnects++
	f.windows.CalendarConnected = false
	return nil
}

func (f *fakeControl) calls() (connects, disconnects int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.connects, f.disconnects
}

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex // guards t
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// env is a running test server with its database.
type env struct {
	srv  *Server
	db   *store.DB
	ctl  *fakeControl
	clk  *clock
	base string // http://127.0.0.1:PORT
	home string
}

// testSecret is set as llm.api_key: no page may ever show it.
const testSecret = "sk-test-TOPSECRET-9f8e7d6c5b4a"

func newEnv(t *testing.T, mods ...func(*Options)) *env {
	t.Helper()
	home := t.TempDir()
	db, err := store.Open(filepath.Join(home, "metaclaw.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	cfg, err := config.Save(ctx, db, map[string]string{"llm.api_key": testSecret, "rl.prm_api_key": "prm-SECRET-0123456789"})
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(home, "metaclaw.log")
	log := "time=1 level=INFO msg=started\ntime=2 level=WARN msg=\"upstream said\" key=" + testSecret + "\n"
	if err := os.WriteFile(logPath, []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	e := &env{db: db, ctl: &fakeControl{cfg: cfg, logPath: logPath}, clk: &clock{t: time.Now()}, home: home}
	opts := Options{DB: db, Control: e.ctl, Now: e.clk.now, Host: "127.0.0.1",
		SkillCategories: []string{"automation", "coding", "communication"}}
	for _, m := range mods {
		m(&opts)
	}
	e.srv = New(opts)
	if err := e.srv.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	e.base = e.srv.URL()
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- e.srv.Serve(sctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return e
}

// client returns an HTTP client with a cookie jar that does not follow
// redirects.
func (e *env) client(t *testing.T) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// login logs a new client in through a one-time token.
func (e *env) login(t *testing.T) *http.Client {
	t.Helper()
	c := e.client(t)
	u, err := e.srv.LoginURL(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	resp := e.do(t, c, "GET", u, nil, nil)
	if resp.status != http.StatusSeeOther {
		t.Fatalf("login: status %d", resp.status)
	}
	return c
}

type page struct {
	status int
	body   string
	header http.Header
}

// do sends a request; form (when not nil) is sent url-encoded.
func (e *env) do(t *testing.T, c *http.Client, method, u string, form url.Values, hdr map[string]string) page {
	t.Helper()
	if strings.HasPrefix(u, "/") {
		u = e.base + u
	}
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range hdr {
		if k == "Host" { // the jar would pick cookies by this name: send the session's anyway
			req.Host = v
			for _, ck := range c.Jar.Cookies(req.URL) {
				req.AddCookie(ck)
			}
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return page{status: resp.StatusCode, body: string(b), header: resp.Header}
}

func (e *env) get(t *testing.T, c *http.Client, path string) page {
	t.Helper()
	return e.do(t, c, "GET", path, nil, nil)
}

var csrfRE = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

// csrf reads the session's CSRF token from a page.
func (e *env) csrf(t *testing.T, c *http.Client) string {
	t.Helper()
	m := csrfRE.FindStringSubmatch(e.get(t, c, "/").body)
	if m == nil {
		t.Fatal("no CSRF token on the dashboard")
	}
	return m[1]
}

// post sends a form with the session's CSRF token.
func (e *env) post(t *testing.T, c *http.Client, path string, form url.Values) page {
	t.Helper()
	if form == nil {
		form = url.Values{}
	}
	form.Set("_csrf", e.csrf(t, c))
	return e.do(t, c, "POST", path, form, nil)
}

// seed fills the database with a session, scored turns, a skill and a
// memory.
func (e *env) seed(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	if _, _, err := e.db.PutSkill(ctx, store.SkillInput{Name: "concise-answers", Description: "Use when the user wants short answers.",
		Category: "communication", Tags: []string{"concise"}, Body: "1. Answer first.", Source: "starter"}); err != nil {
		t.Fatal(err)
	}
	m, err := e.db.AddMemory(ctx, store.MemoryInput{Type: store.MemoryPreference, Topic: "editor", Content: "The user prefers vim."})
	if err != nil {
		t.Fatal(err)
	}
	base := time.Now().Add(-72 * time.Hour)
	var turns []*store.Turn
	for i := 0; i < 6; i++ {
		turns = append(turns, &store.Turn{SessionID: "sess-1", API: "openai", Model: "kimi-k2.5", Status: 200,
			Request: []byte(`{"model":"kimi-k2.5","messages":[{"role":"user","content":"hi"}]}`), ResponseText: "Hello!",
			LatencyMS: 812, TTFBMS: 140, CreatedAt: base.Add(time.Duration(i) * 12 * time.Hour),
			Injected: `["skill:concise-answers@1","memory:` + i64(m.ID) + `"]`, Client: "openclaw"})
	}
	if err := e.db.RecordTurns(ctx, turns); err != nil {
		t.Fatal(err)
	}
	for i, tr := range turns {
		if err := e.db.PutScore(ctx, store.Score{TurnID: tr.ID, Score: []int{1, -1, 0, 1, 1, 0}[i], Votes: []int{1, 1, -1},
			JudgeModel: "judge", Evidence: "next_turn", Reasons: []string{"helpful"}}); err != nil {
			t.Fatal(err)
		}
	}
}
