package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/metaclaw/metaclaw/proxy/sse"
)

// parseEvents splits translator output into events and checks the
// protocol: every payload is a JSON object whose type matches the event
// name; message_start comes first (unless the stream is only an error);
// block indexes start at 0 and are consecutive; deltas and stops address
// the single open block; message_delta follows the last stop; nothing
// follows message_stop or error.
func parseEvents(t testing.TB, out []byte) []sse.Event {
	t.Helper()
	r := sse.NewReader(bytes.NewReader(out))
	var evs []sse.Event
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("sse: %v", err)
		}
		evs = append(evs, ev)
	}
	if err := checkProtocol(evs); err != nil {
		t.Fatalf("%v\nstream:\n%s", err, out)
	}
	return evs
}

func checkProtocol(evs []sse.Event) error {
	st := protoState{open: -1}
	for i, ev := range evs {
		var p eventPayload
		if err := json.Unmarshal(ev.Data, &p); err != nil {
			return fmt.Errorf("event %d (%s): invalid JSON: %v", i, ev.Event, err)
		}
		if p.Type != ev.Event {
			return fmt.Errorf("event %d: name %q but type %q", i, ev.Event, p.Type)
		}
		if st.ended {
			return fmt.Errorf("event %d (%s) after end of stream", i, ev.Event)
		}
		if err := st.step(i, ev.Event, p); err != nil {
			return err
		}
	}
	return nil
}

type eventPayload struct {
	Type         string          `json:"type"`
	Index        *int            `json:"index"`
	ContentBlock *Block          `json:"content_block"`
	Delta        json.RawMessage `json:"delta"`
}

type protoState struct {
	started, ended, delta bool
	next, open            int
	openType              string
}

var deltaFor = map[string]string{"text": "text_delta", "thinking": "thinking_delta", "tool_use": "input_json_delta"}

func (s *protoState) step(i int, name string, p eventPayload) error {
	if name == "error" {
		s.ended = true
		return nil
	}
	if !s.started && name != "message_start" {
		return fmt.Errorf("event %d (%s) before message_start", i, name)
	}
	if name != "message_start" && name != "message_stop" && name != "message_delta" && p.Index == nil {
		return fmt.Errorf("event %d (%s) without index", i, name)
	}
	switch name {
	case "message_start":
		if s.started {
			return fmt.Errorf("event %d: second message_start", i)
		}
		s.started = true
	case "content_block_start":
		if s.open >= 0 || *p.Index != s.next || p.ContentBlock == nil || s.delta {
			return fmt.Errorf("event %d: bad content_block_start index %d (next %d, open %d)", i, *p.Index, s.next, s.open)
		}
		s.open, s.openType = s.next, p.ContentBlock.Type
		s.next++
	case "content_block_delta":
		var d struct{ Type string }
		if *p.Index != s.open || json.Unmarshal(p.Delta, &d) != nil || d.Type != deltaFor[s.openType] {
			return fmt.Errorf("event %d: delta for index %d (open %d, %s)", i, *p.Index, s.open, p.Delta)
		}
	case "content_block_stop":
		if *p.Index != s.open {
			return fmt.Errorf("event %d: stop for index %d, open %d", i, *p.Index, s.open)
		}
		s.open = -1
	case "message_delta":
		if s.open >= 0 || s.delta {
			return fmt.Errorf("event %d: message_delta with open block or twice", i)
		}
		s.delta = true
	case "message_stop":
		if !s.delta {
			return fmt.Errorf("event %d: message_stop without message_delta", i)
		}
		s.ended = true
	default:
		return fmt.Errorf("event %d: unexpected event %q", i, name)
	}
	return nil
}

// run feeds chunks (and optionally Finish) and returns all output.
func run(t *testing.T, tr *StreamTranslator, chunks []string, finish bool) []byte {
	t.Helper()
	var out []byte
	for _, c := range chunks {
		b, err := tr.Chunk([]byte(c))
		if err != nil {
			t.Fatalf("Chunk(%s): %v", c, err)
		}
		out = append(out, b...)
	}
	if finish {
		out = append(out, tr.Finish()...)
	}
	return out
}

// summary renders events compactly: name plus data.
func summary(evs []sse.Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.Event + " " + string(ev.Data)
	}
	return out
}

func chunk(delta string) string {
	return `{"id":"chatcmpl-1","model":"gpt-4o","choices":[{"index":0,"delta":` + delta + `,"finish_reason":null}]}`
}

func finishChunk(reason string) string {
	return `{"id":"chatcmpl-1","model":"gpt-4o","choices":[{"index":0,"delta":{},"finish_reason":"` + reason + `"}]}`
}

const usageChunk = `{"id":"chatcmpl-1","model":"gpt-4o","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":5,"total_tokens":17,"prompt_tokens_details":{"cached_tokens":2}}}`

const msgStart = `message_start {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}}`

