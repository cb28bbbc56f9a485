// Package learntest holds test helpers shared by the learner's packages: a
// real SQLite database in t.TempDir(), the fake LLM upstream on 127.0.0.1,
// builders for stored turns in either wire format, and readers for the
// prompts the fake received. Only tests import it.
package learntest

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/store"
)

// OpenDB opens a fresh database in a temporary directory.
func OpenDB(t testing.TB) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "metaclaw.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// StartFake starts a fake upstream and returns it with its base URL
// ("http://127.0.0.1:PORT"; OpenAI clients add /v1).
func StartFake(t testing.TB) (*fakeupstream.Server, string) {
	t.Helper()
	up := fakeupstream.New()
	base, err := up.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { up.Close() })
	return up, base
}

// Msg is a message for the request builders. Role "tool" is a tool result;
// an assistant message with Tool set makes a tool call.
type Msg struct {
	Role, Text, Tool string
}

// OpenAIRequest builds an OpenAI chat request body.
func OpenAIRequest(msgs ...Msg) []byte {
	var out []map[string]any
	for i, m := range msgs {
		switch {
		case m.Role == "assistant" && m.Tool != "":
			out = append(out, map[string]any{"role": "assistant", "content": m.Text, "tool_calls": []any{map[string]any{
				"id": callID(i), "type": "function", "function": map[string]any{"name": m.Tool, "arguments": "{}"}}}})
		case m.Role == "tool":
			out = append(out, map[string]any{"role": "tool", "tool_call_id": callID(i - 1), "content": m.Text})
		default:
			out = append(out, map[string]any{"role": m.Role, "content": m.Text})
		}
	}
	b, _ := json.Marshal(map[string]any{"model": "agent-model", "messages": out})
	return b
}

// AnthropicRequest builds an Anthropic messages request body; a "system"
// message becomes the top-level system prompt.
func AnthropicRequest(msgs ...Msg) []byte {
	req := map[string]any{"model": "claude-x", "max_tokens": 1024}
	var out []map[string]any
	for i, m := range msgs {
		switch {
		case m.Role == "system":
			req["system"] = m.Text
		case m.Role == "assistant" && m.Tool != "":
			out = append(out, map[string]any{"role": "assistant", "content": []any{
				map[string]any{"type": "text", "text": m.Text},
				map[string]any{"type": "tool_use", "id": callID(i), "name": m.Tool, "input": map[string]any{}}}})
		case m.Role == "tool":
			out = append(out, map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "tool_result", "tool_use_id": callID(i - 1), "content": m.Text}}})
		default:
			out = append(out, map[string]any{"role": m.Role, "content": m.Text})
		}
	}
	req["messages"] = out
	b, _ := json.Marshal(req)
	return b
}

func callID(i int) string { return "call_" + string(rune('a'+i%26)) }

// Record stores turns (in order) and returns them with their ids.
func Record(t testing.TB, db *store.DB, turns ...store.Turn) []store.Turn {
	t.Helper()
	ptrs := make([]*store.Turn, len(turns))
	for i := range turns {
		if turns[i].Status == 0 {
			turns[i].Status = 200
		}
		ptrs[i] = &turns[i]
	}
	if err := db.RecordTurns(context.Background(), ptrs); err != nil {
		t.Fatal(err)
	}
	return turns
}

// Prompt is the system and user text of a request the fake received.
type Prompt struct {
	System, User string
}

// PromptOf reads the system and user text of an OpenAI chat or Anthropic
// messages request sent by the learner.
func PromptOf(body []byte) Prompt {
	var req struct {
		System   json.RawMessage `json:"system"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(body, &req)
	var p Prompt
	if len(req.System) > 0 {
		p.System = text(req.System)
	}
	for _, m := range req.Messages {
		switch m.Role {
		case "system", "developer":
			p.System = text(m.Content)
		case "user":
			p.User = text(m.Content)
		}
	}
	return p
}

// text reads a string or an array of text parts/blocks.
func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var out []string
	for _, p := range parts {
		out = append(out, p.Text)
	}
	return strings.Join(out, "\n")
}

// Bodies returns the bodies of every request the fake received, as text.
func Bodies(up *fakeupstream.Server) []string {
	var out []string
	for _, r := range up.Requests() {
		out = append(out, string(r.Body))
	}
	return out
}
