package anthropic

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAccumulatorNativeStream(t *testing.T) {
	events := [][2]string{
		{"message_start", `{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"cache_read_input_tokens":100,"output_tokens":1}}}`},
		{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`},
		{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}`},
		{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"SIG"}}`},
		{"content_block_stop", `{"type":"content_block_stop","index":0}`},
		{"ping", `{"type": "ping"}`},
		{"content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`},
		{"content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hi "}}`},
		{"content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"there"}}`},
		{"content_block_stop", `{"type":"content_block_stop","index":1}`},
		{"content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"get","input":{}}}`},
		{"content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}`},
		{"content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"a\": "}}`},
		{"content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"1}"}}`},
		{"content_block_stop", `{"type":"content_block_stop","index":2}`},
		{"content_block_start", `{"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_2","name":"noargs","input":{}}}`},
		{"content_block_stop", `{"type":"content_block_stop","index":3}`},
		{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":42}}`},
		{"message_stop", `{"type":"message_stop"}`},
	}
	var acc Accumulator
	for _, ev := range events {
		if err := acc.Add(ev[0], []byte(ev[1])); err != nil {
			t.Fatalf("Add(%s): %v", ev[1], err)
		}
	}
	stop := "tool_use"
	want := MessagesResponse{
		ID: "msg_01", Type: "message", Role: "assistant", Model: "claude-sonnet",
		Content: []Block{
			{Type: "thinking", Thinking: "hmm", Signature: "SIG"},
			{Type: "text", Text: "Hi there"},
			{Type: "tool_use", ID: "toolu_1", Name: "get", Input: json.RawMessage(`{"a":1}`)},
			{Type: "tool_use", ID: "toolu_2", Name: "noargs", Input: json.RawMessage(`{}`)},
		},
		StopReason: &stop,
		Usage:      Usage{InputTokens: 25, OutputTokens: 42, CacheReadInputTokens: 100},
	}
	if diff := cmp.Diff(want, acc.Message()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if !acc.Done() {
		t.Error("not done")
	}
	if got := want.Text(); got != "Hi there" {
		t.Errorf("Text() = %q", got)
	}
}

func TestAccumulatorErrors(t *testing.T) {
	var acc Accumulator
	if err := acc.Add("", []byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}`)); err == nil {
		t.Error("delta before start accepted")
	}
	if err := acc.Add("", []byte(`{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`)); err == nil {
		t.Error("non-consecutive start accepted")
	}
	if err := acc.Add("", []byte(`{"type":"content_block_start","index":0}`)); err == nil {
		t.Error("start without block accepted")
	}
	if err := acc.Add("x", []byte(`{`)); err == nil {
		t.Error("bad JSON accepted")
	}
	if err := acc.Add("", []byte(`{"type":"message_delta","delta":5}`)); err == nil {
		t.Error("bad message_delta accepted")
	}
	// The event name is used when the payload has no type.
	if err := acc.Add("content_block_start", []byte(`{"index":0,"content_block":{"type":"tool_use","id":"t","name":"n","input":{}}}`)); err != nil {
		t.Fatal(err)
	}
	if err := acc.Add("", []byte(`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"cut"}}`)); err != nil {
		t.Fatal(err)
	}
	if got := string(acc.Message().Content[0].Input); got != `{"_raw":"{\"cut"}` {
		t.Errorf("cut-off input = %s", got)
	}
	err := acc.Add("error", []byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
	var se *StreamError
	if !errors.As(err, &se) || *se != (StreamError{Type: "overloaded_error", Message: "Overloaded"}) {
		t.Errorf("err = %v", err)
	}
	if se.Error() != "stream error: overloaded_error: Overloaded" {
		t.Errorf("Error() = %q", se.Error())
	}
	if got := parseStreamError([]byte(`x`)); got.Type != ErrAPI {
		t.Errorf("got %+v", got)
	}
}
