package calendar_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/metaclaw/metaclaw/idle"
	"github.com/metaclaw/metaclaw/idle/calendar"
	"github.com/metaclaw/metaclaw/idle/calendar/fakegoogle"
)

// meeting puts one busy period on the fake, from now+a to now+b.
func (e *env) meeting(a, b time.Duration) idle.Interval {
	now := e.clock.Now()
	span := iv(now.Add(a).UTC(), now.Add(b).UTC())
	e.g.SetBusy("primary", fakegoogle.Period{Start: span.Start, End: span.End})
	return span
}

func (e *env) busyNow(t *testing.T, c *calendar.Cache) ([]idle.Interval, error) {
	t.Helper()
	now := e.clock.Now()
	return c.Busy(t.Context(), now, now.Add(24*time.Hour))
}

func TestCacheBeforeConnect(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "")
	c := calendar.NewCache(e.client(), calendar.CacheOptions{})
	if _, err := e.busyNow(t, c); !errors.Is(err, calendar.ErrNoData) {
		t.Errorf("Busy before any refresh: %v, want ErrNoData", err)
	}
	if err := c.Refresh(t.Context()); !errors.Is(err, calendar.ErrNotConnected) {
		t.Errorf("Refresh without a token: %v", err)
	}
	st := c.Status()
	if st.Connected || st.LastError == "" || !st.LastRefresh.IsZero() || st.Mode != calendar.ModeFreeBusy {
		t.Errorf("status = %+v", st)
	}
}

// Busy answers from memory: with Google gone it still serves the last good
// data, and Status says what went wrong.
func TestCacheServesWhileGoogleFails(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "")
	client := e.client()
	e.connect(client)
	m := e.meeting(time.Hour, 2*time.Hour)
	c := calendar.NewCache(client, calendar.CacheOptions{})
	if err := c.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	refreshed := e.clock.Now()
	e.g.Close()
	e.clock.Advance(5 * time.Minute)
	if err := c.Refresh(t.Context()); err == nil {
		t.Fatal("Refresh succeeded with Google gone")
	}
	got, err := e.busyNow(t, c)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]idle.Interval{m}, got); d != "" {
		t.Errorf("busy (-want +got):\n%s", d)
	}
	now := e.clock.Now()
	if got, _ := c.Busy(t.Context(), now.Add(3*time.Hour), now.Add(4*time.Hour)); len(got) != 0 {
		t.Errorf("Busy outside the meeting = %v", got)
	}
	st := c.Status()
	if !st.Connected || st.LastError == "" || !st.LastRefresh.Equal(refreshed) || !st.LastAttempt.Equal(now) || st.Busy != 1 {
		t.Errorf("status = %+v", st)
	}
}

// Serve backs off exponentially on 5xx, honours Retry-After on 429,
// treats a dropped connection as transient, and goes back to the normal
// interval once Google answers.
func TestCacheServeBackoff(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "")
	client := e.client()
	e.connect(client)
	m := e.meeting(-30*time.Minute, 30*time.Minute)
	st := newStepper()
	c := calendar.NewCache(client, calendar.CacheOptions{
		Interval: 5 * time.Minute, MinBackoff: time.Second, MaxBackoff: time.Minute, After: st.After,
	})
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- c.Serve(ctx) }()

	steps := []struct {
		name     string
		fault    *fakegoogle.Fault
		min, max time.Duration
		failing  string
	}{
		{name: "first refresh", min: 5 * time.Minute, max: 5 * time.Minute},
		{name: "503", fault: &fakegoogle.Fault{Status: 503}, min: 500 * time.Millisecond, max: time.Second, failing: "503"},
		{name: "503 again", fault: &fakegoogle.Fault{Status: 503}, min: time.Second, max: 2 * time.Second, failing: "503"},
		{name: "dropped connection", fault: &fakegoogle.Fault{Drop: true}, min: 2 * time.Second, max: 4 * time.Second, failing: "EOF"},
		{name: "recovered", min: 5 * time.Minute, max: 5 * time.Minute},
		{name: "429 Retry-After 120", fault: &fakegoogle.Fault{Status: 429, RetryAfter: "120"}, min: 120 * time.Second, max: 120 * time.Second, failing: "429"},
		{name: "recovered again", min: 5 * time.Minute, max: 5 * time.Minute},
	}
	for i, s := range steps {
		if s.fault != nil {
			e.g.FailNext(*s.fault)
		}
		if i > 0 {
			st.fire <- time.Time{}
		}
		d := st.next(t)
		if d < s.min || d > s.max {
			t.Errorf("%s: waited %v, want within [%v, %v]", s.name, d, s.min, s.max)
		}
		status := c.Status()
		if got := status.LastError; (s.failing == "") != (got == "") || !strings.Contains(got, s.failing) {
			t.Errorf("%s: LastError = %q, want it to mention %q", s.name, got, s.failing)
		}
		if !status.NextRefresh.Equal(e.clock.Now().Add(d)) {
			t.Errorf("%s: NextRefresh = %v, want now+%v", s.name, status.NextRefresh, d)
		}
		if got, err := e.busyNow(t, c); err != nil || len(got) != 1 || got[0] != m {
			t.Errorf("%s: Busy = %v, %v; want the meeting served throughout", s.name, got, err)
		}
	}
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve returned %v, want nil on cancel", err)
		}
	case <-time.After(patience):
		t.Fatal("Serve did not return after cancel")
	}
}

// A revoked grant is reported as "reconnect needed", is not retried in a
// tight loop, keeps the last data; reconnecting and Poke bring it back.
func TestCacheReconnect(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "")
	client := e.client()
	e.connect(client)
	m := e.meeting(time.Hour, 2*time.Hour)
	st := newStepper()
	c := calendar.NewCache(client, calendar.CacheOptions{Interval: 5 * time.Minute, After: st.After})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go c.Serve(ctx) //nolint:errcheck // ends with the test
	st.next(t)

	e.g.RevokeAll()
	st.fire <- time.Time{}
	if d := st.next(t); d != 5*time.Minute {
		t.Errorf("wait after a revoked grant = %v, want the normal interval", d)
	}
	status := c.Status()
	if !status.ReconnectNeeded || status.Connected || !strings.Contains(status.LastError, "reconnect") {
		t.Errorf("status after revocation = %+v", status)
	}
	if got, _ := e.busyNow(t, c); len(got) != 1 || got[0] != m {
		t.Errorf("Busy after revocation = %v, want the last data", got)
	}

	e.connect(e.client()) // e.g. `metaclaw calendar connect` in another process
	c.Poke()
	if d := st.next(t); d != 5*time.Minute {
		t.Errorf("wait after reconnect = %v", d)
	}
	if status := c.Status(); status.ReconnectNeeded || !status.Connected || status.LastError != "" {
		t.Errorf("status after reconnect = %+v", status)
	}
}

func TestCacheForgetsOnDisconnect(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "")
	client := e.client()
	e.connect(client)
	e.meeting(time.Hour, 2*time.Hour)
	c := calendar.NewCache(client, calendar.CacheOptions{})
	if err := c.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := client.Disconnect(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := c.Refresh(t.Context()); !errors.Is(err, calendar.ErrNotConnected) {
		t.Errorf("Refresh after disconnect: %v", err)
	}
	if _, err := e.busyNow(t, c); !errors.Is(err, calendar.ErrNoData) {
		t.Errorf("Busy after disconnect: %v, want ErrNoData", err)
	}
	if c.Status().Connected {
		t.Error("Status says connected after disconnect")
	}
}
