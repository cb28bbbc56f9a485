package proxy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/metaclaw/metaclaw/proxy/learning"
)

func TestConversation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, api, body string
		want            []learning.Message
		wantErr         bool
	}{
		{name: "openai", api: "openai",
			body: `{"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{}"}}]},{"role":"tool","content":"file","tool_call_id":"c1"}]}`,
			want: []learning.Message{{Role: "system", Text: "s"}, {Role: "user", Text: "hi"}, {Role: "assistant"}, {Role: "tool", Text: "file"}}},
		// An Anthropic tool message carries its results' text, as an OpenAI
		// one does: retrieval reads a tool loop's latest failures.
		{name: "anthropic tool results count as tool", api: "anthropic",
			body: `{"model":"m","max_tokens":5,"system":[{"type":"text","text":"s"}],"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"Bash","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"out"}]}]}`,
			want: []learning.Message{{Role: "system", Text: "s"}, {Role: "user", Text: "go"}, {Role: "assistant"}, {Role: "tool", Text: "out"}}},
		{name: "unknown api", api: "gemini", body: `{}`, wantErr: true},
		{name: "bad json", api: "openai", body: `{`, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Conversation(tc.api, []byte(tc.body))
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("conversation (-want +got):\n%s", diff)
			}
		})
	}
}
