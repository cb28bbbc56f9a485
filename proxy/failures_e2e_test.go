package proxy_test

import (
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/store/config"
)

const hi = `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
const hiStream = `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`

// TestUpstreamFailuresCounted: every kind of upstream failure is counted,
// with the last one's time and message, and a key refused again and again
// is named.
func TestUpstreamFailuresCounted(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withConfig(func(c *config.Config) {
		c.Proxy.MaxRetries, c.Proxy.FirstByteTimeoutSec, c.Proxy.StreamIdleTimeoutSec = 0, 1, 1
	}))
	steps := []struct {
		reply  fakeupstream.Reply
		body   string
		status int
	}{
		{fakeupstream.Reply{Text: "fine"}, hi, 200},
		{fakeupstream.ErrorReply(http.StatusUnauthorized, "Incorrect API key provided"), hi, 401},
		{fakeupstream.ErrorReply(http.StatusForbidden, "key disabled"), hi, 403},
		{fakeupstream.ErrorReply(http.StatusTooManyRequests, "slow down"), hi, 429},
		{fakeupstream.ErrorReply(http.StatusServiceUnavailable, "overloaded"), hi, 503},
		{fakeupstream.Reply{Text: "late", FirstByteDelay: 2 * time.Second}, hi, 504},
		{fakeupstream.Reply{Text: "a long answer cut short", FailAfterChunks: 2}, hiStream, 200},
		{fakeupstream.Reply{Text: "an answer that fails", ErrorAfterChunks: 2}, hiStream, 200},
		{fakeupstream.ErrorReply(http.StatusUnauthorized, "Incorrect API key provided"), hi, 401},
	}
	for i, st := range steps {
		e.up.Enqueue(st.reply)
		if status, b, _ := e.post("/v1/chat/completions", st.body, "X-Session-Id", "s"); status != st.status {
			t.Fatalf("step %d: status %d, want %d: %s", i, status, st.status, b)
		}
	}
	f := waitFailures(t, e.srv, 9)
	want := map[string]int64{proxy.FailKeyRejected: 3, proxy.FailRateLimited: 1, proxy.FailServerError: 2,
		proxy.FailTimeout: 1, proxy.FailStreamCut: 1}
	if diff := cmp.Diff(want, f.Counts); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	if f.Total != 8 || f.LastKind != proxy.FailKeyRejected || f.LastMessage != "Incorrect API key provided" || f.LastAt.IsZero() {
		t.Errorf("failures = %+v", f)
	}
	if f.KeyProblem() != "" {
		t.Errorf("key problem after one rejection in a row: %q", f.KeyProblem())
	}
	for range 2 {
		e.up.Enqueue(fakeupstream.ErrorReply(http.StatusUnauthorized, "Incorrect API key provided"))
		e.post("/v1/chat/completions", hi, "X-Session-Id", "s")
	}
	f = waitFailures(t, e.srv, 11)
	if p := f.KeyProblem(); p != "the provider rejected llm.api_key 3 times in a row: Incorrect API key provided" {
		t.Errorf("key problem %q", p)
	}
}

// TestUnreachableUpstreamCounted: a provider nobody answers at is counted
// as unreachable.
func TestUnreachableUpstreamCounted(t *testing.T) {
	t.Parallel()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	e := newEnv(t, withConfig(func(c *config.Config) { c.LLM.APIBase, c.Proxy.MaxRetries = dead, 0 }))
	if status, b, _ := e.post("/v1/chat/completions", hi); status != http.StatusBadGateway {
		t.Fatalf("status %d: %s", status, b)
	}
	if f := waitFailures(t, e.srv, 1); f.Counts[proxy.FailUnreachable] != 1 {
		t.Errorf("failures %+v", f)
	}
}

// TestNoKeyNoKeylessCall: without llm.api_key and without caller
// credentials to forward, the request is refused in the caller's shape,
// naming the key, and nothing reaches the provider.
func TestNoKeyNoKeylessCall(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withConfig(func(c *config.Config) { c.LLM.APIKey, c.LLM.Provider = "", "kimi" }))
	status, body, _ := e.post("/v1/chat/completions", hi)
	if status != http.StatusUnauthorized || !strings.Contains(string(body), `"error"`) || !strings.Contains(string(body), "llm.api_key") {
		t.Errorf("OpenAI caller: %d %s", status, body)
	}
	status, body, _ = e.post("/v1/messages", `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`)
	if status != http.StatusUnauthorized || !strings.Contains(string(body), `"type":"error"`) || !strings.Contains(string(body), "llm.api_key") {
		t.Errorf("Anthropic caller: %d %s", status, body)
	}
	if n := len(e.up.Requests()); n != 0 {
		t.Errorf("%d keyless calls reached the provider", n)
	}
	if f := waitFailures(t, e.srv, 2); f.Counts[proxy.FailNoKey] != 2 {
		t.Errorf("failures %+v", f)
	}
	// A custom upstream (a local server) may take no key.
	local := newEnv(t, withConfig(func(c *config.Config) { c.LLM.APIKey = "" }))
	if status, b, _ := local.post("/v1/chat/completions", hi); status != 200 {
		t.Errorf("keyless custom upstream: %d %s", status, b)
	}
}

// waitFailures waits until the proxy counted n finished turns.
func waitFailures(t *testing.T, s *proxy.Server, n int64) proxy.UpstreamFailures {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		f := s.UpstreamFailures()
		if f.Turns >= n {
			return f
		}
		if time.Now().After(deadline) {
			t.Fatalf("counted %d turns, want %d: %+v", f.Turns, n, f)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
