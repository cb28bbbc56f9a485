package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/metaclaw/metaclaw/proxy/openai"
)

func FuzzParseMessagesRequest(f *testing.F) {
	f.Add([]byte(`{"model":"claude","max_tokens":10,"system":"s","messages":[{"role":"user","content":"hi"}],"x":[1]}`))
	f.Add([]byte(`{"system":[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"1","name":"n","input":{}}]}]}`))
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"1","content":[{"type":"text","text":"r"}],"is_error":true}]}]}`))
	f.Add([]byte(`{"max_tokens":1e3,"messages":[]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := ParseMessagesRequest(body)
		if err != nil {
			var re *RequestError
			if !errors.As(err, &re) || re.Status != 400 || !json.Valid(re.Body()) {
				t.Fatalf("bad error: %v", err)
			}
			return
		}
		out, _ := r.Marshal()
		sameJSON(t, body, out)
		r.SetModel("m")
		r.DeleteField("session_id")
		if err := r.InjectSystem("memory"); err != nil {
			t.Fatalf("InjectSystem: %v", err)
		}
		if msgs, err := r.Messages(); err == nil {
			if err := r.SetMessages(msgs); err != nil {
				t.Fatalf("SetMessages: %v", err)
			}
		}
		out2, _ := r.Marshal()
		if _, err := ParseMessagesRequest(out2); err != nil {
			t.Fatalf("modified request invalid: %v\n%s", err, out2)
		}
	})
}

// sameJSON fails unless a and b decode to equal values.
func sameJSON(t *testing.T, a, b []byte) {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("input: %v", err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("output %s: %v", b, err)
	}
	if !reflect.DeepEqual(x, y) {
		t.Fatalf("round trip changed value:\n in %s\nout %s", a, b)
	}
}

func FuzzToOpenAI(f *testing.F) {
	f.Add([]byte(`{"model":"c","system":[{"type":"text","text":"s"}],"stream":true,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA"}}]}]}`))
	f.Add([]byte(`{"messages":[{"role":"assistant","content":[{"type":"text","text":"t"},{"type":"tool_use","id":"1","name":"n","input":{"a":[1]}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"1","content":"ok"},{"type":"text","text":"more"}]}],"tools":[{"name":"n","input_schema":{"type":"object"}}],"tool_choice":{"type":"any","disable_parallel_tool_use":true}}`))
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","is_error":true,"content":[{"type":"image","source":{"type":"url","url":"u"}}]}]}],"metadata":{"user_id":"u"},"stop_sequences":["a"]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := ParseMessagesRequest(body)
		if err != nil {
			return
		}
		out, err := ToOpenAI(r, "")
		if err != nil {
			return
		}
		if _, err := openai.ParseChatRequest(out); err != nil {
			t.Fatalf("ToOpenAI output rejected: %v\n%s", err, out)
		}
	})
}

func FuzzStreamTranslator(f *testing.F) {
	f.Add([]byte(chunk(`{"content":"a"}`)+"\n"+finishChunk("stop")+"\n[DONE]"), []byte{0, 1, 2, 5, 2, 7, 3, 2, 2})
	f.Add([]byte(`{"error":{"message":"x"}}`), []byte{2, 0, 2, 1, 2, 0, 2, 1, 0, 1})
	f.Add([]byte(chunk(`{"tool_calls":[{"index":1,"function":{"arguments":"{"}}]}`)+"\n"+usageChunk), []byte{4, 2, 2, 2, 2, 2, 2, 6})
	f.Fuzz(func(t *testing.T, raw []byte, program []byte) {
		// Arbitrary chunk sequences: output is always well formed.
		tr := NewStreamTranslator("m")
		var out []byte
		for line := range bytes.SplitSeq(raw, []byte("\n")) {
			b, _ := tr.Chunk(line)
			out = append(out, b...)
		}
		out = append(out, tr.Finish()...)
		parseEvents(t, out)

		// Generated valid streams: content survives translation.
		runProgram(t, program)
	})
}

// streamProgram generates a plausible OpenAI stream from fuzz bytes and
// records what the client should end up with.
type streamProgram struct {
	chunks    []string
	text      strings.Builder
	reasoning strings.Builder
	toolArgs  map[string]*strings.Builder // by call id
}