func TestStreamTranslatorTextOnly(t *testing.T) {
	tr := NewStreamTranslator("claude-x")
	out := run(t, tr, []string{
		chunk(`{"role":"assistant","content":""}`),
		chunk(`{"content":"Hel"}`),
		chunk(`{"content":"lo"}`),
		finishChunk("stop"),
		usageChunk,
		"[DONE]",
	}, false)
	want := []string{
		msgStart,
		`content_block_start {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`content_block_delta {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}`,
		`content_block_delta {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lo"}}`,
		`content_block_stop {"type":"content_block_stop","index":0}`,
		`message_delta {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":2}}`,
		`message_stop {"type":"message_stop"}`,
	}
	if diff := cmp.Diff(want, summary(parseEvents(t, out))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if more := tr.Finish(); more != nil {
		t.Errorf("Finish after [DONE] = %s", more)
	}
	if more, err := tr.Chunk([]byte(chunk(`{"content":"late"}`))); more != nil || err != nil {
		t.Errorf("Chunk after end = %s, %v", more, err)
	}
}

func TestStreamTranslatorTextThenInterleavedTools(t *testing.T) {
	tr := NewStreamTranslator("claude-x")
	out := run(t, tr, []string{
		chunk(`{"role":"assistant","content":"Let me check."}`),
		chunk(`{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":""}}]}`),
		chunk(`{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"get_time","arguments":"{\"tz\":"}}]}`),
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]}`),
		chunk(`{"tool_calls":[{"index":1,"function":{"arguments":"\"UTC\"}"}}]}`),
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]}`),
		finishChunk("tool_calls"),
		usageChunk,
		"[DONE]",
	}, false)
	want := []string{
		msgStart,
		`content_block_start {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`content_block_delta {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Let me check."}}`,
		`content_block_stop {"type":"content_block_stop","index":0}`,
		`content_block_start {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"call_a","name":"get_weather","input":{}}}`,
		`content_block_delta {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"city\":"}}`,
		`content_block_delta {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"Paris\"}"}}`,
		`content_block_stop {"type":"content_block_stop","index":1}`,
		`content_block_start {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"call_b","name":"get_time","input":{}}}`,
		`content_block_delta {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"tz\":\"UTC\"}"}}`,
		`content_block_stop {"type":"content_block_stop","index":2}`,
		`message_delta {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":2}}`,
		`message_stop {"type":"message_stop"}`,
	}
	if diff := cmp.Diff(want, summary(parseEvents(t, out))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	var acc Accumulator
	feedAccumulator(t, &acc, out)
	msg := acc.Message()
	if len(msg.Content) != 3 || string(msg.Content[1].Input) != `{"city":"Paris"}` || string(msg.Content[2].Input) != `{"tz":"UTC"}` {
		t.Errorf("accumulated: %+v", msg.Content)
	}
}

func TestStreamTranslatorSequentialTools(t *testing.T) {
	tr := NewStreamTranslator("claude-x")
	out := run(t, tr, []string{
		chunk(`{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{}"}}]}`),
		chunk(`{"tool_calls":[{"index":1,"id":"b","function":{"name":"g","arguments":"{\"x\""}}]}`),
		chunk(`{"tool_calls":[{"index":1,"function":{"arguments":":1}"}}]}`),
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"  "}}]}`), // late fragment for a closed tool
		finishChunk("tool_calls"),
	}, true)
	want := []string{
		msgStart,
		`content_block_start {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"a","name":"f","input":{}}}`,
		`content_block_delta {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{}"}}`,
		`content_block_stop {"type":"content_block_stop","index":0}`,
		`content_block_start {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"b","name":"g","input":{}}}`,
		`content_block_delta {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"x\""}}`,
		`content_block_delta {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":":1}"}}`,
		`content_block_stop {"type":"content_block_stop","index":1}`,
		`message_delta {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"input_tokens":0,"output_tokens":0}}`,
		`message_stop {"type":"message_stop"}`,
	}
	if diff := cmp.Diff(want, summary(parseEvents(t, out))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestStreamTranslatorReasoning(t *testing.T) {
	tr := NewStreamTranslator("")
	out := run(t, tr, []string{
		chunk(`{"role":"assistant","reasoning_content":"Let me "}`),
		chunk(`{"reasoning":"think."}`),
		chunk(`{"content":"Answer"}`),
		finishChunk("length"),
		"[DONE]",
	}, false)
	want := []string{
		`message_start {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"gpt-4o","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}}`,
		`content_block_start {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
		`content_block_delta {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me "}}`,
		`content_block_delta {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"think."}}`,
		`content_block_stop {"type":"content_block_stop","index":0}`,
		`content_block_start {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`,
		`content_block_delta {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Answer"}}`,
		`content_block_stop {"type":"content_block_stop","index":1}`,
		`message_delta {"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"input_tokens":0,"output_tokens":0}}`,
		`message_stop {"type":"message_stop"}`,
	}
	if diff := cmp.Diff(want, summary(parseEvents(t, out))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestStreamTranslatorMissingDone(t *testing.T) {
	tr := NewStreamTranslator("claude-x")
	out := run(t, tr, []string{
		chunk(`{"content":"partial"}`),
		chunk(`{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{\"a\""}}]}`),
	}, true)
	evs := parseEvents(t, out)
	got := summary(evs)
	wantTail := []string{
		`content_block_stop {"type":"content_block_stop","index":1}`,
		`message_delta {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"input_tokens":0,"output_tokens":0}}`,
		`message_stop {"type":"message_stop"}`,
	}
	if diff := cmp.Diff(wantTail, got[len(got)-3:]); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if tr.Finish() != nil {
		t.Error("Finish not idempotent")
	}
}

func TestStreamTranslatorFinishOnly(t *testing.T) {
	evs := parseEvents(t, NewStreamTranslator("m").Finish())
	var names []string
	for _, ev := range evs {
		names = append(names, ev.Event)
	}
	if diff := cmp.Diff([]string{"message_start", "message_delta", "message_stop"}, names); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestStreamTranslatorErrors(t *testing.T) {
	tr := NewStreamTranslator("claude-x")
	out := run(t, tr, []string{chunk(`{"content":"a"}`)}, false)
	if _, err := tr.Chunk([]byte(`{"choices":[`)); err == nil || !strings.Contains(err.Error(), "decode chunk") {
		t.Errorf("err = %v", err)
	}
	out = append(out, tr.Error(ErrOverloaded, "upstream overloaded")...)
	evs := parseEvents(t, out)
	last := evs[len(evs)-1]
	if last.Event != "error" || string(last.Data) != `{"type":"error","error":{"type":"overloaded_error","message":"upstream overloaded"}}` {
		t.Errorf("last event = %s %s", last.Event, last.Data)
	}
	if tr.Finish() != nil || tr.Error("", "x") != nil {
		t.Error("output after error")
	}

	// An upstream error chunk becomes an error event.
	for _, tt := range []struct{ chunk, want string }{
		{`{"error":{"message":"slow down","type":"rate_limit_error"}}`, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`},
		{`{"error":{"message":"boom","type":"server_error"}}`, `{"type":"error","error":{"type":"api_error","message":"boom"}}`},
		{`{"error":"text"}`, `{"type":"error","error":{"type":"api_error","message":"text"}}`},
		{`{"error":7}`, `{"type":"error","error":{"type":"api_error","message":"7"}}`},
	} {
		b, err := NewStreamTranslator("m").Chunk([]byte(tt.chunk))
		if err != nil {
			t.Fatal(err)
		}
		evs := parseEvents(t, b)
		if len(evs) != 1 || string(evs[0].Data) != tt.want {
			t.Errorf("%s: got %s", tt.chunk, b)
		}
	}
	if b := NewStreamTranslator("m").Error("", "x"); !bytes.Contains(b, []byte(`"api_error"`)) {
		t.Errorf("default error type: %s", b)
	}
}

func TestStreamTranslatorBufferedProse(t *testing.T) {
	tr := NewStreamTranslator("claude-x")
	out := run(t, tr, []string{
		chunk(`{"content":"a"}`),
		chunk(`{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{"}}]}`),
		chunk(`{"content":"b","reasoning_content":"r"}`),
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"}"}}]}`),
		chunk(`{"content":"c"}`),
		chunk(`{"tool_calls":[{"index":3}]}`), // never named: dropped
		finishChunk("stop"),
	}, true)
	var acc Accumulator
	feedAccumulator(t, &acc, out)
	msg := acc.Message()
	var types []string
	for _, b := range msg.Content {
		types = append(types, b.Type+":"+b.Text+b.Thinking+string(b.Input))
	}
	want := []string{"text:a", "tool_use:{}", "thinking:r", "text:bc"}
	if diff := cmp.Diff(want, types); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if *msg.StopReason != "tool_use" {
		t.Errorf("stop reason %s", *msg.StopReason)
	}
}

func TestStreamTranslatorStopSequenceAndUsageFirst(t *testing.T) {
	tr := NewStreamTranslator("m")
	out := run(t, tr, []string{
		`{"id":"x","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}],"usage":{"prompt_tokens":7,"completion_tokens":0,"total_tokens":7}}`,
		`{"id":"x","choices":[{"index":0,"delta":{},"finish_reason":"stop","stop_reason":"###"}],"usage":{"prompt_tokens":7,"completion_tokens":1,"total_tokens":8}}`,
	}, true)
	evs := parseEvents(t, out)
	if !strings.Contains(string(evs[0].Data), `"usage":{"input_tokens":7,"output_tokens":0}`) || !strings.Contains(string(evs[0].Data), `"id":"msg_x"`) {
		t.Errorf("message_start = %s", evs[0].Data)
	}
	md := string(evs[len(evs)-2].Data)
	if md != `{"type":"message_delta","delta":{"stop_reason":"stop_sequence","stop_sequence":"###"},"usage":{"input_tokens":7,"output_tokens":1}}` {
		t.Errorf("message_delta = %s", md)
	}
}

// feedAccumulator feeds translator output to an Accumulator.
func feedAccumulator(t *testing.T, acc *Accumulator, out []byte) {
	t.Helper()
	for _, ev := range parseEvents(t, out) {
		if err := acc.Add(ev.Event, ev.Data); err != nil {
			t.Fatalf("Accumulator.Add(%s): %v", ev.Data, err)
		}
	}
	if !acc.Done() {
		t.Fatal("accumulator not done")
	}
}
