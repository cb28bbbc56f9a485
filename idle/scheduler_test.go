package idle

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// schedTestClock is a clock the test sets.
type schedTestClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *schedTestClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *schedTestClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// schedTestIdle is an idle source whose answer the test sets.
type schedTestIdle struct {
	mu    sync.Mutex
	d     time.Duration
	err   error
	calls int
}

func (s *schedTestIdle) Name() string { return "test-idle" }
func (s *schedTestIdle) Close() error { return nil }

func (s *schedTestIdle) Idle(context.Context) (time.Duration, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	return s.d, s.err
}

func (s *schedTestIdle) Set(d time.Duration, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d, s.err = d, err
}

func (s *schedTestIdle) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// schedTestBusy is a calendar whose busy times the test sets.
type schedTestBusy struct {
	mu    sync.Mutex
	ivs   []Interval
	err   error
	calls int
}

func (b *schedTestBusy) Busy(_ context.Context, from, to time.Time) ([]Interval, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.calls++
	if b.err != nil {
		return nil, b.err
	}
	var out []Interval
	for _, iv := range b.ivs {
		if iv.End.After(from) && iv.Start.Before(to) {
			out = append(out, iv)
		}
	}
	return out, nil
}

func (b *schedTestBusy) Set(ivs []Interval, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.ivs, b.err = ivs, err
}

func (b *schedTestBusy) Calls() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.calls
}

// schedTestLog collects log output safely across goroutines.
type schedTestLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *schedTestLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *schedTestLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// schedRig is a scheduler with fake clock, sources and pause switch.
type schedRig struct {
	s      *Scheduler
	clock  *schedTestClock
	idle   *schedTestIdle
	busy   *schedTestBusy
	log    *schedTestLog
	ticks  chan time.Time
	mu     sync.Mutex
	paused bool
}

func newSchedRig(t *testing.T, now time.Time) *schedRig {
	t.Helper()
	r := &schedRig{clock: &schedTestClock{t: now}, idle: &schedTestIdle{}, busy: &schedTestBusy{},
		log: &schedTestLog{}, ticks: make(chan time.Time)}
	r.s = NewScheduler(SchedulerOptions{
		Config: winTestConfig(t), Idle: r.idle, Busy: r.busy, Clock: r.clock,
		Paused: func() bool { r.mu.Lock(); defer r.mu.Unlock(); return r.paused },
		Logger: slog.New(slog.NewTextHandler(r.log, nil)),
		Ticker: func(time.Duration) (<-chan time.Time, func()) { return r.ticks, func() {} },
	})
	return r
}

func (r *schedRig) setPaused(p bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.paused = p
}

// schedSeen is what the tests compare of a transition.
type schedSeen struct {
	Opened bool
	Reason string
	Until  time.Time
	Was    string
	Detail string
	At     time.Time
}

func schedSummary(tr Transition) *schedSeen {
	return &schedSeen{Opened: tr.Opened, Reason: tr.Window.Reason, Until: tr.Window.Until,
		Was: tr.Prev.Reason, Detail: tr.Window.Detail, At: tr.At}
}

// schedPoll returns the transition waiting in ch, or nil.
func schedPoll(ch <-chan Transition) *schedSeen {
	select {
	case tr := <-ch:
		return schedSummary(tr)
	default:
		return nil
	}
}

// schedWait waits for a transition from a running Serve.
func schedWait(t *testing.T, ch <-chan Transition) *schedSeen {
	t.Helper()
	select {
	case tr := <-ch:
		return schedSummary(tr)
	case <-time.After(10 * time.Second):
		t.Fatal("no transition within 10s")
		return nil
	}
}

