package tinker_test

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/tinker"
	"github.com/metaclaw/metaclaw/app/learner/tinker/faketinker"
)

const baseModel = "Qwen/Qwen3-8B"

// clock is a fake clock whose Sleep records the wait and moves time on at
// once, so back-offs cost nothing and can be asserted.
type clock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
	onWait func(d time.Duration) // called from Sleep, e.g. to cancel a ctx
}

func newClock() *clock { return &clock{now: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	hook := c.onWait
	c.mu.Unlock()
	if hook != nil {
		hook(d)
	}
	time.Sleep(time.Millisecond) // let other goroutines run
	return ctx.Err()
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func (c *clock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

// env is a fake service and a started client against it.
type env struct {
	srv *faketinker.Server
	c   *tinker.Client
	clk *clock
	log *lockedWriter
}

// logs is what the client logged so far.
func (e *env) logs() string {
	e.log.mu.Lock()
	defer e.log.mu.Unlock()
	return e.log.w.String()
}

// newEnv starts a fake service (with fopts) and a client (tuned by mod).
func newEnv(t *testing.T, fopts faketinker.Options, mod func(*tinker.Options)) *env {
	t.Helper()
	if fopts.LongPoll == 0 {
		fopts.LongPoll = 20 * time.Millisecond
	}
	clk := newClock()
	fopts.Now = clk.Now
	srv := faketinker.New(fopts)
	t.Cleanup(srv.Close)
	e := &env{srv: srv, clk: clk, log: &lockedWriter{w: &bytes.Buffer{}}}
	opts := tinker.Options{BaseURL: srv.URL(), APIKey: srv.APIKey(), Sleep: e.clk.Sleep, Now: e.clk.Now,
		Rand: func() float64 { return 1 }, Logger: slog.New(slog.NewTextHandler(e.log, nil))}
	if mod != nil {
		mod(&opts)
	}
	c, err := tinker.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Start(context.Background()); err != nil {
		t.Fatalf("start: %v", err)
	}
	e.c = c
	return e
}

type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// seqIDs lists the seq_id of each request to endpoint, in arrival order.
func seqIDs(reqs []faketinker.Request) []int {
	var out []int
	for _, r := range reqs {
		out = append(out, r.SeqID)
	}
	return out
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}
