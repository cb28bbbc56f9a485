package proxy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/metaclaw/metaclaw/proxy/openai"
)

// TestFromOpenAIBody checks what a chat completion records: its first
// choice's text, reasoning, finish reason and tool calls and the usage;
// a body that does not decode records nothing.
func TestFromOpenAIBody(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body string
		want       response
	}{
		{"full", `{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"hi \"you\"","reasoning_content":"r",` +
			`"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}],` +
			`"usage":{"prompt_tokens":12,"completion_tokens":3}}`,
			response{text: `hi "you"`, reasoning: "r", finish: "tool_calls", promptTokens: 12, outTokens: 3,
				toolCalls: []openai.ToolCall{{ID: "c1", Type: "function", Function: openai.FunctionCall{Name: "f", Arguments: "{}"}}}}},
		{"reasoning member", `{"choices":[{"message":{"content":null,"reasoning":"think"},"finish_reason":"stop"}]}`,
			response{reasoning: "think", finish: "stop"}},
		{"no choices", `{"choices":[],"usage":{"prompt_tokens":1}}`, response{}},
		{"wrong type", `{"choices":[{"message":{"content":5}}]}`, response{}},
		{"not json", `not json`, response{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := fromOpenAIBody([]byte(tc.body))
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(response{})); diff != "" {
				t.Error(diff)
			}
		})
	}
}
