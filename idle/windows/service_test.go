package windows

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/idle"
	"github.com/metaclaw/metaclaw/idle/calendar"
	"github.com/metaclaw/metaclaw/idle/calendar/fakegoogle"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
	"github.com/metaclaw/metaclaw/store/testutil"
)

// testIdle is a keyboard idle source whose answer the test sets.
type testIdle struct {
	mu sync.Mutex // guards d
	d  time.Duration
}

func (s *testIdle) Name() string { return "test-idle" }
func (s *testIdle) Close() error { return nil }
func (s *testIdle) Idle(context.Context) (time.Duration, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.d, nil
}
func (s *testIdle) set(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = d
}

// testClock is a clock the test sets.
type testClock struct {
	mu sync.Mutex // guards t
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}
func (c *testClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// env is a running Service over a real database.
type env struct {
	svc    *Service
	db     *store.DB
	home   string
	paused atomic.Bool
}

// start saves settings (over mode skills_only) in a new database and runs
// a Service on it with the given test parts until the test ends.
func start(t *testing.T, settings map[string]string, opts Options) *env {
	t.Helper()
	e := &env{home: t.TempDir()}
	db, err := store.Open(filepath.Join(e.home, "metaclaw.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	set := map[string]string{"mode": config.ModeSkillsOnly}
	for k, v := range settings {
		set[k] = v
	}
	if _, err := config.Save(context.Background(), db, set); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.Load(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	e.db = db
	opts.DB, opts.Home, opts.Paused = db, e.home, e.paused.Load
	opts.Config = func() config.Config { return cfg }
	ctx, cancel := context.WithCancel(context.Background())
	e.svc = New(ctx, opts)
	done := make(chan error, 1)
	go func() { done <- e.svc.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return e
}

// next returns the next transition.
func next(t *testing.T, ch <-chan idle.Transition) idle.Transition {
	t.Helper()
	select {
	case tr := <-ch:
		return tr
	case <-time.After(testutil.Patience):
		t.Fatal("no transition published")
		return idle.Transition{}
	}
}

// recorded waits until the state recorded for the CLI satisfies ok.
func recorded(t *testing.T, e *env, what string, ok func(State) bool) State {
	t.Helper()
	var st State
	testutil.Eventually(t, what, func() bool {
		var found bool
		st, found, _ = ReadState(context.Background(), e.db)
		return found && ok(st)
	})
	return st
}

// Keyboard idle opens a window; the transition reaches a subscriber and
// the meta table; pausing learning closes it at once (the app wakes the
// service), resuming reopens it.
func TestServicePublishesIdleTransitions(t *testing.T) {
	t.Parallel()
	src := &testIdle{}
	e := start(t, map[string]string{"scheduler.enabled": "true", "scheduler.sleep_start": "00:00",
		"scheduler.sleep_end": "00:00", "scheduler.idle_threshold_minutes": "5"}, Options{Idle: src})
	if e.svc.Scheduler() == nil {
		t.Fatal("scheduler.enabled: no scheduler")
	}
	ch, unsubscribe := e.svc.Subscribe()
	defer unsubscribe()
	st := recorded(t, e, "shut state recorded", func(st State) bool { return st.Enabled })
	if st.Open || st.IdleSource != "test-idle" || st.Calendar != "off" {
		t.Errorf("start: %+v", st)
	}

	src.set(7 * time.Minute)
	e.svc.Wake()
	tr := next(t, ch)
	if !tr.Opened || tr.Window.Reason != idle.ReasonIdle || !strings.Contains(tr.Window.Detail, "keyboard idle for 7m (test-idle)") {
		t.Fatalf("idle: %+v", tr)
	}
	recorded(t, e, "open idle window recorded", func(st State) bool { return st.Open && st.Reason == idle.ReasonIdle })

	e.paused.Store(true)
	e.svc.Wake()
	tr = next(t, ch)
	if tr.Opened || tr.Window.Detail != "learning paused" || tr.Prev.Reason != idle.ReasonIdle {
		t.Fatalf("pause: %+v", tr)
	}
	st = recorded(t, e, "paused state recorded", func(st State) bool { return st.Paused && !st.Open })
	if st.Summary() != "shut" {
		t.Errorf("paused summary %q", st.Summary())
	}
	e.paused.Store(false)
	e.svc.Wake()
	if tr = next(t, ch); !tr.Opened {
		t.Fatalf("resume: %+v", tr)
	}
}

// Sleep hours on an injected clock: the window is open at start, closes
// when the clock passes its end, and a sleep-hours change saved in the
// database reaches the running scheduler.
func TestServiceSleepWindowAndLiveSettings(t *testing.T) {
	t.Parallel()
	now := time.Now()
	clk := &testClock{t: time.Date(now.Year(), now.Month(), now.Day(), 23, 30, 0, 0, time.Local)}
	e := start(t, map[string]string{"scheduler.enabled": "true", "scheduler.sleep_start": "23:00",
		"scheduler.sleep_end": "07:00"}, Options{Idle: &testIdle{}, Clock: clk, StateEvery: 20 * time.Millisecond})
	ch, unsubscribe := e.svc.Subscribe()
	defer unsubscribe()
	tr := next(t, ch) // published by the first evaluation, waiting for a new subscriber
	if !tr.Opened || tr.Window.Reason != idle.ReasonSleep || tr.Window.Until.Hour() != 7 {
		t.Fatalf("at 23:30: %+v", tr)
	}
	st := recorded(t, e, "sleep window recorded", func(st State) bool { return st.Open })
	if st.Summary() != "open (sleep) until 07:00" {
		t.Errorf("summary %q", st.Summary())
	}

	clk.set(clk.Now().Add(8 * time.Hour)) // 07:30
	e.svc.Wake()
	if tr = next(t, ch); tr.Opened || tr.Prev.Reason != idle.ReasonSleep {
		t.Fatalf("at 07:30: %+v", tr)
	}

	if _, err := config.Save(context.Background(), e.db, map[string]string{"scheduler.sleep_end": "08:00"}); err != nil {
		t.Fatal(err)
	}
	if tr = next(t, ch); !tr.Opened || tr.Window.Until.Hour() != 8 {
		t.Fatalf("after sleep_end 08:00: %+v", tr)
	}
}

// Without madmax or scheduler.enabled there is no scheduler, and the
// recorded state says why.
func TestServiceOffInSkillsOnly(t *testing.T) {
	t.Parallel()
	e := start(t, nil, Options{})
	if e.svc.Scheduler() != nil {
		t.Fatal("skills_only: a scheduler runs")
	}
	if ch, _ := e.svc.Subscribe(); ch != nil {
		t.Error("skills_only: a transition channel")
	}
	st := recorded(t, e, "off state recorded", func(State) bool { return true })
	if st.Enabled || st.Summary() != "off" || !strings.Contains(st.Detail, "training windows are off: mode skills_only") {
		t.Errorf("off: %+v", st)
	}
}

// The web page's connect flow through the service against a fake Google:
// the token is saved 0600, the calendar signal reads a meeting and opens
// a window, and disconnecting revokes the grant and deletes the token.
func TestCalendarConnectOpensMeetingWindow(t *testing.T) {
	t.Parallel()
	g := fakegoogle.New()
	t.Cleanup(g.Close)
	secrets := filepath.Join(t.TempDir(), "client_secret.json")
	if err := os.WriteFile(secrets, g.ClientSecrets(), 0o600); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	g.SetBusy("primary", fakegoogle.Period{Start: now.Add(-10 * time.Minute), End: now.Add(50 * time.Minute)})
	e := start(t, map[string]string{"scheduler.enabled": "true", "scheduler.sleep_start": "00:00",
		"scheduler.sleep_end": "00:00", "scheduler.calendar.enabled": "true", "scheduler.calendar.credentials_path": secrets},
		Options{Idle: &testIdle{}, Endpoints: calendar.Endpoints{RevokeURL: g.RevokeURL(), APIBase: g.APIBase()}})
	if st := e.svc.Status(); st.CalendarConnected || !strings.HasPrefix(st.Calendar, "not connected") {
		t.Fatalf("before connect: %q", st.Calendar)
	}
	testutil.Eventually(t, "Serve to run", e.svc.cal.serving)
	u, err := e.svc.ConnectCalendar(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(u) // the browser: consent, then back to the service's loopback listener
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("callback page: %d", resp.StatusCode)
	}
	token := filepath.Join(e.home, TokenName)
	if fi, err := os.Stat(token); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi, err)
	}
	testutil.Eventually(t, "meeting window", func() bool {
		w := e.svc.Scheduler().Evaluate(context.Background()) // asks the calendar signal now
		return w.Open && w.Reason == idle.ReasonMeeting
	})
	if st := e.svc.Status(); !st.CalendarConnected {
		t.Errorf("after connect: %q", st.Calendar)
	}
	if err := e.svc.DisconnectCalendar(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(token); !os.IsNotExist(err) || g.Stats().Revocations != 1 {
		t.Errorf("disconnect: token err %v, revocations %d", err, g.Stats().Revocations)
	}
}

// ConnectCalendar refuses while Serve does not run, instead of starting a
// flow nothing would finish.
func TestConnectCalendarNeedsServe(t *testing.T) {
	t.Parallel()
	db, err := store.Open(filepath.Join(t.TempDir(), "metaclaw.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cfg := config.Defaults()
	cfg.Mode = config.ModeSkillsOnly
	svc := New(context.Background(), Options{DB: db, Config: func() config.Config { return cfg },
		Paused: func() bool { return false }})
	if _, err := svc.ConnectCalendar(context.Background()); err == nil || !strings.Contains(err.Error(), "not running") {
		t.Errorf("before Serve: %v", err)
	}
}