func TestSchedulerTransitionsInOrder(t *testing.T) {
	t.Parallel()
	at := winBerlin(t)
	r := newSchedRig(t, at(10, 12, 0))
	r.busy.Set([]Interval{{at(11, 14, 0), at(11, 15, 0)}}, nil)
	ch, cancel := r.s.Subscribe()
	defer cancel()
	steps := []struct {
		name   string
		now    time.Time
		idle   time.Duration
		paused bool
		want   *schedSeen
	}{
		{name: "working at noon", now: at(10, 12, 0), idle: time.Second},
		{name: "still working", now: at(10, 12, 5), idle: 2 * time.Second},
		{name: "idle reaches threshold", now: at(10, 12, 35), idle: 30 * time.Minute,
			want: &schedSeen{Opened: true, Reason: ReasonIdle, Detail: "keyboard idle for 30m (test-idle)", At: at(10, 12, 35)}},
		{name: "idle goes on: no duplicate", now: at(10, 12, 45), idle: 40 * time.Minute},
		{name: "input returns", now: at(10, 12, 46), idle: time.Second,
			want: &schedSeen{Was: ReasonIdle, Detail: "next: sleep at 23:00", At: at(10, 12, 46)}},
		{name: "shut again: no duplicate", now: at(10, 13, 0), idle: time.Second},
		{name: "sleep starts", now: at(10, 23, 0), idle: time.Second,
			want: &schedSeen{Opened: true, Reason: ReasonSleep, Until: at(11, 7, 0), Detail: "sleep hours until 07:00", At: at(10, 23, 0)}},
		{name: "asleep: no duplicate", now: at(11, 3, 0), idle: 4 * time.Hour},
		{name: "idle outlasts sleep: reason changes", now: at(11, 6, 50), idle: 5 * time.Hour,
			want: &schedSeen{Opened: true, Reason: ReasonIdle, Was: ReasonSleep, Detail: "keyboard idle for 5h (test-idle)", At: at(11, 6, 50)}},
		{name: "morning input", now: at(11, 7, 5), idle: time.Second,
			want: &schedSeen{Was: ReasonIdle, Detail: "next: meeting at 14:00", At: at(11, 7, 5)}},
		{name: "meeting starts", now: at(11, 14, 0), idle: time.Second,
			want: &schedSeen{Opened: true, Reason: ReasonMeeting, Until: at(11, 15, 0), Detail: "in a meeting until 15:00", At: at(11, 14, 0)}},
		{name: "paused mid-meeting", now: at(11, 14, 10), idle: time.Second, paused: true,
			want: &schedSeen{Was: ReasonMeeting, Detail: "learning paused", At: at(11, 14, 10)}},
		{name: "still paused: no duplicate", now: at(11, 14, 20), idle: time.Hour, paused: true},
		{name: "resumed with less than the minimum left", now: at(11, 14, 50), idle: time.Second},
	}
	for _, st := range steps {
		r.clock.Set(st.now)
		r.idle.Set(st.idle, nil)
		r.setPaused(st.paused)
		r.s.Evaluate(context.Background())
		if diff := cmp.Diff(st.want, schedPoll(ch)); diff != "" {
			t.Errorf("%s: transition (-want +got):\n%s", st.name, diff)
		}
	}
	logs := r.log.String()
	for _, want := range []string{"training window opened", "training window changed", "training window closed", "reason=meeting"} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
}

func TestSchedulerSlowSubscriberDoesNotBlock(t *testing.T) {
	t.Parallel()
	at := winBerlin(t)
	r := newSchedRig(t, at(10, 12, 0))
	slow, cancelSlow := r.s.Subscribe() // never read until the end
	defer cancelSlow()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 101 {
			r.clock.Set(at(10, 12, 0).Add(time.Duration(i) * time.Minute))
			if i%2 == 0 {
				r.idle.Set(time.Hour, nil)
			} else {
				r.idle.Set(0, nil)
			}
			r.s.Evaluate(context.Background())
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("evaluations blocked on a subscriber that does not read")
	}
	// Only the latest state waits, and it is the last one: open (i = 100).
	want := &schedSeen{Opened: true, Reason: ReasonIdle, Detail: "keyboard idle for 1h (test-idle)", At: at(10, 13, 40)}
	if diff := cmp.Diff(want, schedPoll(slow)); diff != "" {
		t.Errorf("latest transition (-want +got):\n%s", diff)
	}
	if got := schedPoll(slow); got != nil {
		t.Errorf("a second transition waited: %+v", got)
	}
	// A late subscriber finds the latest state at once.
	late, cancelLate := r.s.Subscribe()
	defer cancelLate()
	if diff := cmp.Diff(want, schedPoll(late)); diff != "" {
		t.Errorf("late subscriber (-want +got):\n%s", diff)
	}
}

