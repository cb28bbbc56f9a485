package proxy_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/store/config"
)

// stubPolicy answers chat requests in process, in the OpenAI wire format.
type stubPolicy struct {
	ready  atomic.Bool
	status int
	mu     sync.Mutex
	seen   []*http.Request
	bodies []string
}

func (p *stubPolicy) Ready() (bool, string) { return p.ready.Load(), "stub not ready" }

func (p *stubPolicy) RoundTrip(r *http.Request) (*http.Response, error) {
	b, _ := io.ReadAll(r.Body)
	p.mu.Lock()
	p.seen = append(p.seen, r)
	p.bodies = append(p.bodies, string(b))
	p.mu.Unlock()
	status := p.status
	if status == 0 {
		status = 200
	}
	body := `{"id":"c1","object":"chat.completion","model":"policy","choices":[{"index":0,"message":{"role":"assistant","content":"from the policy"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":3,"total_tokens":6}}`
	h := http.Header{"Content-Type": {"application/json"}, proxy.PolicySampleHeader: {"42"}}
	return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
}

func withPolicy(p proxy.Policy, mode string) envOption {
	return func(c *config.Config, o *proxy.Options) {
		c.Mode = mode
		c.RL.APIKey = "tml-test-key" // the training modes need a service key
		o.Policy = p
	}
}

func TestPolicyServesTrainingModes(t *testing.T) {
	t.Parallel()
	p := &stubPolicy{}
	p.ready.Store(true)
	e := newEnv(t, withPolicy(p, "rl"))
	status, body, _ := e.post("/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, "X-Session-Id", "s1")
	if status != 200 || !bytes.Contains(body, []byte("from the policy")) {
		t.Fatalf("status %d body %s", status, body)
	}
	if n := len(e.up.Requests()); n != 0 {
		t.Errorf("the upstream got %d requests; the policy should have served", n)
	}
	p.mu.Lock()
	r := p.seen[0]
	p.mu.Unlock()
	if r.Header.Get(proxy.PolicySessionHeader) != "s1" || r.Header.Get(proxy.PolicyTurnTypeHeader) != "main" {
		t.Errorf("policy headers: %v", r.Header)
	}
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		t.Errorf("policy path %s", r.URL.Path)
	}
	// An Anthropic client is translated to the policy's OpenAI format.
	status, body, _ = e.post("/v1/messages", `{"model":"claude","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`)
	if status != 200 || !bytes.Contains(body, []byte(`"type":"message"`)) || !bytes.Contains(body, []byte("from the policy")) {
		t.Fatalf("anthropic via policy: status %d body %s", status, body)
	}
}

func TestPolicyNotReadyOrFailingUsesLLM(t *testing.T) {
	t.Parallel()
	p := &stubPolicy{}
	e := newEnv(t, withPolicy(p, "madmax"))
	status, body, _ := e.post("/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	if status != 200 || bytes.Contains(body, []byte("from the policy")) || len(e.up.Requests()) != 1 {
		t.Fatalf("not ready: status %d body %s upstream %d", status, body, len(e.up.Requests()))
	}
	p.ready.Store(true)
	p.status = 503
	status, body, _ = e.post("/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	if status != 200 || bytes.Contains(body, []byte("from the policy")) || len(e.up.Requests()) != 2 {
		t.Fatalf("failing policy: status %d body %s upstream %d", status, body, len(e.up.Requests()))
	}
}

func TestSkillsOnlyNeverUsesPolicy(t *testing.T) {
	t.Parallel()
	p := &stubPolicy{}
	p.ready.Store(true)
	e := newEnv(t, withPolicy(p, "skills_only"))
	status, body, _ := e.post("/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	if status != 200 || bytes.Contains(body, []byte("from the policy")) {
		t.Fatalf("status %d body %s", status, body)
	}
}

// TestServeStopsWhenCancelledAtOnce cancels Serve before fiber can have
// taken the listener: Serve must still return.
func TestServeStopsWhenCancelledAtOnce(t *testing.T) {
	t.Parallel()
	for range 20 {
		srv := proxy.New(proxy.Options{Config: config.Defaults()})
		if err := srv.Listen("127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		done := make(chan error, 1)
		go func() { done <- srv.Serve(ctx, time.Second) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("Serve did not return after an immediate cancel")
		}
	}
}
