package proxy_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// slowStore is a Recorder that takes its time, or fails.
type slowStore struct {
	delay  time.Duration
	fail   bool
	writes atomic.Int64
}

func (s *slowStore) RecordTurns(ctx context.Context, turns []*store.Turn) error {
	time.Sleep(s.delay)
	s.writes.Add(1)
	if s.fail {
		return errors.New("disk full")
	}
	return nil
}
func (s *slowStore) EndSession(context.Context, string, string, time.Time) (bool, error) {
	return false, nil
}
func (s *slowStore) IdleSessions(context.Context, time.Time) ([]string, error) { return nil, nil }

func TestSlowOrFailingStoreNeverDelaysResponses(t *testing.T) {
	t.Parallel()
	for _, st := range []*slowStore{{delay: 2 * time.Second}, {fail: true}} {
		e := newEnv(t, func(_ *config.Config, o *proxy.Options) { o.Recorder = st; o.RecordQueue = 2 })
		// More turns than a batch (64) and the queue hold, so a slow
		// store must drop some.
		for i := 0; i < 100; i++ {
			start := time.Now()
			status, b, _ := e.post("/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"x"}]}`)
			if status != 200 {
				t.Fatalf("status %d %s", status, b)
			}
			if d := time.Since(start); d > time.Second {
				t.Fatalf("a response waited %v for the store", d)
			}
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			s := e.srv.Stats()
			if st.fail && s.Failed > 0 || !st.fail && s.Dropped > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("stats never showed the trouble: %+v", s)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

func TestTurnsSurviveRestart(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.post("/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"remember me"}]}`, "X-Session-Id", "keep")
	e.turns(1)
	path := e.db.Path()
	e.stop()
	db, err := store.Open(path)
	must(t, err)
	defer db.Close()
	turns, err := db.SessionTurns(context.Background(), "keep")
	if err != nil || len(turns) != 1 || turns[0].ResponseText == "" {
		t.Fatalf("after restart: %+v, %v", turns, err)
	}
	_ = filepath.Base(path)
}

func TestProviderHeaders(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withConfig(func(c *config.Config) { must(t, c.Set("llm.provider", "openrouter")) }))
	e.post("/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"x"}]}`)
	h := e.up.Requests()[0].Header
	if h.Get("HTTP-Referer") == "" || h.Get("X-Title") != "MetaClaw" {
		t.Errorf("OpenRouter headers missing: %v", h)
	}
	resp, err := http.Get(e.url + "/healthz")
	must(t, err)
	resp.Body.Close()
}

// TestRecordedTurnsHoldNoCredentials: a configured key that a person
// pastes into a message reaches the upstream as sent, but the stored
// turn holds "[redacted]" in its place; the database file holds it
// nowhere.
func TestRecordedTurnsHoldNoCredentials(t *testing.T) {
	t.Parallel()
	const key = "sk-upstream-secret-key" // llm.api_key in newEnv
	e := newEnv(t, withConfig(func(c *config.Config) { must(t, c.Set("proxy.fallback_api_key", "fallback-secret-value")) }))
	status, _, _ := e.post("/v1/chat/completions",
		`{"model":"m","messages":[{"role":"user","content":"my key is `+key+` and fallback-secret-value, keep it"}]}`,
		"X-Session-Id", "secret")
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	if got := e.upstreamBodies("/v1/chat/completions"); len(got) != 1 || !strings.Contains(fmt.Sprint(got[0]), key) {
		t.Fatalf("the upstream did not get the message as sent: %v", got)
	}
	turns := e.turns(1)
	req := string(turns[0].Request)
	if strings.Contains(req, key) || strings.Contains(req, "fallback-secret-value") || !strings.Contains(req, "my key is [redacted] and [redacted], keep it") {
		t.Fatalf("stored request = %s", req)
	}
	path := e.db.Path()
	e.stop()
	for _, f := range []string{path, path + "-wal"} {
		if db, err := os.ReadFile(f); err == nil && bytes.Contains(db, []byte(key)) {
			t.Fatalf("%s holds the configured key", filepath.Base(f))
		}
	}
}
