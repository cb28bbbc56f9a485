package proxy_test

import (
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/store/config"
)

// checkShape asserts an error body has the client API's shape.
func checkShape(t *testing.T, api string, body []byte, wantType string) string {
	t.Helper()
	if api == "anthropic" {
		var e struct {
			Type  string                         `json:"type"`
			Error struct{ Type, Message string } `json:"error"`
		}
		if err := json.Unmarshal(body, &e); err != nil || e.Type != "error" || e.Error.Message == "" || (wantType != "" && e.Error.Type != wantType) {
			t.Errorf("not an Anthropic error (want type %q): %s", wantType, body)
		}
		return e.Error.Message
	}
	var e struct {
		Error struct {
			Message string  `json:"message"`
			Type    string  `json:"type"`
			Code    *string `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Error.Message == "" || e.Error.Type == "" || (wantType != "" && e.Error.Type != wantType) {
		t.Errorf("not an OpenAI error (want type %q): %s", wantType, body)
	}
	return e.Error.Message
}

var paths = map[string]string{"openai": "/v1/chat/completions", "anthropic": "/v1/messages"}

func TestBadRequests(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withConfig(func(c *config.Config) { must(t, c.Set("proxy.max_body_bytes", "4096")) }))
	tests := []struct {
		name, body string
		status     int
		msgHas     string
	}{
		{"malformed json", `{"messages": [`, 400, "JSON"},
		{"not an object", `[1,2]`, 400, ""},
		{"missing messages", `{"model":"m"}`, 400, "messages"},
		{"messages wrong type", `{"model":"m","messages":"hi"}`, 400, "messages"},
		{"message not an object", `{"model":"m","messages":[3]}`, 400, ""},
		{"model wrong type", `{"model":5,"messages":[{"role":"user","content":"x"}]}`, 400, "model"},
		{"stream wrong type", `{"model":"m","stream":"yes","messages":[{"role":"user","content":"x"}]}`, 400, "stream"},
		{"invalid utf-8", "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"\xff\xfe\"}]}", 400, "UTF-8"},
		{"too large", `{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat("a", 5000) + `"}]}`, 413, "max_body_bytes"},
		{"bad turn type", `{"model":"m","max_tokens":5,"turn_type":"weird","messages":[{"role":"user","content":"x"}]}`, 400, "main or side"},
	}
	for _, tt := range tests {
		for api, path := range paths {
			t.Run(tt.name+"/"+api, func(t *testing.T) {
				status, body, _ := e.post(path, tt.body)
				if status != tt.status {
					t.Fatalf("status %d, want %d: %s", status, tt.status, body)
				}
				msg := checkShape(t, api, body, "")
				if !strings.Contains(strings.ToLower(msg), strings.ToLower(tt.msgHas)) {
					t.Errorf("message %q lacks %q", msg, tt.msgHas)
				}
			})
		}
	}
	if n := len(e.up.Requests()); n != 0 {
		t.Errorf("bad requests reached the upstream %d times", n)
	}
}

func TestProxyAuth(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withConfig(func(c *config.Config) { must(t, c.Set("proxy.api_key", "proxy-secret")) }))
	body := `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"}]}`
	for api, path := range paths {
		for _, h := range [][]string{nil, {"Authorization", "Bearer wrong"}, {"X-Api-Key", "proxy-secre"}} {
			status, b, _ := e.post(path, body, h...)
			if status != 401 {
				t.Errorf("%s with %v: status %d", api, h, status)
			}
			checkShape(t, api, b, "authentication_error")
		}
		if status, b, _ := e.post(path, body, "Authorization", "Bearer proxy-secret"); status != 200 {
			t.Errorf("%s bearer: %d %s", api, status, b)
		}
		if status, _, _ := e.post(path, body, "X-Api-Key", "proxy-secret"); status != 200 {
			t.Errorf("%s x-api-key: %d", api, status)
		}
	}
	// The proxy key never goes upstream.
	for _, r := range e.up.Requests() {
		if strings.Contains(r.Header.Get("Authorization")+r.Header.Get("X-Api-Key"), "proxy-secret") {
			t.Error("proxy key forwarded upstream")
		}
	}
	resp, err := http.Get(e.url + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("healthz needs no key: %v %v", resp, err)
	}
}

func TestUpstreamFailures(t *testing.T) {
	t.Parallel()
	// Unreachable: a port nothing listens on.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := ln.Addr().String()
	ln.Close()
	e := newEnv(t, withConfig(func(c *config.Config) {
		must(t, c.Set("llm.api_base", "http://"+dead+"/v1"))
		must(t, c.Set("proxy.max_retries", "0"))
	}))
	for api, path := range paths {
		status, b, _ := e.post(path, `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"}]}`)
		if status != 502 {
			t.Errorf("%s unreachable: %d %s", api, status, b)
		}
		checkShape(t, api, b, "")
	}
	turns := e.turns(2)
	if turns[0].Status != 502 || !strings.Contains(turns[0].Error, "unreachable") {
		t.Errorf("failed turn recorded as %d %q", turns[0].Status, turns[0].Error)
	}
}

// TestOversizedAnswer: a non-streamed answer longer than MaxAnswerBytes is
// not read whole: the client gets a 502 in its own shape and the turn is
// recorded with the reason; an answer within the bound still passes.
func TestOversizedAnswer(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(_ *config.Config, o *proxy.Options) { o.MaxAnswerBytes = 4096 })
	body := `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"}]}`
	for api, path := range paths {
		e.up.Enqueue(fakeupstream.Reply{Text: strings.Repeat("a", 5000)})
		status, b, _ := e.post(path, body)
		if status != 502 {
			t.Errorf("%s oversized: %d %s", api, status, b)
		}
		if msg := checkShape(t, api, b, ""); !strings.Contains(msg, "exceeds 4096 bytes") {
			t.Errorf("%s oversized: message %q", api, msg)
		}
		e.up.Enqueue(fakeupstream.Reply{Text: strings.Repeat("b", 3000)})
		if status, b, _ := e.post(path, body); status != 200 || !strings.Contains(string(b), "bbbb") {
			t.Errorf("%s within the bound: %d %.200s", api, status, b)
		}
	}
	failed := 0
	for _, turn := range e.turns(4) {
		if turn.Status == 502 && strings.Contains(turn.Error, "exceeds 4096 bytes") {
			failed++
		}
	}
	if failed != 2 {
		t.Errorf("%d oversized turns recorded as such, want 2", failed)
	}
}

func TestUpstreamTimeoutAndPassThrough4xx(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withConfig(func(c *config.Config) {
		must(t, c.Set("proxy.first_byte_timeout_seconds", "1"))
		must(t, c.Set("proxy.max_retries", "0"))
	}))
	body := `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"}]}`
	for api, path := range paths {
		e.up.Enqueue(fakeupstream.Reply{Hang: true})
		status, b, _ := e.post(path, body)
		if status != 504 {
			t.Errorf("%s hang: %d %s", api, status, b)
		}
		checkShape(t, api, b, "")
		e.up.Enqueue(fakeupstream.Reply{Status: 404, ErrorMessage: "model nope does not exist"})
		status, b, _ = e.post(path, body)
		if status != 404 || !strings.Contains(string(b), "model nope does not exist") {
			t.Errorf("%s 404 not passed through: %d %s", api, status, b)
		}
		checkShape(t, api, b, "")
	}
}

