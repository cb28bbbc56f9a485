package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func FuzzParseChatRequest(f *testing.F) {
	f.Add([]byte(`{"model":"m","messages":[{"role":"user","content":"hi"}],"x":1}`))
	f.Add([]byte(`{"messages":[{"role":"system","content":[{"type":"text","text":"a"}]}],"stream":true,"stream_options":{"include_usage":true}}`))
	f.Add([]byte(`{"messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"1","function":{"name":"f","arguments":"{}"}}]}]}`))
	f.Add([]byte(`{"messages":[],"messages":[{"role":"u"}]}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := ParseChatRequest(body)
		if err != nil {
			var re *RequestError
			if !errors.As(err, &re) || re.Status != 400 || !json.Valid(re.Body()) {
				t.Fatalf("bad error %v", err)
			}
			return
		}
		out, err := r.Marshal()
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		checkSameMembers(t, body, out)
		r2, err := ParseChatRequest(out)
		if err != nil {
			t.Fatalf("re-parse of %s: %v", out, err)
		}
		// Modifications never produce invalid JSON and keep other members.
		r2.SetModel("m")
		r2.DeleteField("session_id")
		if msgs, err := r2.Messages(); err == nil {
			if err := r2.SetMessages(msgs); err != nil {
				t.Fatalf("SetMessages: %v", err)
			}
			if err := r2.InjectSystem("memory"); err != nil {
				t.Fatalf("InjectSystem: %v", err)
			}
		}
		out2, _ := r2.Marshal()
		if _, err := ParseChatRequest(out2); err != nil {
			t.Fatalf("modified request invalid: %v\n%s", err, out2)
		}
	})
}

// checkSameMembers verifies that out decodes to the same value as in.
func checkSameMembers(t *testing.T, in, out []byte) {
	t.Helper()
	var a, b map[string]any
	if err := json.Unmarshal(in, &a); err != nil {
		t.Fatalf("input: %v", err)
	}
	if err := json.Unmarshal(out, &b); err != nil {
		t.Fatalf("output %s: %v", out, err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("round trip changed members:\n in %s\nout %s", in, out)
	}
}

func FuzzAccumulator(f *testing.F) {
	f.Add([]byte(`{"choices":[{"index":0,"delta":{"content":"a"}}]}`+"\n"+`[DONE]`), "hello world", 3)
	f.Add([]byte(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":2,"function":{"arguments":"{"}}]}}]}`), "", 1)
	f.Add([]byte(`{"error":"x"}`+"\n"+`{"usage":{"prompt_tokens":1}}`), "ü\x00\"", 0)
	f.Fuzz(func(t *testing.T, raw []byte, text string, pieces int) {
		var a Accumulator
		for line := range bytes.SplitSeq(raw, []byte("\n")) {
			_ = a.Add(line) // arbitrary input must never panic
		}
		_ = a.Completion()

		// Content split into chunks is reassembled exactly.
		var b Accumulator
		text = strings.ToValidUTF8(text, "?")
		frags := split(text, pieces)
		for i, frag := range frags {
			chunk := ChatCompletionChunk{ID: "x", Choices: []ChunkChoice{{Delta: Delta{
				Content:   StringPtr(frag),
				ToolCalls: []ToolCallDelta{{Index: i % 2, Function: &FunctionCallDelta{Arguments: frag}}},
			}}}}
			data, err := json.Marshal(chunk)
			if err != nil {
				t.Fatal(err)
			}
			if err := b.Add(data); err != nil {
				t.Fatalf("Add: %v", err)
			}
		}
		if b.Text() != text {
			t.Fatalf("text = %q, want %q", b.Text(), text)
		}
		var args strings.Builder
		for _, c := range b.ToolCalls() {
			args.WriteString(c.Function.Arguments)
		}
		if len(frags) > 0 && args.Len() != len(text) {
			t.Fatalf("arguments lost: %d != %d", args.Len(), len(text))
		}
	})
}

// split cuts s into roughly n pieces on byte boundaries that keep UTF-8.
func split(s string, n int) []string {
	if n <= 0 {
		n = 1
	}
	n = min(n, 64)
	size := max(len(s)/n, 1)
	var out []string
	for len(s) > 0 {
		end := min(size, len(s))
		for end < len(s) && !utf8Start(s[end]) {
			end++
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
