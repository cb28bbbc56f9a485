package fakeupstream

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
)

// thinkingSignature is the signature of every fake thinking block.
const thinkingSignature = "ZmFrZXVwc3RyZWFtLXRoaW5raW5nLXNpZ25hdHVyZQ=="

// anthropicBadJSON is the message for an unparsable request body.
const anthropicBadJSON = "There was an error parsing the body of your request. Please make sure it is valid JSON."

// messagesRequest holds the fields of a messages request the fake uses.
type messagesRequest struct {
	Model  string `json:"model"`
	Stream bool   `json:"stream"`
}

// anthropicPlan holds the pre-rendered, request-independent parts of a
// message.
type anthropicPlan struct {
	// blocks are the SSE frames of the content blocks (start, deltas, stop),
	// with the ping frame after the first content_block_start.
	blocks [][]byte
	// content is the JSON array of the non-streaming content blocks.
	content []byte
	// stopReason is the stop_reason.
	stopReason string
}

// The following types mirror Anthropic's JSON, in Anthropic's key order.

type anText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type anThinking struct {
	Type      string `json:"type"`
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
}

type anToolUse struct {
	Type  string          `json:"type"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type anBlockStart struct {
	Type         string `json:"type"`
	Index        int    `json:"index"`
	ContentBlock any    `json:"content_block"`
}

type anBlockDelta struct {
	Type  string `json:"type"`
	Index int    `json:"index"`
	Delta any    `json:"delta"`
}

type anBlockStop struct {
	Type  string `json:"type"`
	Index int    `json:"index"`
}

type anTextDelta struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type anThinkingDelta struct {
	Type     string `json:"type"`
	Thinking string `json:"thinking"`
}

type anSignatureDelta struct {
	Type      string `json:"type"`
	Signature string `json:"signature"`
}

type anInputDelta struct {
	Type        string `json:"type"`
	PartialJSON string `json:"partial_json"`
}

// pingFrame is Anthropic's ping event, byte for byte.
var pingFrame = []byte("event: ping\ndata: {\"type\": \"ping\"}\n\n")

// messageStopFrame ends every Anthropic stream.
var messageStopFrame = []byte("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")

// sseFrame renders an SSE frame with both event and data lines.
func sseFrame(event string, v any) []byte {
	b := make([]byte, 0, 64)
	b = append(b, "event: "...)
	b = append(b, event...)
	b = append(b, "\ndata: "...)
	b = append(b, marshal(v)...)
	return append(b, "\n\n"...)
}

// planBuilder accumulates the frames and content blocks of a plan.
type planBuilder struct {
	n       int // runes per delta
	frames  [][]byte
	content []any
}

// block adds one content block: its start frame (with the block emptied),
// its deltas and its stop frame.
func (pb *planBuilder) block(full, empty any, deltas []any) {
	i := len(pb.content)
	pb.content = append(pb.content, full)
	pb.frames = append(pb.frames, sseFrame("content_block_start", anBlockStart{"content_block_start", i, empty}))
	if i == 0 {
		pb.frames = append(pb.frames, pingFrame)
	}
	for _, d := range deltas {
		pb.frames = append(pb.frames, sseFrame("content_block_delta", anBlockDelta{"content_block_delta", i, d}))
	}
	pb.frames = append(pb.frames, sseFrame("content_block_stop", anBlockStop{"content_block_stop", i}))
}

// buildAnthropicPlan renders the message fragments of c: a thinking block,
// a text block and one tool_use block per tool call, each when present.
func buildAnthropicPlan(c *compiled) *anthropicPlan {
	pb := &planBuilder{n: c.chunkSize()}
	if c.Reasoning != "" {
		var ds []any
		for _, p := range splitRunes(c.Reasoning, pb.n) {
			ds = append(ds, anThinkingDelta{"thinking_delta", p})
		}
		ds = append(ds, anSignatureDelta{"signature_delta", thinkingSignature})
		pb.block(anThinking{"thinking", c.Reasoning, thinkingSignature}, anThinking{Type: "thinking"}, ds)
	}
	if c.Text != "" {
		var ds []any
		for _, p := range splitRunes(c.Text, pb.n) {
			ds = append(ds, anTextDelta{"text_delta", p})
		}
		pb.block(anText{"text", c.Text}, anText{Type: "text"}, ds)
	}
	for _, tc := range c.ToolCalls {
		pb.toolUse(tc)
	}
	if pb.content == nil {
		pb.frames = append(pb.frames, pingFrame)
		pb.content = []any{}
	}
	return &anthropicPlan{blocks: pb.frames, content: marshal(pb.content), stopReason: c.anthropicStop()}
}

// toolUse adds a tool_use block. Its input is the compacted Arguments (or
// Arguments as a JSON string when they are not valid JSON) and streams as
// input_json_delta fragments after an empty one, as Anthropic does.
func (pb *planBuilder) toolUse(tc ToolCall) {
	id := toolID(tc, "toolu_")
	var compact bytes.Buffer
	input := json.RawMessage(marshal(tc.Arguments))
	if json.Compact(&compact, []byte(tc.Arguments)) == nil {
		input = compact.Bytes()
	}
	ds := []any{anInputDelta{"input_json_delta", ""}}
	for _, p := range splitRunes(string(input), pb.n) {
		ds = append(ds, anInputDelta{"input_json_delta", p})
	}
	full := anToolUse{"tool_use", id, tc.Name, input}
	pb.block(full, anToolUse{"tool_use", id, tc.Name, json.RawMessage("{}")}, ds)
}

// messageHead is the request-dependent part of a message.
type messageHead struct {
	id     string
	model  string
	usage  Usage
	output int
}

// handleMessages serves POST /v1/messages.
func (s *Server) handleMessages(w http.ResponseWriter, r *http.Request, body []byte) {
	var req messagesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		s.anthropicError(w, http.StatusBadRequest, anthropicBadJSON, "", "")
		return
	}
	c := s.nextReply(r, body, true)
	if !s.prelude(r, c) {
		return
	}
	if c.failsUpfront(req.Stream) {
		s.replyError(w, c, true)
		return
	}
	if c.RawBody != nil {
		c.writeRaw(w)
		return
	}
	if req.Model == "" {
		req.Model = fallbackModel
	}
	u := c.usage(len(body))
	head := messageHead{id: s.nextID("msg_01"), model: req.Model, usage: u, output: u.CompletionTokens}
	hdr := http.Header{"Request-Id": {s.nextID("req_")}}
	if !req.Stream {
		s.writeBody(w, r, c, hdr, messageBody(head, c.anthropic()))
		return
	}
	s.streamMessage(s.startStream(w, r, c, hdr), head, c.anthropic())
}

// messageBody renders a non-streaming message.
func messageBody(h messageHead, p *anthropicPlan) []byte {
	b := make([]byte, 0, 384+len(p.content))
	b = appendMessagePrefix(b, h)
	b = append(b, p.content...)
	b = append(b, `,"stop_reason":`...)
	b = appendString(b, p.stopReason)
	b = append(b, `,"stop_sequence":null,"usage":`...)
	b = appendAnthropicUsage(b, h.usage, h.output, true)
	return append(b, '}')
}

// streamMessage writes the events of a streaming message.
func (s *Server) streamMessage(st *streamer, h messageHead, p *anthropicPlan) {
	st.errFrame = anthropicStreamError(st.c)
	b := append(st.buf[:0], "event: message_start\ndata: {\"type\":\"message_start\",\"message\":"...)
	b = appendMessagePrefix(b, h)
	b = append(b, `[],"stop_reason":null,"stop_sequence":null,"usage":`...)
	b = appendAnthropicUsage(b, h.usage, 1, true)
	st.buf = append(b, "}}\n\n"...)
	if !st.send(st.buf) {
		return
	}
	for _, f := range p.blocks {
		if !st.send(f) {
			return
		}
	}
	b = append(st.buf[:0], "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"...)
	b = appendString(b, p.stopReason)
	b = append(b, `,"stop_sequence":null},"usage":`...)
	b = appendAnthropicUsage(b, h.usage, h.output, false)
	st.buf = append(b, "}\n\n"...)
	if !st.send(st.buf) {
		return
	}
	st.send(messageStopFrame)
}

// appendMessagePrefix appends `{"model":…,"id":…,"type":"message",
// "role":"assistant","content":`.
func appendMessagePrefix(b []byte, h messageHead) []byte {
	b = append(b, `{"model":`...)
	b = appendString(b, h.model)
	b = append(b, `,"id":`...)
	b = appendString(b, h.id)
	return append(b, `,"type":"message","role":"assistant","content":`...)
}

// appendAnthropicUsage appends an Anthropic usage object; full adds the
// cache_creation breakdown and service_tier of message objects.
func appendAnthropicUsage(b []byte, u Usage, output int, full bool) []byte {
	b = append(b, `{"input_tokens":`...)
	b = appendInt(b, max(0, u.PromptTokens-u.CachedTokens))
	b = append(b, `,"cache_creation_input_tokens":0,"cache_read_input_tokens":`...)
	b = appendInt(b, u.CachedTokens)
	if full {
		b = append(b, `,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":0}`...)
	}
	b = append(b, `,"output_tokens":`...)
	b = strconv.AppendInt(b, int64(output), 10)
	if full {
		b = append(b, `,"service_tier":"standard"`...)
	}
	return append(b, '}')
}
