package transcript

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// agentBody is a coding agent's request deep in a session, about 50 KB: a
// long system prompt, then twenty rounds of ask, tool call and
// multi-line tool result, then the person's new words.
func agentBody() []byte {
	type obj = map[string]any
	msgs := []any{obj{"role": "system", "content": strings.Repeat("You are a coding agent; read before you edit.\n", 130)}}
	result := strings.Repeat("store/store.go:118: func (db *DB) RecordTurns(ctx context.Context, turns []*Turn) error {\n", 17)
	for i := range 20 {
		id := fmt.Sprintf("call_%02d", i)
		msgs = append(msgs, obj{"role": "user", "content": fmt.Sprintf("Step %d: find out why the job fails.", i)},
			obj{"role": "assistant", "content": "Let me look.", "tool_calls": []any{
				obj{"id": id, "type": "function", "function": obj{"name": "read", "arguments": `{"path":"store/store.go"}`}}}},
			obj{"role": "tool", "tool_call_id": id, "content": result})
	}
	msgs = append(msgs, obj{"role": "user", "content": "Now run the whole suite."})
	b, _ := json.Marshal(obj{"model": "m", "messages": msgs})
	return b
}

// BenchmarkDigest reads what memory extraction and skill evolution need
// of a request (DigestOf) and, for comparison, the whole conversation
// (Parse), which is what they read before.
func BenchmarkDigest(b *testing.B) {
	body := agentBody()
	b.Run("DigestOf", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			if d := DigestOf(body); d.Instruction == "" {
				b.Fatal("no instruction")
			}
		}
	})
	b.Run("Parse", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			msgs, err := Parse(body)
			if err != nil || Instruction(msgs) == "" {
				b.Fatal("no instruction", err)
			}
		}
	})
}