func TestSchedulerUnsubscribeCloses(t *testing.T) {
	t.Parallel()
	r := newSchedRig(t, winBerlin(t)(10, 12, 0))
	ch, cancel := r.s.Subscribe()
	cancel()
	cancel() // idempotent
	if _, ok := <-ch; ok {
		t.Error("channel still open after cancel")
	}
	r.idle.Set(time.Hour, nil)
	r.s.Evaluate(context.Background()) // must not send on the closed channel
}

func TestSchedulerServeClosesIdleOnFirstPoll(t *testing.T) {
	t.Parallel()
	at := winBerlin(t)
	r := newSchedRig(t, at(10, 12, 0))
	r.idle.Set(31*time.Minute, nil)
	ch, cancel := r.s.Subscribe()
	defer cancel()
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- r.s.Serve(ctx) }()

	want := &schedSeen{Opened: true, Reason: ReasonIdle, Detail: "keyboard idle for 31m (test-idle)", At: at(10, 12, 0)}
	if diff := cmp.Diff(want, schedWait(t, ch)); diff != "" {
		t.Errorf("on start (-want +got):\n%s", diff)
	}
	if err := r.s.Serve(ctx); !errors.Is(err, ErrSchedulerServing) {
		t.Errorf("second Serve = %v, want ErrSchedulerServing", err)
	}

	r.clock.Set(at(10, 12, 0).Add(5 * time.Second))
	r.idle.Set(time.Second, nil) // the person is back
	r.ticks <- r.clock.Now()
	want = &schedSeen{Was: ReasonIdle, Detail: "next: sleep at 23:00", At: at(10, 12, 0).Add(5 * time.Second)}
	if diff := cmp.Diff(want, schedWait(t, ch)); diff != "" {
		t.Errorf("first poll after input (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Window{Detail: "next: sleep at 23:00"}, r.s.Status()); diff != "" {
		t.Errorf("Status (-want +got):\n%s", diff)
	}

	// A config change is applied at once, without waiting for a tick.
	cfg := r.s.Config()
	cfg.SleepStart = ClockTime{12, 0}
	r.s.UpdateConfig(cfg)
	want = &schedSeen{Opened: true, Reason: ReasonSleep, Until: at(11, 7, 0), Detail: "sleep hours until 07:00", At: at(10, 12, 0).Add(5 * time.Second)}
	if diff := cmp.Diff(want, schedWait(t, ch)); diff != "" {
		t.Errorf("after UpdateConfig (-want +got):\n%s", diff)
	}

	stop()
	if err := <-served; err != nil {
		t.Errorf("Serve = %v, want nil", err)
	}
}

func TestSchedulerServeAsksBusyEveryBusyPoll(t *testing.T) {
	t.Parallel()
	at := winBerlin(t)
	r := newSchedRig(t, at(10, 12, 0))
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go func() { _ = r.s.Serve(ctx) }()
	// A send returns once Serve is back in its loop, so after the second
	// of two ticks at the same time the first tick's step has finished.
	tick := func(d time.Duration) {
		r.clock.Set(at(10, 12, 0).Add(d))
		r.ticks <- r.clock.Now()
		r.ticks <- r.clock.Now()
	}
	r.ticks <- r.clock.Now() // Serve has made its first step at 12:00
	for d := 5 * time.Second; d < time.Minute; d += 5 * time.Second {
		tick(d)
	}
	if got := r.busy.Calls(); got != 1 {
		t.Errorf("busy asked %d times in the first 55s, want 1 (at start)", got)
	}
	if got := r.idle.Calls(); got < 22 {
		t.Errorf("idle asked %d times, want one per tick", got)
	}
	tick(time.Minute)
	if got := r.busy.Calls(); got != 2 {
		t.Errorf("busy asked %d times after a minute, want 2", got)
	}
}

