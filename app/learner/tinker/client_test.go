package tinker_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/metaclaw/metaclaw/app/learner/tinker"
	"github.com/metaclaw/metaclaw/app/learner/tinker/faketinker"
	"github.com/metaclaw/metaclaw/store/testutil"
)

func TestResolveBackendAndDefaultBaseURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, backend, key, baseURL string
		wantBackend, wantURL        string
	}{
		{"auto plain key", "auto", "tml-abc", "", "tinker", tinker.TinkerBaseURL},
		{"empty means auto", "", "tml-abc", "", "tinker", tinker.TinkerBaseURL},
		{"auto mint key", "auto", "sk-mint-123", "", "mint", tinker.MinTBaseURL},
		{"auto mint url", "auto", "sk-abc", "https://mint.macaron.xin/", "mint", tinker.TinkerBaseURL},
		{"auto weaver url", "auto", "sk-abc", "https://weaver-console.nex-agi.cn", "weaver", tinker.TinkerBaseURL},
		{"explicit mint", "MinT", "sk-abc", "", "mint", tinker.MinTBaseURL},
		{"explicit weaver", "weaver", "sk-abc", "", "weaver", tinker.WeaverBaseURL},
		{"explicit tinker wins over key", "tinker", "sk-mint-1", "", "tinker", tinker.TinkerBaseURL},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := tinker.ResolveBackend(tc.backend, tc.key, tc.baseURL); got != tc.wantBackend {
				t.Errorf("ResolveBackend = %q, want %q", got, tc.wantBackend)
			}
			if got := tinker.DefaultBaseURL(tc.backend, tc.key); got != tc.wantURL {
				t.Errorf("DefaultBaseURL = %q, want %q", got, tc.wantURL)
			}
		})
	}
}

// TestStartSession checks client/config flags (unknown ones ignored),
// create_session, the headers, and a base URL with a path prefix.
func TestStartSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t, faketinker.Options{PathPrefix: "/train", Flags: map[string]any{
		"fwdbwd_max_chunk_len": 7, "sample_max_concurrent_requests": 3, "a_future_flag": map[string]any{"x": 1}}}, nil)
	f := e.c.Flags()
	if f.FwdBwdMaxChunkLen != 7 || f.SampleMaxConcurrentRequests != 3 || f.FwdBwdMaxChunkBytes != 5000000 {
		t.Errorf("flags = %+v", f)
	}
	sess, found := e.srv.Session(e.c.SessionID())
	if !found {
		t.Fatalf("session %q unknown to the service", e.c.SessionID())
	}
	if diff := cmp.Diff([]string{"metaclaw"}, sess.Tags); diff != "" || sess.SDKVersion != tinker.DefaultSDKVersion {
		t.Errorf("session tags (-want +got):\n%s sdk %q", diff, sess.SDKVersion)
	}
	for _, r := range e.srv.Requests() {
		if !strings.Contains(r.UserAgent, "MetaClaw") {
			t.Errorf("%s: User-Agent %q does not name MetaClaw", r.Endpoint, r.UserAgent)
		}
		if r.IdempotencyKey == "" {
			t.Errorf("%s: no X-Idempotency-Key", r.Endpoint)
		}
	}
	if err := e.c.Healthz(ctxT(t)); err != nil {
		t.Errorf("healthz: %v", err)
	}
	caps, err := e.c.GetServerCapabilities(ctxT(t))
	if err != nil || len(caps.SupportedModels) == 0 || caps.SupportedModels[0].ModelName == "" {
		t.Errorf("capabilities = %+v, %v", caps, err)
	}
}

func TestFatalErrorsNameTheEndpointNotTheKey(t *testing.T) {
	t.Parallel()
	srv := faketinker.New(faketinker.Options{APIKey: "tml-the-right-key"})
	t.Cleanup(srv.Close)
	tests := []struct {
		name, baseURL, key string
		status             int
		endpoint           string
	}{
		{"wrong key", srv.URL(), "tml-secret-wrong-key", http.StatusUnauthorized, "client/config"},
		{"not a tinker service", srv.URL() + "/elsewhere", "tml-the-right-key", http.StatusNotFound, "create_session"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clk := newClock()
			c, err := tinker.New(tinker.Options{BaseURL: tc.baseURL, APIKey: tc.key, Sleep: clk.Sleep, Now: clk.Now})
			if err != nil {
				t.Fatal(err)
			}
			err = c.Start(ctxT(t))
			var ae *tinker.APIError
			if !errors.As(err, &ae) || ae.Status != tc.status || !ae.Fatal() || !tinker.IsFatal(err) {
				t.Fatalf("start: %v, want a fatal %d", err, tc.status)
			}
			if !strings.Contains(err.Error(), tc.endpoint) || strings.Contains(err.Error(), tc.key) {
				t.Errorf("error %q must name %s and not contain the key", err, tc.endpoint)
			}
			if len(clk.Sleeps()) != 0 {
				t.Errorf("a fatal status was retried: sleeps %v", clk.Sleeps())
			}
		})
	}
}

func TestNewChecksOptions(t *testing.T) {
	t.Parallel()
	if _, err := tinker.New(tinker.Options{}); err == nil {
		t.Error("no key: want an error")
	}
	if _, err := tinker.New(tinker.Options{APIKey: "k", BaseURL: "ftp://x"}); err == nil {
		t.Error("ftp base url: want an error")
	}
	c, err := tinker.New(tinker.Options{APIKey: "sk-mint-1"})
	if err != nil {
		t.Fatal(err)
	}
	if c.BaseURL() != tinker.MinTBaseURL {
		t.Errorf("mint key: base %q", c.BaseURL())
	}
	if _, err := c.CreateModel(context.Background(), baseModel, tinker.LoRAConfig{}); !errors.Is(err, tinker.ErrNotStarted) {
		t.Errorf("create model before start: %v, want ErrNotStarted", err)
	}
}

