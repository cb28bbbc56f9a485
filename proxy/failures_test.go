package proxy_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/store/config"
)

// TestUnreadableAnswerIsAFailure: an upstream 200 whose body is not JSON
// is answered 502 in the client's shape and recorded as a failed turn,
// never relayed as a successful (empty) one.
func TestUnreadableAnswerIsAFailure(t *testing.T) {
	t.Parallel()
	html := fakeupstream.Reply{RawBody: []byte("<html><body>502 Bad Gateway</body></html>"), RawContentType: "text/html"}
	truncated := fakeupstream.Reply{RawBody: []byte(`{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assis`)}
	tests := []struct {
		name, provider, path string
		reply                fakeupstream.Reply
		stream               bool
		api                  string
	}{
		{"openai html", "custom", "/v1/chat/completions", html, false, "openai"},
		{"openai truncated json", "custom", "/v1/chat/completions", truncated, false, "openai"},
		{"openai html to a streamed request", "custom", "/v1/chat/completions", html, true, "openai"},
		{"anthropic native html", "anthropic", "/v1/messages", html, false, "anthropic"},
		{"anthropic native truncated", "anthropic", "/v1/messages", truncated, false, "anthropic"},
		{"anthropic translated html", "custom", "/v1/messages", html, false, "anthropic"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, withConfig(func(c *config.Config) { must(t, c.Set("llm.provider", tt.provider)) }))
			e.up.Enqueue(tt.reply)
			status, body, _ := e.post(tt.path, fmt.Sprintf(`{"model":"m","max_tokens":9,"stream":%v,"messages":[{"role":"user","content":"x"}]}`, tt.stream))
			if status != 502 {
				t.Errorf("status %d, want 502: %s", status, body)
			}
			checkShape(t, tt.api, body, "")
			if turn := e.turns(1)[0]; turn.Status != 502 || turn.Error == "" {
				t.Errorf("recorded as %d %q", turn.Status, turn.Error)
			}
		})
	}
}

func TestRelayedPathsStayUnderTheBase(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := []struct {
		name, path string
		status     int
		upstream   string // the path the upstream sees; "" for none
	}{
		{"dot dot out of the base", "/v1/../../x", 400, ""},
		{"dot dot out of /v1", "/v1/models/../../admin", 400, ""},
		{"encoded dot dot", "/v1/%2e%2e/%2E%2E/x", 400, ""},
		{"encoded slash and dots", "/v1/files/..%2f..%2fx", 400, ""},
		{"backslash dots", "/v1/files/..%5c..%5cx", 400, ""},
		{"dot dot inside the base", "/v1/files/a/../b", 200, "/v1/files/b"},
		{"dot segment", "/v1/./files/./c", 200, "/v1/files/c"},
		{"plain", "/v1/files/file-abc", 200, "/v1/files/file-abc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(e.up.Requests())
			status, body, _ := e.raw("GET", tt.path, "")
			if tt.status == 400 && status != 400 {
				t.Errorf("status %d, want 400: %s", status, body)
			}
			got := e.up.Requests()[before:]
			switch {
			case tt.upstream == "" && len(got) > 0:
				t.Errorf("relayed to %s", got[0].Path)
			case tt.upstream != "" && (len(got) != 1 || got[0].Path != tt.upstream):
				t.Errorf("upstream saw %+v, want %s", got, tt.upstream)
			}
		})
	}
}

// TestAnthropicClientsKeepRetryAfter: when the retries have run out, the
// upstream's Retry-After reaches an Anthropic client of an OpenAI-style
// upstream too, so its SDK waits as asked.
func TestAnthropicClientsKeepRetryAfter(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withConfig(func(c *config.Config) { must(t, c.Set("proxy.max_retries", "1")) }))
	for range 2 {
		e.up.Enqueue(fakeupstream.Reply{Status: 429, RetryAfter: "0"})
	}
	status, body, h := e.post("/v1/messages", `{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"x"}]}`)
	if status != 429 || h.Get("Retry-After") != "0" {
		t.Errorf("status %d, Retry-After %q: %s", status, h.Get("Retry-After"), body)
	}
	checkShape(t, "anthropic", body, "rate_limit_error")
}

// TestTimeoutsAreNotRetriedByDefault: a hanging upstream costs the client
// one first-byte timeout, and the provider one request, unless
// proxy.retry_on_timeout asks for retries.
func TestTimeoutsAreNotRetriedByDefault(t *testing.T) {
	t.Parallel()
	for _, retry := range []bool{false, true} {
		t.Run(fmt.Sprint("retry_on_timeout=", retry), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, withConfig(func(c *config.Config) {
				must(t, c.Set("proxy.first_byte_timeout_seconds", "1"))
				must(t, c.Set("proxy.max_retries", "2"))
				must(t, c.Set("proxy.retry_on_timeout", fmt.Sprint(retry)))
			}))
			e.up.SetDefault(fakeupstream.Reply{Hang: true})
			status, body, _ := e.post("/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"x"}]}`)
			if status != 504 {
				t.Errorf("status %d: %s", status, body)
			}
			want := 1
			if retry {
				want = 3
			}
			if n := len(e.up.Requests()); n != want {
				t.Errorf("the upstream got %d requests, want %d", n, want)
			}
		})
	}
}

func TestFirstByteTimeoutDefault(t *testing.T) {
	t.Parallel()
	cfg := config.Defaults()
	if got := cfg.Proxy.FirstByteTimeoutSec; got > 120 {
		t.Errorf("first_byte_timeout_seconds defaults to %d s: a person does not wait that long", got)
	}
	if cfg.Proxy.RetryOnTimeout {
		t.Error("retry_on_timeout is on by default")
	}
	if strings.TrimSpace(cfg.Proxy.AllowedOrigins) != "" {
		t.Error("allowed_origins is not empty by default")
	}
}
