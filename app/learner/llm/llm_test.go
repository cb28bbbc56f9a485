package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/metaclaw/metaclaw/app/learner/internal/learntest"
	"github.com/metaclaw/metaclaw/app/learner/llm"
	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/store/config"
)

func decode(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("request body %s: %v", body, err)
	}
	return m
}

func TestCompleteOpenAI(t *testing.T) {
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1") // must be ignored
	t.Setenv("OPENAI_API_KEY", "sk-wrong")
	up, base := learntest.StartFake(t)
	up.Enqueue(fakeupstream.TextReply(`{"ok": true}`))
	c := llm.New(llm.Endpoint{BaseURL: base + "/v1", APIKey: "k-judge", Model: "kimi-k2.5", Timeout: 5 * time.Second})
	got, err := c.Complete(context.Background(), "sys", "question", llm.Options{Temperature: 0.3, MaxTokens: 50, JSON: true})
	if err != nil || got != `{"ok": true}` {
		t.Fatalf("Complete = %q, %v", got, err)
	}
	reqs := up.Requests()
	if len(reqs) != 1 || reqs[0].Path != "/v1/chat/completions" {
		t.Fatalf("requests: %+v", reqs)
	}
	if h := reqs[0].Header.Get("Authorization"); h != "Bearer k-judge" {
		t.Errorf("Authorization = %q", h)
	}
	body := decode(t, reqs[0].Body)
	want := map[string]any{
		"model": "kimi-k2.5", "temperature": 0.3, "max_tokens": 50.0,
		"response_format": map[string]any{"type": "json_object"},
		"messages":        []any{map[string]any{"role": "system", "content": "sys"}, map[string]any{"role": "user", "content": "question"}},
	}
	if diff := cmp.Diff(want, body); diff != "" {
		t.Errorf("request body (-want +got):\n%s", diff)
	}
}

func TestCompleteReasoningModel(t *testing.T) {
	t.Parallel()
	up, base := learntest.StartFake(t)
	c := llm.New(llm.Endpoint{BaseURL: base + "/v1", APIKey: "k", Model: "gpt-5.2"})
	if _, err := c.Complete(context.Background(), "s", "u", llm.Options{Temperature: 0.7, MaxTokens: 100}); err != nil {
		t.Fatal(err)
	}
	body := decode(t, up.Requests()[0].Body)
	if _, ok := body["temperature"]; ok {
		t.Error("temperature sent to a reasoning model")
	}
	if _, ok := body["max_tokens"]; ok {
		t.Error("max_tokens sent to a reasoning model")
	}
	if body["max_completion_tokens"] != 400.0 {
		t.Errorf("max_completion_tokens = %v", body["max_completion_tokens"])
	}
}