// TestHeartbeat runs Serve: heartbeats reach the service; when it goes
// down the client turns unhealthy after 120 s and warns once.
func TestHeartbeat(t *testing.T) {
	t.Parallel()
	e := newEnv(t, faketinker.Options{}, func(o *tinker.Options) { o.HeartbeatInterval = 2 * time.Millisecond })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.c.Serve(ctx) }()
	testutil.Eventually(t, "two heartbeats", func() bool {
		s, _ := e.srv.Session(e.c.SessionID())
		return s.Heartbeats >= 2
	})
	if !e.c.Healthy() {
		t.Errorf("healthy = false after heartbeats: %+v", e.c.Heartbeat())
	}
	_ = e.srv.SetDown(faketinker.Down503)
	testutil.Eventually(t, "a failed heartbeat", func() bool { return e.c.Heartbeat().Failures >= 1 })
	if !e.c.Healthy() {
		t.Error("unhealthy right after one failure")
	}
	e.clk.Advance(121 * time.Second)
	testutil.Eventually(t, "the warning", func() bool { return strings.Contains(e.logs(), "no successful heartbeat") })
	testutil.Eventually(t, "more failures", func() bool { return e.c.Heartbeat().Failures >= 3 })
	hb := e.c.Heartbeat()
	if hb.Healthy {
		t.Error("healthy 121 s after the last success")
	}
	if hb.LastError == nil || !strings.Contains(hb.LastError.Error(), "session_heartbeat") {
		t.Errorf("last error = %v", hb.LastError)
	}
	if n := strings.Count(e.logs(), "no successful heartbeat"); n != 1 {
		t.Errorf("warned %d times, want once:\n%s", n, e.logs())
	}
	_ = e.srv.SetDown(faketinker.Up)
	testutil.Eventually(t, "healthy again", e.c.Healthy)
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve: %v", err)
	}
	for _, r := range e.srv.RequestsTo("session_heartbeat") {
		if r.SessionID != e.c.SessionID() {
			t.Fatalf("heartbeat for session %q", r.SessionID)
		}
	}
}

func TestJWTExchange(t *testing.T) {
	t.Parallel()
	e := newEnv(t, faketinker.Options{JWT: true}, nil)
	if _, err := e.c.CreateModel(ctxT(t), baseModel, tinker.LoRAConfig{Rank: 4}); err != nil {
		t.Fatalf("create model with a jwt: %v", err)
	}
	if n := len(e.srv.RequestsTo("auth/token")); n != 1 {
		t.Errorf("auth/token requests: %d, want 1", n)
	}
	e.clk.Advance(time.Hour - 30*time.Second) // under 60 s left: refresh on demand
	if _, err := e.c.CreateSamplingSession(ctxT(t), baseModel, ""); err != nil {
		t.Fatalf("call after refresh: %v", err)
	}
	if n := len(e.srv.RequestsTo("auth/token")); n != 2 {
		t.Errorf("auth/token requests: %d, want 2 (a refresh)", n)
	}
}

func TestRetryAfterAndShouldRetry(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		faults    []faketinker.Fault
		wantSleep []time.Duration
		wantErr   int
	}{
		{"retry-after seconds", []faketinker.Fault{faketinker.RateLimited("3")}, []time.Duration{3 * time.Second}, 0},
		{"retry-after-ms", []faketinker.Fault{{Status: 503, RetryAfterMs: "250"}}, []time.Duration{250 * time.Millisecond}, 0},
		{"retry-after too long is ignored", []faketinker.Fault{faketinker.RateLimited("600")}, []time.Duration{500 * time.Millisecond}, 0},
		{"backoff doubles", []faketinker.Fault{faketinker.ServerError(500), faketinker.ServerError(502)},
			[]time.Duration{500 * time.Millisecond, time.Second}, 0},
		{"x-should-retry false", []faketinker.Fault{{Status: 503, ShouldRetry: "false"}}, nil, 503},
		{"x-should-retry true on 400", []faketinker.Fault{{Status: 400, Body: `{"detail":"x"}`, ShouldRetry: "true"}},
			[]time.Duration{500 * time.Millisecond}, 0},
		{"empty 400 is a broken connection", []faketinker.Fault{faketinker.EmptyBadRequest()}, []time.Duration{500 * time.Millisecond}, 0},
		{"400 with a body is fatal", []faketinker.Fault{{Status: 400, Body: `{"detail":"bad"}`}}, nil, 400},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, faketinker.Options{}, nil)
			for _, f := range tc.faults {
				e.srv.FailNext("create_sampling_session", 1, f)
			}
			_, err := e.c.CreateSamplingSession(ctxT(t), baseModel, "")
			if got := statusOf(err); got != tc.wantErr {
				t.Fatalf("error %v (status %d), want status %d", err, got, tc.wantErr)
			}
			if diff := cmp.Diff(tc.wantSleep, e.clk.Sleeps()); diff != "" {
				t.Errorf("sleeps (-want +got):\n%s", diff)
			}
			keys := map[string]bool{}
			for _, r := range e.srv.RequestsTo("create_sampling_session") {
				keys[r.IdempotencyKey] = true
			}
			if len(keys) != 1 {
				t.Errorf("retries used %d idempotency keys, want 1", len(keys))
			}
		})
	}
}

func statusOf(err error) int {
	var ae *tinker.APIError
	if errors.As(err, &ae) {
		return ae.Status
	}
	return 0
}
