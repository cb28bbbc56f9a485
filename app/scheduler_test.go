package app

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/idle"
	"github.com/metaclaw/metaclaw/idle/calendar"
	"github.com/metaclaw/metaclaw/idle/calendar/fakegoogle"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// patience bounds waits on the app's goroutines so a bug fails the test
// instead of hanging it. It is never an assertion about speed.
const patience = 20 * time.Second

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

// schedClock is a clock the test sets.
type schedClock struct {
	mu sync.Mutex // guards t
	t  time.Time
}

func (c *schedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}
func (c *schedClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// newSchedApp starts an app with the given settings and test hooks.
func newSchedApp(t *testing.T, settings map[string]string, hooks schedHooks) *App {
	t.Helper()
	home := t.TempDir()
	db, err := store.Open(filepath.Join(home, "metaclaw.db"))
	if err != nil {
		t.Fatal(err)
	}
	set := map[string]string{"mode": "skills_only", "proxy.port": strconv.Itoa(freePort(t)), "web.port": strconv.Itoa(freePort(t))}
	for k, v := range settings {
		set[k] = v
	}
	_, err = config.Save(context.Background(), db, set)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(Options{Home: home, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	a.sched.hooks = hooks
	if err := a.Start(context.Background()); err != nil {
		a.Stop()
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Stop() })
	// Let the proxy take its listener before any Stop: a fiber shutdown
	// that comes first does not stop it.
	waitUntil(t, "the proxy answers", func() bool {
		resp, err := http.Get(a.ProxyURL() + "/healthz")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil
	})
	return a
}

// next returns the next transition.
func next(t *testing.T, ch <-chan idle.Transition) idle.Transition {
	t.Helper()
	select {
	case tr := <-ch:
		return tr
	case <-time.After(patience):
		t.Fatal("no transition published")
		return idle.Transition{}
	}
}

// recorded waits until the state recorded for the CLI satisfies ok.
func recorded(t *testing.T, a *App, what string, ok func(SchedulerState) bool) SchedulerState {
	t.Helper()
	var st SchedulerState
	waitUntil(t, what, func() bool {
		var found bool
		st, found, _ = ReadSchedulerState(context.Background(), a.DB())
		return found && ok(st)
	})
	return st
}

// Keyboard idle opens a window; the transition reaches a subscriber and
// the meta table; pausing learning closes it at once, resuming reopens it.
func TestSchedulerPublishesIdleTransitions(t *testing.T) {
	src := &testIdle{}
	a := newSchedApp(t, map[string]string{"scheduler.enabled": "true", "scheduler.sleep_start": "00:00",
		"scheduler.sleep_end": "00:00", "scheduler.idle_threshold_minutes": "5"}, schedHooks{idle: src})
	if a.Scheduler() == nil {
		t.Fatal("scheduler.enabled: no scheduler")
	}
	ch, unsubscribe := a.SubscribeWindows()
	defer unsubscribe()
	st := recorded(t, a, "shut state recorded", func(st SchedulerState) bool { return st.Enabled })
	if st.Open || st.IdleSource != "test-idle" || st.Calendar != "off" {
		t.Errorf("start: %+v", st)
	}

	src.set(7 * time.Minute)
	a.Scheduler().Wake()
	tr := next(t, ch)
	if !tr.Opened || tr.Window.Reason != idle.ReasonIdle || !strings.Contains(tr.Window.Detail, "keyboard idle for 7m (test-idle)") {
		t.Fatalf("idle: %+v", tr)
	}
	recorded(t, a, "open idle window recorded", func(st SchedulerState) bool { return st.Open && st.Reason == idle.ReasonIdle })

	if err := a.SetPaused(true); err != nil {
		t.Fatal(err)
	}
	tr = next(t, ch)
	if tr.Opened || tr.Window.Detail != "learning paused" || tr.Prev.Reason != idle.ReasonIdle {
		t.Fatalf("pause: %+v", tr)
	}
	st = recorded(t, a, "paused state recorded", func(st SchedulerState) bool { return st.Paused && !st.Open })
	if st.Summary() != "shut" {
		t.Errorf("paused summary %q", st.Summary())
	}
	if err := a.SetPaused(false); err != nil {
		t.Fatal(err)
	}
	if tr = next(t, ch); !tr.Opened {
		t.Fatalf("resume: %+v", tr)
	}
}

// Sleep hours on an injected clock: the window is open at start, closes
// when the clock passes its end, and a sleep-hours change saved in the
// database reaches the running scheduler.
func TestSchedulerSleepWindowAndLiveSettings(t *testing.T) {
	now := time.Now()
	clk := &schedClock{t: time.Date(now.Year(), now.Month(), now.Day(), 23, 30, 0, 0, time.Local)}
	a := newSchedApp(t, map[string]string{"scheduler.enabled": "true", "scheduler.sleep_start": "23:00",
		"scheduler.sleep_end": "07:00"}, schedHooks{idle: &testIdle{}, clock: clk, every: 20 * time.Millisecond})
	ch, unsubscribe := a.SubscribeWindows()
	defer unsubscribe()
	tr := next(t, ch) // published by the first evaluation, waiting for a new subscriber
	if !tr.Opened || tr.Window.Reason != idle.ReasonSleep || tr.Window.Until.Hour() != 7 {
		t.Fatalf("at 23:30: %+v", tr)
	}
	st := recorded(t, a, "sleep window recorded", func(st SchedulerState) bool { return st.Open })
	if st.Summary() != "open (sleep) until 07:00" {
		t.Errorf("summary %q", st.Summary())
	}

	clk.set(clk.Now().Add(8 * time.Hour)) // 07:30
	a.Scheduler().Wake()
	if tr = next(t, ch); tr.Opened || tr.Prev.Reason != idle.ReasonSleep {
		t.Fatalf("at 07:30: %+v", tr)
	}

	if _, err := config.Save(context.Background(), a.DB(), map[string]string{"scheduler.sleep_end": "08:00"}); err != nil {
		t.Fatal(err)
	}
	if tr = next(t, ch); !tr.Opened || tr.Window.Until.Hour() != 8 {
		t.Fatalf("after sleep_end 08:00: %+v", tr)
	}
}

// Without madmax or scheduler.enabled there is no scheduler, and the
// recorded state says why.
func TestSchedulerOffInSkillsOnly(t *testing.T) {
	a := newSchedApp(t, nil, schedHooks{})
	if a.Scheduler() != nil {
		t.Fatal("skills_only: a scheduler runs")
	}
	if ch, _ := a.SubscribeWindows(); ch != nil {
		t.Error("skills_only: a transition channel")
	}
	st := recorded(t, a, "off state recorded", func(SchedulerState) bool { return true })
	if st.Enabled || st.Summary() != "off" || !strings.Contains(st.Detail, "training windows are off: mode skills_only") {
		t.Errorf("off: %+v", st)
	}
}

// The web page's connect flow through the app against a fake Google: the
// token is saved 0600, the calendar signal reads a meeting and opens a
// window, and disconnecting revokes the grant and deletes the token.
func TestCalendarConnectOpensMeetingWindow(t *testing.T) {
	g := fakegoogle.New()
	t.Cleanup(g.Close)
	secrets := filepath.Join(t.TempDir(), "client_secret.json")
	if err := os.WriteFile(secrets, g.ClientSecrets(), 0o600); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	g.SetBusy("primary", fakegoogle.Period{Start: now.Add(-10 * time.Minute), End: now.Add(50 * time.Minute)})
	a := newSchedApp(t, map[string]string{"scheduler.enabled": "true", "scheduler.sleep_start": "00:00",
		"scheduler.sleep_end": "00:00", "scheduler.calendar.enabled": "true", "scheduler.calendar.credentials_path": secrets},
		schedHooks{idle: &testIdle{}, endpoints: calendar.Endpoints{RevokeURL: g.RevokeURL(), APIBase: g.APIBase()}})
	if st := a.SchedulerStatus(); st.CalendarConnected || !strings.HasPrefix(st.Calendar, "not connected") {
		t.Fatalf("before connect: %q", st.Calendar)
	}
	u, err := a.ConnectCalendar(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(u) // the browser: consent, then back to the app's loopback listener
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("callback page: %d", resp.StatusCode)
	}
	token := filepath.Join(a.opts.Home, CalendarTokenName)
	if fi, err := os.Stat(token); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi, err)
	}
	waitUntil(t, "meeting window", func() bool {
		w := a.Scheduler().Evaluate(context.Background()) // asks the calendar signal now
		return w.Open && w.Reason == idle.ReasonMeeting
	})
	if st := a.SchedulerStatus(); !st.CalendarConnected {
		t.Errorf("after connect: %q", st.Calendar)
	}
	if err := a.DisconnectCalendar(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(token); !os.IsNotExist(err) || g.Stats().Revocations != 1 {
		t.Errorf("disconnect: token err %v, revocations %d", err, g.Stats().Revocations)
	}
}
