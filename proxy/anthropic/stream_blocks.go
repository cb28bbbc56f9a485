package anthropic

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/metaclaw/metaclaw/proxy/internal/rawjson"
	"github.com/metaclaw/metaclaw/proxy/openai"
	"github.com/metaclaw/metaclaw/proxy/sse"
)

// choice handles the delta and finish reason of choice 0.
func (t *StreamTranslator) choice(ch *openai.ChunkChoice) {
	d := &ch.Delta
	if r := d.ReasoningText(); r != "" {
		t.prose(kindThinking, r)
	}
	if d.Content != nil && *d.Content != "" {
		t.prose(kindText, *d.Content)
	}
	if d.Refusal != nil && *d.Refusal != "" {
		t.prose(kindText, *d.Refusal)
	}
	for i := range d.ToolCalls {
		t.toolDelta(&d.ToolCalls[i])
	}
	if ch.FinishReason != nil && *ch.FinishReason != "" {
		t.finish = *ch.FinishReason
		t.stopSeq = ch.StopReason
		t.flush()
	}
}

// prose handles a text or thinking fragment.
func (t *StreamTranslator) prose(kind blockKind, s string) {
	pending := &t.pendText
	if kind == kindThinking {
		pending = &t.pendThink
	}
	switch {
	case pending.Len() > 0 || t.toolBusy():
		pending.WriteString(s) // keep order behind earlier buffered prose
	case t.open != nil && t.open.kind == kind:
		t.emitDelta(s)
	default:
		t.closeOpen()
		t.openProse(kind)
		t.emitDelta(s)
	}
}

// toolBusy reports whether the open block is a tool whose arguments are
// not yet a complete JSON object.
func (t *StreamTranslator) toolBusy() bool {
	return t.open != nil && t.open.kind == kindTool && !argsComplete(t.open.tool)
}

// argsComplete reports whether a tool's arguments form a JSON object.
func argsComplete(ts *toolState) bool {
	s := strings.TrimSpace(ts.args.String())
	return len(s) > 0 && s[len(s)-1] == '}' && json.Valid([]byte(s))
}

// toolDelta handles one tool call fragment.
func (t *StreamTranslator) toolDelta(td *openai.ToolCallDelta) {
	ts := t.tool(td.Index)
	if ts.id == "" {
		ts.id = td.ID
	}
	var args string
	if td.Function != nil {
		if ts.name == "" {
			ts.name = td.Function.Name
		}
		args = td.Function.Arguments
	}
	switch ts.state {
	case toolClosed:
		return
	case toolOpen:
		ts.args.WriteString(args)
		if args != "" {
			t.emitDelta(args)
		}
	case toolNew:
		ts.state = toolQueued
		t.queue = append(t.queue, ts)
		ts.args.WriteString(args)
	default:
		ts.args.WriteString(args)
	}
	t.promote()
}

// tool returns the state for an OpenAI tool index, creating it.
func (t *StreamTranslator) tool(index int) *toolState {
	for _, ts := range t.tools {
		if ts.index == index {
			return ts
		}
	}
	ts := &toolState{index: index}
	t.tools = append(t.tools, ts)
	return ts
}

// promote starts queued tools while the open block allows it and the head
// of the queue has a name.
func (t *StreamTranslator) promote() {
	for len(t.queue) > 0 && t.queue[0].name != "" && !t.toolBusy() {
		head := t.queue[0]
		t.queue = t.queue[1:]
		t.closeOpen()
		t.startTool(head)
	}
}

// startTool opens a tool_use block and sends any buffered arguments.
func (t *StreamTranslator) startTool(ts *toolState) {
	if ts.id == "" {
		ts.id = newID("toolu_")
	}
	t.openBlock(kindTool, Block{Type: "tool_use", ID: ts.id, Name: ts.name, Input: json.RawMessage("{}")})
	t.open.tool = ts
	ts.state = toolOpen
	t.sawTool = true
	if ts.args.Len() > 0 {
		t.emitDelta(ts.args.String())
	}
}

// openProse opens a text or thinking block.
func (t *StreamTranslator) openProse(kind blockKind) {
	if kind == kindThinking {
		t.openBlock(kind, Block{Type: "thinking"})
	} else {
		t.openBlock(kind, Block{Type: "text"})
	}
}

// openBlock emits content_block_start for a new block at the next index.
func (t *StreamTranslator) openBlock(kind blockKind, b Block) {
	t.open = &openBlock{kind: kind, index: t.next}
	t.next++
	t.emit("content_block_start", struct {
		Type         string `json:"type"`
		Index        int    `json:"index"`
		ContentBlock Block  `json:"content_block"`
	}{"content_block_start", t.open.index, b})
}

// emitDelta emits a content_block_delta for the open block. It is the
// most frequent event, so its JSON is written by hand, as encoding it
// from a struct would write it (TestEmitDeltaEncoding).
func (t *StreamTranslator) emitDelta(s string) {
	typ, field := "input_json_delta", "partial_json"
	switch t.open.kind {
	case kindText:
		typ, field = "text_delta", "text"
	case kindThinking:
		typ, field = "thinking_delta", "thinking"
	}
	b := append(t.scratch[:0], `{"type":"content_block_delta","index":`...)
	b = strconv.AppendInt(b, int64(t.open.index), 10)
	b = append(b, `,"delta":{"type":"`...)
	b = append(b, typ...)
	b = append(b, `","`...)
	b = append(b, field...)
	b = append(b, `":`...)
	b = append(rawjson.AppendString(b, s), '}', '}')
	t.scratch = b
	t.out = sse.AppendEvent(t.out, "content_block_delta", b)
}

// closeOpen emits content_block_stop for the open block, if any.
func (t *StreamTranslator) closeOpen() {
	if t.open == nil {
		return
	}
	if t.open.tool != nil {
		t.open.tool.state = toolClosed
	}
	t.emit("content_block_stop", struct {
		Type  string `json:"type"`
		Index int    `json:"index"`
	}{"content_block_stop", t.open.index})
	t.open = nil
}

// flush closes the open block and emits everything buffered: queued
// tools, then buffered thinking, then buffered text. Tools that never got
// a name, an id or arguments are dropped.
func (t *StreamTranslator) flush() {
	t.closeOpen()
	for _, ts := range t.queue {
		if ts.name == "" && ts.id == "" && ts.args.Len() == 0 {
			ts.state = toolClosed
			continue
		}
		t.startTool(ts)
		t.closeOpen()
	}
	t.queue = nil
	for _, p := range []struct {
		kind blockKind
		buf  *strings.Builder
	}{{kindThinking, &t.pendThink}, {kindText, &t.pendText}} {
		if p.buf.Len() > 0 {
			t.openProse(p.kind)
			t.emitDelta(p.buf.String())
			t.closeOpen()
			p.buf.Reset()
		}
	}
}