func TestRetriesBeforeFirstByte(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.up.Enqueue(fakeupstream.Reply{Status: 429, RetryAfter: "0"})
	e.up.Enqueue(fakeupstream.Reply{Status: 503, RetryAfter: "0"})
	e.up.Enqueue(fakeupstream.TextReply("third time lucky"))
	status, b, _ := e.post("/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"x"}]}`)
	if status != 200 || !strings.Contains(string(b), "third time lucky") {
		t.Fatalf("after 429, 503: %d %s", status, b)
	}
	// Once bytes reached the client, a failure is not retried: the stream
	// ends with an error event and the turn is recorded as failed.
	e.up.Enqueue(fakeupstream.Reply{Text: "a long answer that breaks", ChunkSize: 2, FailAfterChunks: 3})
	status, b, _ = e.post("/v1/chat/completions", `{"model":"m","stream":true,"messages":[{"role":"user","content":"x"}]}`)
	if status != 200 || !strings.Contains(string(b), `"error"`) || !strings.HasSuffix(strings.TrimSpace(string(b)), "data: [DONE]") {
		t.Errorf("mid-stream failure: %d %s", status, b)
	}
	if n := len(e.upstreamBodies("/v1/chat/completions")); n != 4 {
		t.Errorf("upstream saw %d requests, want 4 (3 + 1, no retry mid-stream)", n)
	}
	turns := e.turns(2)
	if last := turns[len(turns)-1]; last.Status != 502 || last.Error == "" {
		t.Errorf("mid-stream failure recorded as %d %q", last.Status, last.Error)
	}
}

func TestMidStreamFailureAnthropic(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.up.Enqueue(fakeupstream.Reply{Text: "a long answer that breaks", ChunkSize: 2, FailAfterChunks: 3})
	status, b, _ := e.post("/v1/messages", `{"model":"m","max_tokens":9,"stream":true,"messages":[{"role":"user","content":"x"}]}`)
	s := string(b)
	if status != 200 || !strings.Contains(s, "event: error") || strings.Contains(s, "message_stop") {
		t.Errorf("anthropic mid-stream failure: %d\n%s", status, s)
	}
}

func TestStreamIdleTimeout(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withConfig(func(c *config.Config) { must(t, c.Set("proxy.stream_idle_timeout_seconds", "1")) }))
	hold := make(chan struct{})
	defer close(hold)
	e.up.Enqueue(fakeupstream.Reply{Text: "first then silence", HoldAfterFirst: hold})
	start := time.Now()
	status, b, _ := e.post("/v1/chat/completions", `{"model":"m","stream":true,"messages":[{"role":"user","content":"x"}]}`)
	if status != 200 || !strings.Contains(string(b), "timeout_error") || time.Since(start) > 10*time.Second {
		t.Errorf("idle stream: %d %s", status, b)
	}
}
