package anthropic

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// claudeCodeRequest returns a request shaped like the ones Claude Code
// sends deep in a session, about 58 KB: a system prompt in cached text
// blocks, tools, and 61 messages of prompts with system reminders,
// thinking, text and tool calls, and tool results as strings and blocks.
func claudeCodeRequest() []byte {
	type obj = map[string]any
	ephemeral := obj{"type": "ephemeral"}
	system := []any{
		obj{"type": "text", "text": "You are Claude Code, Anthropic's official CLI for Claude.", "cache_control": ephemeral},
		obj{"type": "text", "text": strings.Repeat("Follow the repository's conventions; run the tests before reporting.\n", 190), "cache_control": ephemeral},
	}
	result := strings.Repeat("store/store.go:118: func (db *DB) RecordTurns(ctx context.Context, turns []*Turn) error {\n", 20)
	msgs := []any{obj{"role": "user", "content": []any{
		obj{"type": "text", "text": "<system-reminder>\nAs you answer, use the context below.\n</system-reminder>"},
		obj{"type": "text", "text": "The CI job \"unit\" fails with `database is locked`. Can you find out why?"},
	}}}
	for i := range 20 {
		id := fmt.Sprintf("toolu_%02d", i)
		toolResult := obj{"type": "tool_result", "tool_use_id": id, "content": result}
		if i%4 == 3 {
			toolResult = obj{"type": "tool_result", "tool_use_id": id, "is_error": true,
				"content": []any{obj{"type": "text", "text": "Exit code 1\n" + result[:400]}}}
		}
		if i == 19 {
			toolResult["cache_control"] = ephemeral
		}
		msgs = append(msgs,
			obj{"role": "user", "content": fmt.Sprintf("Step %d: now check the caller of RecordTurns.", i)},
			obj{"role": "assistant", "content": []any{
				obj{"type": "thinking", "thinking": fmt.Sprintf("Step %d: the lock comes from a second connection; look at the store.", i), "signature": "EqQBCkgIARABGAIiQL" + strings.Repeat("x", 60)},
				obj{"type": "text", "text": "Let me look at the code."},
				obj{"type": "tool_use", "id": id, "name": "Grep", "input": obj{"path": "store/store.go", "pattern": "RecordTurns", "limit": 20}},
			}},
			obj{"role": "user", "content": []any{toolResult}},
		)
		if i%2 == 1 {
			msgs = append(msgs[:len(msgs)-1], obj{"role": "user", "content": []any{toolResult,
				obj{"type": "text", "text": "<system-reminder>The user opened store/store.go.</system-reminder>"}}})
		}
	}
	var tools []any
	for i := range 12 {
		tools = append(tools, obj{"name": fmt.Sprintf("Tool%d", i), "description": "Reads, searches or edits files in the user's repository.",
			"input_schema": obj{"type": "object", "properties": obj{"path": obj{"type": "string", "description": "File path."}}}})
	}
	req := obj{"model": "claude-sonnet-4-5", "max_tokens": 32000, "stream": true, "system": system, "tools": tools,
		"metadata": obj{"user_id": "user_abc"}, "messages": msgs}
	b, err := json.Marshal(req)
	if err != nil {
		panic(err)
	}
	return b
}

// BenchmarkMessagesLarge measures decoding the messages of a Claude Code
// request (Messages, for truncation and translation) and reading its
// conversation with gjson (Conversation, on every request):
//
//	go test -run '^$' -bench BenchmarkMessagesLarge -count 3 ./proxy/anthropic/
func BenchmarkMessagesLarge(b *testing.B) {
	body := claudeCodeRequest()
	r, err := ParseMessagesRequest(body)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("request: %d bytes", len(body))
	for _, bm := range []struct {
		name string
		run  func() error
	}{
		{"decode", func() error { _, err := r.decodeMessages(); return err }},
		{"conversation", func() error { _, err := r.Conversation(); return err }},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := bm.run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
