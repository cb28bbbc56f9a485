package proxy_test

// BenchmarkLargeRequest measures what the proxy adds to the requests real
// agents send, which are far larger than BenchmarkProxy's: a coding agent
// deep in a session sends a long system prompt, a dozen tool definitions
// and dozens of tool calls and results, about 60 KB of JSON, on every
// turn. The same conversation is sent in OpenAI's shape (as OpenClaw
// does) and in Anthropic's (as Claude Code does), to an upstream of the
// same API and, translated by the proxy, to an OpenAI-style one ("direct"
// then sends the upstream's shape); straight to the fake and through the
// proxy (recording and injection on), one client at a time. Compare
// p50-us of direct and proxy:
//
//	go test -run '^$' -bench '^BenchmarkLargeRequest$' -benchtime 2000x -count 3 ./proxy/

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// largeConversation returns the system prompt, tools and messages of a
// long agent session, in OpenAI's (anthropic false) or Anthropic's shape.
func largeConversation(anthropic bool) []byte {
	system := strings.Repeat(benchSystem+"\n", 20) // about 16 KB
	type schema = map[string]any
	var tools []any
	for i := range 12 {
		params := schema{"type": "object", "properties": schema{
			"path":    schema{"type": "string", "description": "File path relative to the repository root."},
			"pattern": schema{"type": "string", "description": "A regular expression to look for in the files."},
			"limit":   schema{"type": "integer", "description": "How many results to return at most."},
		}, "required": []string{"path"}}
		name, desc := fmt.Sprintf("tool_%d", i), "Reads, searches or edits files in the user's repository; returns the result as text."
		if anthropic {
			tools = append(tools, schema{"name": name, "description": desc, "input_schema": params})
		} else {
			tools = append(tools, schema{"type": "function", "function": schema{"name": name, "description": desc, "parameters": params}})
		}
	}
	result := strings.Repeat("store/store.go:118: func (db *DB) RecordTurns(ctx context.Context, turns []*Turn) error {\n", 16)
	var msgs []any
	if !anthropic {
		msgs = append(msgs, schema{"role": "system", "content": system})
	}
	for i := range 20 {
		ask := fmt.Sprintf("Step %d: %s", i, benchMessages[1].content)
		id := fmt.Sprintf("call_%02d", i)
		args := `{"path":"store/store.go","pattern":"RecordTurns","limit":20}`
		if anthropic {
			msgs = append(msgs,
				schema{"role": "user", "content": ask},
				schema{"role": "assistant", "content": []any{
					schema{"type": "text", "text": "Let me look at the code."},
					schema{"type": "tool_use", "id": id, "name": "tool_1", "input": json.RawMessage(args)}}},
				schema{"role": "user", "content": []any{schema{"type": "tool_result", "tool_use_id": id, "content": result}}})
		} else {
			msgs = append(msgs,
				schema{"role": "user", "content": ask},
				schema{"role": "assistant", "content": "Let me look at the code.", "tool_calls": []any{
					schema{"id": id, "type": "function", "function": schema{"name": "tool_1", "arguments": args}}}},
				schema{"role": "tool", "tool_call_id": id, "content": result})
		}
	}
	msgs = append(msgs, schema{"role": "user", "content": benchMessages[5].content})
	req := schema{"model": "fake-model", "max_tokens": 1024, "messages": msgs, "tools": tools}
	if anthropic {
		req["system"] = system
	}
	b, err := json.Marshal(req)
	if err != nil {
		panic(err)
	}
	return b
}

func BenchmarkLargeRequest(b *testing.B) {
	for _, api := range []string{"openai", "anthropic", "anthropic-to-openai"} {
		body := largeConversation(api != "openai")
		path := "/v1/chat/completions"
		if api != "openai" {
			path = "/v1/messages"
		}
		b.Run(api, func(b *testing.B) {
			b.Logf("%s request: %d bytes", api, len(body))
			_, upBase := startBenchUpstream(b)
			b.Run("direct", func(b *testing.B) {
				direct, directBody := path, body
				if api == "anthropic-to-openai" { // the same conversation in the upstream's shape
					direct, directBody = "/v1/chat/completions", largeConversation(false)
				}
				benchLoad(b, benchTarget{url: upBase + direct, client: benchClient(b), body: directBody}, 1, false)
			})
			provider := "custom"
			if api == "anthropic" {
				provider = "anthropic"
			}
			base, _ := startBenchProxyFor(b, upBase, provider)
			b.Run("proxy", func(b *testing.B) {
				benchLoad(b, benchTarget{url: base + path, client: benchClient(b), body: body}, 1, false)
			})
		})
	}
}