var toolPayloads = []string{`{"city":"Paris"}`, `{"q":[1,2,{"x":"}"}]}`, `{"path":"a\"b","n":3.5}`}

func (p *streamProgram) build(program []byte) {
	p.toolArgs = map[string]*strings.Builder{}
	pos := make([]int, len(toolPayloads))
	for i := 0; i+1 < len(program); i += 2 {
		op, arg := program[i]%6, int(program[i+1])
		switch op {
		case 0, 1:
			s := fmt.Sprintf("w%d ", arg)
			key := "content"
			if op == 1 {
				key, s = "reasoning_content", "r"+s
				p.reasoning.WriteString(s)
			} else {
				p.text.WriteString(s)
			}
			p.add(fmt.Sprintf(`{%q:%q}`, key, s))
		case 2, 3:
			p.toolFragment(arg%len(toolPayloads), 1+arg/len(toolPayloads)%4, pos)
		case 4:
			p.chunks = append(p.chunks, usageChunk)
		case 5:
			p.add(`{"role":"assistant","content":""}`)
		}
	}
}

// toolFragment appends the next n bytes of tool k's arguments.
func (p *streamProgram) toolFragment(k, n int, pos []int) {
	payload := toolPayloads[k]
	if pos[k] >= len(payload) {
		return
	}
	end := min(pos[k]+n, len(payload))
	frag := payload[pos[k]:end]
	id := fmt.Sprintf("call_%d", k)
	fn := fmt.Sprintf(`{"arguments":%q}`, frag)
	head := ""
	if pos[k] == 0 {
		fn = fmt.Sprintf(`{"name":"tool%d","arguments":%q}`, k, frag)
		head = fmt.Sprintf(`"id":%q,"type":"function",`, id)
		p.toolArgs[id] = &strings.Builder{}
	}
	p.toolArgs[id].WriteString(frag)
	pos[k] = end
	p.add(fmt.Sprintf(`{"tool_calls":[{"index":%d,%s"function":%s}]}`, k, head, fn))
}

func (p *streamProgram) add(delta string) { p.chunks = append(p.chunks, chunk(delta)) }

func runProgram(t *testing.T, program []byte) {
	var p streamProgram
	p.build(program)
	tr := NewStreamTranslator("m")
	var out []byte
	for _, c := range p.chunks {
		b, err := tr.Chunk([]byte(c))
		if err != nil {
			t.Fatalf("Chunk(%s): %v", c, err)
		}
		out = append(out, b...)
	}
	if len(program)%2 == 1 {
		b, _ := tr.Chunk([]byte(finishChunk("tool_calls")))
		out = append(out, b...)
	}
	out = append(out, tr.Finish()...)
	var acc Accumulator
	for _, ev := range parseEvents(t, out) {
		if err := acc.Add(ev.Event, ev.Data); err != nil {
			t.Fatalf("Accumulator.Add: %v", err)
		}
	}
	checkProgramResult(t, &p, acc.Message())
}

func checkProgramResult(t *testing.T, p *streamProgram, msg MessagesResponse) {
	var text, reasoning strings.Builder
	tools := map[string]string{}
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "thinking":
			reasoning.WriteString(b.Thinking)
		case "tool_use":
			tools[b.ID] = rawInput(b.Input)
		}
	}
	if text.String() != p.text.String() || reasoning.String() != p.reasoning.String() {
		t.Fatalf("prose mismatch: text %q want %q; reasoning %q want %q",
			text.String(), p.text.String(), reasoning.String(), p.reasoning.String())
	}
	if len(tools) != len(p.toolArgs) {
		t.Fatalf("got %d tools, want %d", len(tools), len(p.toolArgs))
	}
	for id, args := range p.toolArgs {
		want := args.String()
		if want == "" {
			want = "{}"
		}
		if tools[id] != want {
			t.Fatalf("tool %s input %q, want %q", id, tools[id], want)
		}
	}
	if len(tools) > 0 && (msg.StopReason == nil || *msg.StopReason != StopToolUse) {
		t.Fatalf("stop reason %v with tools", msg.StopReason)
	}
}

// rawInput undoes the {"_raw": ...} wrapping of incomplete arguments.
func rawInput(in json.RawMessage) string {
	var w struct {
		Raw *string `json:"_raw"`
	}
	if json.Unmarshal(in, &w) == nil && w.Raw != nil {
		return *w.Raw
	}
	return string(in)
}
