package anthropic_test

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/metaclaw/metaclaw/proxy/anthropic"
	"github.com/metaclaw/metaclaw/proxy/sse"
)

// TestStreamAgainstSDK checks translated streams with the official SDK's
// own accumulator, which validates event order and block indexes.
func TestStreamAgainstSDK(t *testing.T) {
	c := func(delta string) string {
		return `{"id":"chatcmpl-9","model":"gpt-4o","choices":[{"index":0,"delta":` + delta + `,"finish_reason":null}]}`
	}
	chunks := []string{
		c(`{"role":"assistant","reasoning_content":"hmm"}`),
		c(`{"content":"Checking."}`),
		c(`{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"a","arguments":"{\"x\""}}]}`),
		c(`{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"b","arguments":"{}"}}]}`),
		c(`{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]}`),
		`{"id":"chatcmpl-9","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		`{"id":"chatcmpl-9","choices":[],"usage":{"prompt_tokens":30,"completion_tokens":9,"total_tokens":39,"prompt_tokens_details":{"cached_tokens":10}}}`,
		`[DONE]`,
	}
	tr := anthropic.NewStreamTranslator("claude-x")
	var out []byte
	for _, ch := range chunks {
		b, err := tr.Chunk([]byte(ch))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b...)
	}
	var msg sdk.Message
	r := sse.NewReader(bytes.NewReader(out))
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		var u sdk.MessageStreamEventUnion
		if err := json.Unmarshal(ev.Data, &u); err != nil {
			t.Fatalf("SDK rejects %s: %v", ev.Data, err)
		}
		if err := msg.Accumulate(u); err != nil {
			t.Fatalf("SDK Accumulate(%s): %v", ev.Data, err)
		}
	}
	if msg.ID != "msg_9" || msg.Model != "claude-x" || msg.StopReason != sdk.StopReasonToolUse {
		t.Errorf("message: id=%s model=%s stop=%s", msg.ID, msg.Model, msg.StopReason)
	}
	if msg.Usage.InputTokens != 20 || msg.Usage.OutputTokens != 9 || msg.Usage.CacheReadInputTokens != 10 {
		t.Errorf("usage: %+v", msg.Usage)
	}
	if len(msg.Content) != 4 {
		t.Fatalf("got %d blocks", len(msg.Content))
	}
	got := []string{msg.Content[0].Thinking, msg.Content[1].Text, string(msg.Content[2].Input), string(msg.Content[3].Input)}
	want := []string{"hmm", "Checking.", `{"x":1}`, `{}`}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("block %d = %q, want %q", i, got[i], want[i])
		}
	}
}

// TestFromOpenAIAgainstSDK decodes a translated response with the SDK.
func TestFromOpenAIAgainstSDK(t *testing.T) {
	resp := `{"id":"chatcmpl-1","model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"Hi",
		"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\":[1]}"}}]},"finish_reason":"tool_calls"}],
		"usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8}}`
	b, err := anthropic.FromOpenAI([]byte(resp), "claude-x")
	if err != nil {
		t.Fatal(err)
	}
	var msg sdk.Message
	if err := json.Unmarshal(b, &msg); err != nil {
		t.Fatal(err)
	}
	if msg.StopReason != sdk.StopReasonToolUse || len(msg.Content) != 2 || msg.Content[0].Text != "Hi" ||
		msg.Content[1].Name != "f" || string(msg.Content[1].Input) != `{"a":[1]}` || msg.Usage.OutputTokens != 3 {
		t.Errorf("SDK view: %s", b)
	}
}