func TestSchedulerStatus(t *testing.T) {
	t.Parallel()
	at := winBerlin(t)
	r := newSchedRig(t, at(11, 2, 0))
	if diff := cmp.Diff(Window{Detail: "not evaluated yet"}, r.s.Status()); diff != "" {
		t.Errorf("Status before evaluation (-want +got):\n%s", diff)
	}
	got := r.s.Evaluate(context.Background())
	want := Window{Open: true, Reason: ReasonSleep, Since: at(10, 23, 0), Until: at(11, 7, 0), Detail: "sleep hours until 07:00"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Evaluate (-want +got):\n%s", diff)
	}
	calls := r.idle.Calls()
	r.clock.Set(at(11, 8, 0)) // Status answers from the last evaluation
	if diff := cmp.Diff(want, r.s.Status()); diff != "" {
		t.Errorf("Status (-want +got):\n%s", diff)
	}
	if r.idle.Calls() != calls {
		t.Error("Status asked the idle source")
	}
}

func TestSchedulerFailingSources(t *testing.T) {
	t.Parallel()
	at := winBerlin(t)
	r := newSchedRig(t, at(10, 14, 0))
	r.idle.Set(0, errors.New("display gone"))
	r.busy.Set([]Interval{{at(10, 14, 0), at(10, 15, 0)}}, errors.New("token revoked"))
	for range 3 {
		got := r.s.Evaluate(context.Background())
		want := Window{Detail: "keyboard idle unknown (test-idle: display gone); next: sleep at 23:00"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Evaluate (-want +got):\n%s", diff)
		}
	}
	logs := r.log.String()
	for _, want := range []string{"keyboard idle source failed", "calendar busy times failed"} {
		if n := strings.Count(logs, want); n != 1 {
			t.Errorf("log has %q %d times, want once:\n%s", want, n, logs)
		}
	}
	r.idle.Set(0, nil)
	r.busy.Set([]Interval{{at(10, 14, 0), at(10, 15, 0)}}, nil)
	got := r.s.Evaluate(context.Background())
	if !got.Open || got.Reason != ReasonMeeting {
		t.Errorf("after recovery: %+v, want a meeting window", got)
	}
	if logs := r.log.String(); !strings.Contains(logs, "works again") {
		t.Errorf("recovery not logged:\n%s", logs)
	}
}

func TestSchedulerNilSourcesAndNextWindow(t *testing.T) {
	t.Parallel()
	at := winBerlin(t)
	clock := &schedTestClock{t: at(10, 12, 0)}
	s := NewScheduler(SchedulerOptions{Config: winTestConfig(t), Clock: clock})
	got := s.Evaluate(context.Background())
	if diff := cmp.Diff(Window{Detail: "no keyboard idle signal; next: sleep at 23:00"}, got); diff != "" {
		t.Errorf("Evaluate (-want +got):\n%s", diff)
	}
	want := Window{Reason: ReasonSleep, Since: at(10, 23, 0), Until: at(11, 7, 0), Detail: "sleep hours from 23:00 until 07:00"}
	if diff := cmp.Diff(want, s.NextWindow(context.Background())); diff != "" {
		t.Errorf("NextWindow (-want +got):\n%s", diff)
	}

	r := newSchedRig(t, at(10, 12, 0))
	r.busy.Set([]Interval{{at(10, 13, 0), at(10, 14, 0)}}, nil)
	want = Window{Reason: ReasonMeeting, Since: at(10, 13, 0), Until: at(10, 14, 0), Detail: "a meeting from 13:00 until 14:00"}
	if diff := cmp.Diff(want, r.s.NextWindow(context.Background())); diff != "" {
		t.Errorf("NextWindow with a meeting (-want +got):\n%s", diff)
	}
}
