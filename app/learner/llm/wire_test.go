package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/metaclaw/metaclaw/app/learner/llm"
)

// seen is one request a scripted server received.
type seen struct {
	Method, Path string
	Header       http.Header
	Body         []byte
	At           time.Time
}

// scripted is an httptest server answering with its replies in order, the
// last one repeated, and recording every request.
type scripted struct {
	srv     *httptest.Server
	mu      sync.Mutex
	reqs    []seen
	replies []http.HandlerFunc
}

func serve(t *testing.T, replies ...http.HandlerFunc) *scripted {
	t.Helper()
	s := &scripted{replies: replies}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		n := len(s.reqs)
		s.reqs = append(s.reqs, seen{r.Method, r.URL.Path, r.Header.Clone(), b, time.Now()})
		h := s.replies[min(n, len(s.replies)-1)]
		s.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *scripted) requests() []seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seen(nil), s.reqs...)
}

// reply answers with status, headers (name, value pairs) and body.
func reply(status int, body string, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

func chatReply(text string) http.HandlerFunc {
	b, _ := json.Marshal(map[string]any{"id": "c1", "object": "chat.completion", "model": "m",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": text, "reasoning_content": "hidden"}}},
		"usage": map[string]any{"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}})
	return reply(200, string(b))
}

// sameJSON fails unless got and want are equal JSON documents.
func sameJSON(t *testing.T, what string, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %s: %v", what, got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: bad want: %v", what, err)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}

func TestOpenAIWireShape(t *testing.T) {
	t.Setenv("OPENAI_ORG_ID", "org-ambient") // another account's: must not be sent
	t.Setenv("OPENAI_PROJECT_ID", "proj-ambient")
	s := serve(t, chatReply(`{"ok":true}`))
	c := llm.New(llm.Endpoint{BaseURL: s.srv.URL + "/api/v1/", APIKey: "sk-test-123456", Model: "moonshotai/kimi-k2.5",
		Headers: map[string]string{"HTTP-Referer": "https://github.com/metaclaw/metaclaw", "X-Title": "MetaClaw"}})
	got, err := c.Complete(context.Background(), "sys", "question", llm.Options{MaxTokens: 50, JSON: true})
	if err != nil || got != `{"ok":true}` {
		t.Fatalf("Complete = %q, %v", got, err)
	}
	r := s.requests()[0]
	if r.Method != http.MethodPost || r.Path != "/api/v1/chat/completions" {
		t.Errorf("request %s %s", r.Method, r.Path)
	}
	sameJSON(t, "body", r.Body, `{"model":"moonshotai/kimi-k2.5","max_tokens":50,"temperature":0,
		"response_format":{"type":"json_object"},
		"messages":[{"role":"system","content":"sys"},{"role":"user","content":"question"}]}`)
	for name, want := range map[string]string{"Authorization": "Bearer sk-test-123456", "Content-Type": "application/json",
		"Accept": "application/json", "Http-Referer": "https://github.com/metaclaw/metaclaw", "X-Title": "MetaClaw",
		"Openai-Organization": "", "Openai-Project": "", "X-Api-Key": "", "Anthropic-Version": ""} {
		if g := r.Header.Get(name); g != want {
			t.Errorf("header %s = %q, want %q", name, g, want)
		}
	}
}

func TestOpenAIReasoningWireShape(t *testing.T) {
	t.Parallel()
	s := serve(t, chatReply("fine"))
	c := llm.New(llm.Endpoint{BaseURL: s.srv.URL + "/v1", APIKey: "k", Model: "gpt-5.2"})
	if _, err := c.Complete(context.Background(), "s", "u", llm.Options{Temperature: 0.7, MaxTokens: 100}); err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "body", s.requests()[0].Body, `{"model":"gpt-5.2","max_completion_tokens":400,
		"messages":[{"role":"system","content":"s"},{"role":"user","content":"u"}]}`)
}

func TestAnthropicWireShape(t *testing.T) {
	t.Parallel()
	answer := `{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","stop_reason":"end_turn",
		"content":[{"type":"thinking","thinking":"hmm","signature":"s"},{"type":"text","text":"{\"score\":"},
		{"type":"text","text":" 1}"}],"usage":{"input_tokens":3,"output_tokens":2}}`
	for _, base := range []string{"/v1", "/v1/", ""} {
		s := serve(t, reply(200, answer))
		c := llm.New(llm.Endpoint{API: llm.APIAnthropic, BaseURL: s.srv.URL + base, APIKey: "ak-test-123456", Model: "claude-x",
			Headers: map[string]string{"X-Extra": "1"}})
		got, err := c.Complete(context.Background(), "rules", "the turn", llm.Options{Temperature: 0.3, MaxTokens: 64, JSON: true})
		if err != nil || got != `{"score": 1}` {
			t.Fatalf("base %q: Complete = %q, %v", base, got, err)
		}
		r := s.requests()[0]
		if r.Path != "/v1/messages" {
			t.Errorf("base %q: path %s", base, r.Path)
		}
		sameJSON(t, "body", r.Body, `{"model":"claude-x","max_tokens":64,
			"system":[{"type":"text","text":"rules"}],
			"messages":[{"role":"user","content":[{"type":"text","text":"the turn"}]}]}`)
		for name, want := range map[string]string{"X-Api-Key": "ak-test-123456", "Anthropic-Version": "2023-06-01",
			"Content-Type": "application/json", "X-Extra": "1", "Authorization": ""} {
			if g := r.Header.Get(name); g != want {
				t.Errorf("base %q: header %s = %q, want %q", base, name, g, want)
			}
		}
	}
}

func TestRetryAfterIsHonoured(t *testing.T) {
	t.Parallel()
	s := serve(t, reply(429, `{"error":{"message":"slow down","type":"rate_limit_error"}}`, "Retry-After", "1"),
		reply(429, `{"error":{"message":"slow down"}}`, "Retry-After-Ms", "200", "Retry-After", "20"),
		chatReply("done"))
	c := llm.New(llm.Endpoint{BaseURL: s.srv.URL + "/v1", APIKey: "k", Model: "m"})
	if got, err := c.Complete(context.Background(), "s", "u", llm.Options{}); err != nil || got != "done" {
		t.Fatalf("Complete = %q, %v", got, err)
	}
	reqs := s.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if d := reqs[1].At.Sub(reqs[0].At); d < 950*time.Millisecond || d > 5*time.Second {
		t.Errorf("waited %v after Retry-After: 1", d)
	}
	if d := reqs[2].At.Sub(reqs[1].At); d < 190*time.Millisecond || d > 5*time.Second {
		t.Errorf("waited %v after Retry-After-Ms: 200 (which beats Retry-After)", d)
	}
}

func TestRetryAfterOverCapEndsRetries(t *testing.T) {
	t.Parallel()
	s := serve(t, reply(429, `{"error":{"message":"quota"}}`, "Retry-After", "31"), chatReply("never"))
	c := llm.New(llm.Endpoint{BaseURL: s.srv.URL + "/v1", APIKey: "k", Model: "m"})
	_, err := c.Complete(context.Background(), "s", "u", llm.Options{})
	if llm.StatusOf(err) != 429 || len(s.requests()) != 1 {
		t.Fatalf("err = %v after %d requests; want the 429 at once", err, len(s.requests()))
	}
}

func TestServerErrorThenSuccess(t *testing.T) {
	t.Parallel()
	s := serve(t, reply(503, `{"error":{"message":"overloaded"}}`), chatReply("ok"))
	c := llm.New(llm.Endpoint{BaseURL: s.srv.URL + "/v1", APIKey: "k", Model: "m"})
	if got, err := c.Complete(context.Background(), "s", "u", llm.Options{}); err != nil || got != "ok" {
		t.Fatalf("Complete = %q, %v", got, err)
	}
	reqs := s.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	// The first backoff is 0.5 s less up to 25 % jitter.
	if d := reqs[1].At.Sub(reqs[0].At); d < 370*time.Millisecond || d > 5*time.Second {
		t.Errorf("backoff %v", d)
	}
}

func TestShouldRetryHeaderWins(t *testing.T) {
	t.Parallel()
	s := serve(t, reply(500, `{"error":{"message":"no"}}`, "X-Should-Retry", "false"))
	c := llm.New(llm.Endpoint{BaseURL: s.srv.URL + "/v1", APIKey: "k", Model: "m"})
	if _, err := c.Complete(context.Background(), "s", "u", llm.Options{}); llm.StatusOf(err) != 500 || len(s.requests()) != 1 {
		t.Fatalf("err = %v after %d requests", err, len(s.requests()))
	}
}

func TestClientErrorsAreNotRetried(t *testing.T) {
	t.Parallel()
	for _, status := range []int{400, 401, 403, 404, 422} {
		s := serve(t, reply(status, `{"error":{"message":"nope","type":"invalid_request_error"}}`))
		c := llm.New(llm.Endpoint{BaseURL: s.srv.URL + "/v1", APIKey: "k", Model: "m"})
		_, err := c.Complete(context.Background(), "s", "u", llm.Options{})
		var ae *llm.APIError
		if !errors.As(err, &ae) || ae.StatusCode != status || ae.Message != "nope" || ae.Type != "invalid_request_error" {
			t.Errorf("%d: err = %v", status, err)
		}
		if n := len(s.requests()); n != 1 {
			t.Errorf("%d: %d requests, want 1", status, n)
		}
	}
}

func TestKeyNeverInErrors(t *testing.T) {
	t.Parallel()
	const key = "sk-live-SECRET-0123456789"
	echo := `{"error":{"message":"Incorrect API key provided: ` + key + `","type":"invalid_request_error","code":"invalid_api_key"}}`
	s := serve(t, reply(401, echo))
	for _, api := range []string{llm.APIOpenAI, llm.APIAnthropic} {
		c := llm.New(llm.Endpoint{API: api, BaseURL: s.srv.URL + "/v1", APIKey: key, Model: "m"})
		_, err := c.Complete(context.Background(), "s", "u", llm.Options{})
		if err == nil || strings.Contains(err.Error(), key) {
			t.Fatalf("%s: err = %v", api, err)
		}
		for _, want := range []string{"401", "Incorrect API key provided: [redacted]"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: err %q lacks %q", api, err, want)
			}
		}
	}
	// A transport error, with the key in the URL's user info, too.
	c := llm.New(llm.Endpoint{BaseURL: "http://" + key + "@127.0.0.1:1/v1", APIKey: key, Model: "m", Timeout: time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Complete(ctx, "s", "u", llm.Options{}); err == nil || strings.Contains(err.Error(), key) {
		t.Fatalf("transport: err = %v", err)
	}
}

func TestAnthropicErrorShape(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 2000)
	s := serve(t, reply(400, `{"type":"error","error":{"type":"invalid_request_error","message":"`+long+`"}}`))
	c := llm.New(llm.Endpoint{API: llm.APIAnthropic, BaseURL: s.srv.URL, APIKey: "k", Model: "m"})
	_, err := c.Complete(context.Background(), "s", "u", llm.Options{JSON: true})
	var ae *llm.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 400 || ae.Type != "invalid_request_error" {
		t.Fatalf("err = %v", err)
	}
	if len(ae.Message) > 520 || !strings.HasPrefix(ae.Message, "xxx") {
		t.Errorf("message of %d bytes not truncated", len(ae.Message))
	}
	if n := len(s.requests()); n != 1 {
		t.Errorf("%d requests: Anthropic has no response_format to drop, want 1", n)
	}
}

func TestOversizeBodyRefused(t *testing.T) {
	t.Parallel()
	s := serve(t, func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, `{"choices":[{"message":{"content":"`)
		io.WriteString(w, strings.Repeat("a", llm.MaxBodyBytes))
		io.WriteString(w, `"}}]}`)
	})
	c := llm.New(llm.Endpoint{BaseURL: s.srv.URL + "/v1", APIKey: "k", Model: "m"})
	if _, err := c.Complete(context.Background(), "s", "u", llm.Options{}); !errors.Is(err, llm.ErrBodyTooLarge) {
		t.Fatalf("err = %v, want ErrBodyTooLarge", err)
	}
	if n := len(s.requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestCancelDuringBackoff(t *testing.T) {
	t.Parallel()
	s := serve(t, reply(503, `{}`, "Retry-After", "20"))
	c := llm.New(llm.Endpoint{BaseURL: s.srv.URL + "/v1", APIKey: "k", Model: "m"})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Complete(ctx, "s", "u", llm.Options{})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("err = %v after %v", err, time.Since(start))
	}
}

func TestCrossOriginRedirectNotFollowed(t *testing.T) {
	t.Parallel()
	other := serve(t, chatReply("stolen"))
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.srv.URL+r.URL.Path, http.StatusTemporaryRedirect)
	})
	c := llm.New(llm.Endpoint{API: llm.APIAnthropic, BaseURL: s.srv.URL, APIKey: "ak-secret-key", Model: "m"})
	_, err := c.Complete(context.Background(), "s", "u", llm.Options{})
	if llm.StatusOf(err) != http.StatusTemporaryRedirect {
		t.Errorf("err = %v, want the redirect as an error", err)
	}
	if n := len(other.requests()); n != 0 {
		t.Errorf("the other origin got %d requests", n)
	}
}

func TestNonJSONErrorBody(t *testing.T) {
	t.Parallel()
	s := serve(t, reply(404, "<html>\n  <body>Not   Found</body>\n</html>"))
	c := llm.New(llm.Endpoint{BaseURL: s.srv.URL + "/v1", APIKey: "k", Model: "m"})
	_, err := c.Complete(context.Background(), "s", "u", llm.Options{})
	if err == nil || !strings.Contains(err.Error(), "http 404 not found: <html> <body>Not Found</body> </html>") {
		t.Errorf("err = %v", err)
	}
}
