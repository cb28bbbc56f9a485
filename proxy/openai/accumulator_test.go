package openai

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func feed(t *testing.T, a *Accumulator, chunks ...string) {
	t.Helper()
	for _, c := range chunks {
		if err := a.Add([]byte(c)); err != nil {
			t.Fatalf("Add(%s): %v", c, err)
		}
	}
}

func TestAccumulatorText(t *testing.T) {
	var a Accumulator
	feed(t, &a,
		`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":7,"model":"gpt-x","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"finish_reason":null}]}`,
		`{"id":"chatcmpl-1","created":7,"model":"gpt-x","choices":[{"index":0,"delta":{"reasoning_content":"think "},"finish_reason":null}]}`,
		`{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"reasoning":"more"},"finish_reason":null}]}`,
		`{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}`,
		`{"id":"chatcmpl-1","choices":[{"index":1,"delta":{"content":"IGNORED"},"finish_reason":null}]}`,
		`{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":null}]}`,
		`{"id":"chatcmpl-1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}`,
		`{"id":"chatcmpl-1","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":3,"total_tokens":13,"prompt_tokens_details":{"cached_tokens":4}}}`,
		`[DONE]`,
	)
	want := ChatCompletion{
		ID: "chatcmpl-1", Object: "chat.completion", Created: 7, Model: "gpt-x",
		Choices: []Choice{{Message: ResponseMessage{Role: "assistant", Content: StringPtr("Hello"), ReasoningContent: "think more"}, FinishReason: "stop"}},
		Usage:   &Usage{PromptTokens: 10, CompletionTokens: 3, TotalTokens: 13, PromptTokensDetails: &PromptTokensDetails{CachedTokens: 4}},
	}
	if diff := cmp.Diff(want, a.Completion()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if !a.Done() || a.Text() != "Hello" || a.Reasoning() != "think more" || a.FinishReason() != "stop" || a.Usage().CachedTokens() != 4 {
		t.Errorf("getters: done=%v text=%q reasoning=%q finish=%q", a.Done(), a.Text(), a.Reasoning(), a.FinishReason())
	}
}

func TestAccumulatorToolCalls(t *testing.T) {
	var a Accumulator
	feed(t, &a,
		`{"id":"c","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"second","arguments":""}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"first","arguments":"{\"x\""}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
	)
	want := ChatCompletion{
		ID: "c", Object: "chat.completion", Model: "m",
		Choices: []Choice{{Message: ResponseMessage{Role: "assistant", ToolCalls: []ToolCall{
			{ID: "call_a", Type: "function", Function: FunctionCall{Name: "first", Arguments: `{"x":1}`}},
			{ID: "call_b", Type: "function", Function: FunctionCall{Name: "second", Arguments: `{}`}},
		}}, FinishReason: "tool_calls"}},
	}
	if diff := cmp.Diff(want, a.Completion()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if a.Done() {
		t.Error("Done without [DONE]")
	}
}

func TestAccumulatorEmpty(t *testing.T) {
	var a Accumulator
	got := a.Completion()
	if got.Choices[0].Message.Content == nil || *got.Choices[0].Message.Content != "" || got.Choices[0].Message.Role != "assistant" {
		t.Errorf("got %+v", got)
	}
	if a.ToolCalls() != nil || a.Usage() != nil {
		t.Error("expected no tool calls or usage")
	}
}

func TestAccumulatorErrors(t *testing.T) {
	var a Accumulator
	feed(t, &a, `{"choices":[{"index":0,"delta":{"content":"x","refusal":"no"}}]}`)
	if err := a.Add([]byte(`{"choices":`)); err == nil || !strings.Contains(err.Error(), "decode chunk") {
		t.Errorf("err = %v", err)
	}
	err := a.Add([]byte(`{"error":{"message":"overloaded","type":"server_error","code":529}}`))
	var se *StreamError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want *StreamError", err)
	}
	if diff := cmp.Diff(StreamError{Type: "server_error", Code: "529", Message: "overloaded"}, *se); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if a.Text() != "x" {
		t.Error("errors must not reset state")
	}
	if c := a.Completion(); c.Choices[0].Message.Refusal == nil || *c.Choices[0].Message.Refusal != "no" {
		t.Errorf("refusal lost: %+v", c.Choices[0].Message)
	}
	for _, tt := range []struct {
		raw  string
		want StreamError
	}{
		{`"plain"`, StreamError{Message: "plain"}},
		{`{"message":"m","code":"rate"}`, StreamError{Message: "m", Code: "rate"}},
		{`42`, StreamError{Message: "42"}},
	} {
		if diff := cmp.Diff(tt.want, *parseStreamError(json.RawMessage(tt.raw))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.raw, diff)
		}
	}
}

func TestChunkMarshalLooksLikeOpenAI(t *testing.T) {
	chunk := ChatCompletionChunk{
		ID: "chatcmpl-1", Object: "chat.completion.chunk", Created: 1, Model: "m",
		Choices: []ChunkChoice{{Delta: Delta{ToolCalls: []ToolCallDelta{{Index: 0, ID: "call_1", Type: "function",
			Function: &FunctionCallDelta{Name: "f"}}}}}},
	}
	b, err := json.Marshal(chunk)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]},"finish_reason":null}]}`
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestReasoningText(t *testing.T) {
	if got := (Delta{ReasoningContent: StringPtr(""), Reasoning: StringPtr("r")}).ReasoningText(); got != "r" {
		t.Errorf("got %q", got)
	}
	if got := (ResponseMessage{Reasoning: "r"}).ReasoningText(); got != "r" {
		t.Errorf("got %q", got)
	}
	var u *Usage
	if u.CachedTokens() != 0 {
		t.Error("nil usage")
	}
}
