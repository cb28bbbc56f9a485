package openai

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// agentRequest returns a request the size coding agents send deep in a
// session: a 16 KB system prompt, 12 tools and 61 messages of tool calls
// and multi-line tool results, about 58 KB.
func agentRequest() []byte {
	type obj = map[string]any
	system := strings.Repeat("You are a coding agent working in the user's repository; read before you edit.\n", 200)
	var tools []any
	for i := range 12 {
		tools = append(tools, obj{"type": "function", "function": obj{"name": fmt.Sprintf("tool_%d", i),
			"description": "Reads, searches or edits files in the user's repository; returns the result as text.",
			"parameters":  obj{"type": "object", "properties": obj{"path": obj{"type": "string"}}, "required": []string{"path"}}}})
	}
	result := strings.Repeat("store/store.go:118: func (db *DB) RecordTurns(ctx context.Context, turns []*Turn) error {\n", 16)
	msgs := []any{obj{"role": "system", "content": system}}
	for i := range 20 {
		id := fmt.Sprintf("call_%02d", i)
		msgs = append(msgs,
			obj{"role": "user", "content": fmt.Sprintf("Step %d: the CI job \"unit\" fails with `database is locked`; find out why.", i)},
			obj{"role": "assistant", "content": "Let me look at the code.", "tool_calls": []any{
				obj{"id": id, "type": "function", "function": obj{"name": "tool_1", "arguments": `{"path":"store/store.go"}`}}}},
			obj{"role": "tool", "tool_call_id": id, "content": result})
	}
	msgs = append(msgs, obj{"role": "user", "content": "Now run the whole suite with the race detector."})
	b, err := json.Marshal(obj{"model": "m", "stream": true, "messages": msgs, "tools": tools})
	if err != nil {
		panic(err)
	}
	return b
}

// BenchmarkHandleAgentRequest does to an agent-sized request what the
// proxy's handler does on every turn: parse and check it, read the
// conversation, inject text into the system prompt and encode it again.
func BenchmarkHandleAgentRequest(b *testing.B) {
	body := agentRequest()
	inject := strings.Repeat("- **Reproduce before fixing**: run the failing test alone.\n", 20)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := ParseChatRequest(body)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.Conversation(); err != nil {
			b.Fatal(err)
		}
		if err := r.InjectSystem(inject); err != nil {
			b.Fatal(err)
		}
		if _, err := r.Marshal(); err != nil {
			b.Fatal(err)
		}
	}
}