func TestCompleteRetries(t *testing.T) {
	t.Parallel()
	up, base := learntest.StartFake(t)
	up.Enqueue(fakeupstream.Reply{Status: http.StatusTooManyRequests, RetryAfter: "0"})
	up.Enqueue(fakeupstream.ErrorReply(http.StatusBadGateway, "upstream down"))
	up.Enqueue(fakeupstream.TextReply("third time lucky"))
	c := llm.New(llm.Endpoint{BaseURL: base + "/v1", APIKey: "k", Model: "m"})
	got, err := c.Complete(context.Background(), "s", "u", llm.Options{})
	if err != nil || got != "third time lucky" {
		t.Fatalf("Complete = %q, %v", got, err)
	}
	if n := len(up.Requests()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
}

func TestCompleteGivesUpAfterTwoRetries(t *testing.T) {
	t.Parallel()
	up, base := learntest.StartFake(t)
	up.SetDefault(fakeupstream.ErrorReply(http.StatusServiceUnavailable, "overloaded"))
	c := llm.New(llm.Endpoint{BaseURL: base + "/v1", APIKey: "k", Model: "m"})
	if _, err := c.Complete(context.Background(), "s", "u", llm.Options{}); err == nil {
		t.Fatal("want an error")
	}
	if n := len(up.Requests()); n != 1+llm.MaxRetries {
		t.Errorf("%d requests, want %d", n, 1+llm.MaxRetries)
	}
}

func TestCompleteBadRequestIsNotRetried(t *testing.T) {
	t.Parallel()
	up, base := learntest.StartFake(t)
	up.SetDefault(fakeupstream.ErrorReply(http.StatusBadRequest, "bad"))
	c := llm.New(llm.Endpoint{BaseURL: base + "/v1", APIKey: "secret-key-123", Model: "m"})
	_, err := c.Complete(context.Background(), "s", "u", llm.Options{})
	if err == nil || strings.Contains(err.Error(), "secret-key-123") {
		t.Fatalf("err = %v", err)
	}
	if n := len(up.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestCompleteJSONFallback(t *testing.T) {
	t.Parallel()
	up, base := learntest.StartFake(t)
	up.Enqueue(fakeupstream.ErrorReply(http.StatusBadRequest, "response_format is not supported"))
	up.Enqueue(fakeupstream.TextReply(`{"a":1}`))
	c := llm.New(llm.Endpoint{BaseURL: base + "/v1", APIKey: "k", Model: "m"})
	if got, err := c.Complete(context.Background(), "s", "u", llm.Options{JSON: true}); err != nil || got != `{"a":1}` {
		t.Fatalf("Complete = %q, %v", got, err)
	}
	reqs := up.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if _, ok := decode(t, reqs[1].Body)["response_format"]; ok {
		t.Error("second try still sent response_format")
	}
}

func TestCompleteTimeout(t *testing.T) {
	t.Parallel()
	up, base := learntest.StartFake(t)
	up.SetDefault(fakeupstream.Reply{Hang: true})
	c := llm.New(llm.Endpoint{BaseURL: base + "/v1", APIKey: "k", Model: "m", Timeout: 50 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	if _, err := c.Complete(ctx, "s", "u", llm.Options{}); err == nil {
		t.Fatal("want a timeout error")
	}
	if time.Since(start) > 9*time.Second {
		t.Error("per-attempt timeout not applied")
	}
}

func TestCompleteEmpty(t *testing.T) {
	t.Parallel()
	up, base := learntest.StartFake(t)
	up.SetDefault(fakeupstream.TextReply("  "))
	c := llm.New(llm.Endpoint{BaseURL: base + "/v1", APIKey: "k", Model: "m"})
	if _, err := c.Complete(context.Background(), "s", "u", llm.Options{}); !errors.Is(err, llm.ErrEmpty) {
		t.Fatalf("err = %v, want ErrEmpty", err)
	}
}

// TestAnthropicFallback resolves the judge of an Anthropic-provider setup
// without a judge key: the client must talk to the fake's /v1/messages.
func TestAnthropicFallback(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-wrong") // must be ignored
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
	up, base := learntest.StartFake(t)
	up.Enqueue(fakeupstream.TextReply(`{"score": 1, "reason": "fine"}`))
	cfg := config.Config{LLM: config.LLM{Provider: "anthropic", APIBase: base + "/v1", APIKey: "ak-user", ModelID: "claude-sonnet-4-5"},
		RL: config.RL{PRMURL: "https://api.openai.com/v1", PRMModel: "gpt-5.2", PRMVotes: 3}}
	ep, err := llm.EndpointFor(cfg, llm.RoleJudge)
	if err != nil {
		t.Fatal(err)
	}
	got, err := llm.New(ep).Complete(context.Background(), "judge rules", "the turn", llm.Options{MaxTokens: 64, JSON: true})
	if err != nil || got != `{"score": 1, "reason": "fine"}` {
		t.Fatalf("Complete = %q, %v", got, err)
	}
	reqs := up.Requests()
	if len(reqs) != 1 || reqs[0].Path != "/v1/messages" {
		t.Fatalf("requests: %+v", reqs)
	}
	if k := reqs[0].Header.Get("X-Api-Key"); k != "ak-user" {
		t.Errorf("x-api-key = %q", k)
	}
	body := decode(t, reqs[0].Body)
	if body["model"] != "claude-sonnet-4-5" || body["max_tokens"] != 64.0 {
		t.Errorf("body = %v", body)
	}
	if p := learntest.PromptOf(reqs[0].Body); p.System != "judge rules" || p.User != "the turn" {
		t.Errorf("prompt = %+v", p)
	}
}

func TestEndpointFor(t *testing.T) {
	t.Parallel()
	upstream := config.LLM{Provider: "openrouter", APIBase: "https://openrouter.ai/api/v1", APIKey: "or-key", ModelID: "moonshotai/kimi-k2.5"}
	tests := []struct {
		name    string
		cfg     config.Config
		role    string
		want    llm.Endpoint
		wantErr bool
	}{
		{
			name: "judge with its own key",
			cfg:  config.Config{LLM: upstream, RL: config.RL{PRMURL: "https://api.openai.com/v1", PRMModel: "gpt-5.2", PRMAPIKey: "j-key"}},
			role: llm.RoleJudge,
			want: llm.Endpoint{API: "openai", BaseURL: "https://api.openai.com/v1", APIKey: "j-key", Model: "gpt-5.2"},
		},
		{
			name: "judge on anthropic host",
			cfg:  config.Config{LLM: upstream, RL: config.RL{PRMURL: "https://api.anthropic.com/v1", PRMModel: "claude-x", PRMAPIKey: "j"}},
			role: llm.RoleJudge,
			want: llm.Endpoint{API: "anthropic", BaseURL: "https://api.anthropic.com/v1", APIKey: "j", Model: "claude-x"},
		},
		{
			name: "judge falls back to llm",
			cfg:  config.Config{LLM: upstream, RL: config.RL{PRMURL: "https://api.openai.com/v1", PRMModel: "gpt-5.2"}},
			role: llm.RoleJudge,
			want: llm.Endpoint{API: "openai", BaseURL: "https://openrouter.ai/api/v1", APIKey: "or-key", Model: "moonshotai/kimi-k2.5",
				Headers: map[string]string{"HTTP-Referer": "https://github.com/metaclaw/metaclaw", "X-Title": "MetaClaw"}},
		},
		{
			name: "evolver key with llm base",
			cfg:  config.Config{LLM: upstream, RL: config.RL{EvolverAPIKey: "e-key", EvolverModel: "gpt-5.2"}},
			role: llm.RoleEvolver,
			want: llm.Endpoint{API: "openai", BaseURL: "https://openrouter.ai/api/v1", APIKey: "e-key", Model: "gpt-5.2"},
		},
		{
			name: "evolver falls back to llm",
			cfg:  config.Config{LLM: config.LLM{Provider: "anthropic", APIBase: "https://api.anthropic.com/v1", APIKey: "a", ModelID: "claude-x"}, RL: config.RL{EvolverModel: "gpt-5.2"}},
			role: llm.RoleEvolver,
			want: llm.Endpoint{API: "anthropic", BaseURL: "https://api.anthropic.com/v1", APIKey: "a", Model: "claude-x"},
		},
		{
			name:    "no key anywhere",
			cfg:     config.Config{LLM: config.LLM{Provider: "kimi", APIBase: "https://api.moonshot.cn/v1", ModelID: "kimi-k2.5"}},
			role:    llm.RoleJudge,
			want:    llm.Endpoint{API: "openai", BaseURL: "https://api.moonshot.cn/v1", Model: "kimi-k2.5"},
			wantErr: true,
		},
		{name: "unknown role", role: "teacher", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := llm.EndpointFor(tt.cfg, tt.role)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil && tt.role != "teacher" && !errors.Is(err, llm.ErrNotConfigured) {
				t.Errorf("err = %v, want ErrNotConfigured", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("endpoint (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReasoningModel(t *testing.T) {
	t.Parallel()
	for model, want := range map[string]bool{"gpt-5.2": true, "gpt-5": true, "o3-mini": true, "openai/o4-mini": true,
		"gpt-4o": false, "kimi-k2.5": false, "o1x": false, "claude-sonnet-4-5": false} {
		if got := llm.ReasoningModel(model); got != want {
			t.Errorf("ReasoningModel(%q) = %v, want %v", model, got, want)
		}
	}
}

func TestAnthropicRoot(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"https://api.anthropic.com/v1": "https://api.anthropic.com",
		"https://api.anthropic.com/v1/": "https://api.anthropic.com", "http://h:1": "http://h:1"} {
		if got := llm.AnthropicRoot(in); got != want {
			t.Errorf("AnthropicRoot(%q) = %q, want %q", in, got, want)
		}
	}
}
