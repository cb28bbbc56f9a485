package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/metaclaw/metaclaw/proxy/openai"
	"github.com/metaclaw/metaclaw/proxy/sse"
)

// StreamTranslator turns an OpenAI Chat Completions stream into an
// Anthropic Messages stream. Feed it each "data:" payload with Chunk (the
// "[DONE]" marker included) and write the returned bytes, which are
// complete SSE events, to the client; call Finish when the upstream stream
// ends without [DONE]. It is not safe for concurrent use.
//
// Output guarantees: message_start comes first; content block indexes are
// consecutive from 0; at most one block is open at a time and deltas are
// only sent for the open block; every block is stopped before
// message_delta; message_delta and message_stop are sent exactly once, at
// [DONE] or Finish, so that the usage chunk (which follows the
// finish_reason chunk when include_usage is on) is included. After
// message_stop or an error event nothing more is emitted.
//
// Blocks: reasoning (reasoning_content or reasoning) becomes "thinking"
// blocks with thinking_delta and an empty signature; content (and refusal)
// becomes "text" blocks; each tool call, keyed by its OpenAI index, becomes
// a "tool_use" block started once its name is known, with arguments sent as
// input_json_delta. Only choice 0 is translated.
//
// Tool calls normally arrive one after another. When a fragment for a
// second tool arrives while the open tool's arguments are not yet a
// complete JSON object, the second tool is buffered and started (with its
// buffered arguments as one delta) once the open one is complete, or at the
// finish. Text or reasoning arriving while a tool's arguments are
// incomplete is likewise buffered and emitted after the tools. Fragments
// for a tool whose block was already closed (its arguments were complete)
// are dropped.
type StreamTranslator struct {
	model     string
	msgID     string
	started   bool
	finished  bool
	next      int // index of the next block
	open      *openBlock
	tools     []*toolState
	queue     []*toolState
	pendText  strings.Builder
	pendThink strings.Builder
	finish    string
	stopSeq   json.RawMessage
	sawTool   bool
	usage     *openai.Usage
	out       []byte
	scratch   []byte // emitDelta's buffer
}

type blockKind int

const (
	kindText blockKind = iota
	kindThinking
	kindTool
)

type openBlock struct {
	kind  blockKind
	index int
	tool  *toolState
}

type toolState struct {
	index int // OpenAI tool call index
	id    string
	name  string
	args  strings.Builder
	state int
}

const (
	toolNew = iota
	toolQueued
	toolOpen
	toolClosed
)

// NewStreamTranslator returns a translator reporting model in
// message_start (the upstream chunk's model when empty).
func NewStreamTranslator(model string) *StreamTranslator {
	return &StreamTranslator{model: model}
}

// Chunk translates one OpenAI stream payload and returns the Anthropic SSE
// events to write (possibly none). "[DONE]" is handled like Finish. A
// payload with an "error" member yields an Anthropic error event. Invalid
// JSON returns an error and leaves the translator unchanged; the caller
// may skip the payload or end the stream with Error.
func (t *StreamTranslator) Chunk(data []byte) ([]byte, error) {
	if t.finished {
		return nil, nil
	}
	data = bytes.TrimSpace(data)
	if string(data) == "[DONE]" {
		return t.Finish(), nil
	}
	c, err := openai.ParseStreamChunk(data)
	if err != nil {
		return nil, err
	}
	return t.AddChunk(&c), nil
}

// AddChunk is Chunk for a chunk already read with openai.ParseStreamChunk
// (the proxy reads each chunk once, for this and for its record).
func (t *StreamTranslator) AddChunk(c *openai.StreamChunk) []byte {
	if t.finished {
		return nil
	}
	if !isNull(c.Error) {
		typ, msg := upstreamError(c.Error)
		return t.Error(typ, msg)
	}
	t.out = nil
	if c.Usage != nil {
		t.usage = c.Usage
	}
	t.start(c.ID, c.Model)
	for i := range c.Choices {
		if c.Choices[i].Index == 0 {
			t.choice(&c.Choices[i])
		}
	}
	return t.take()
}

// Finish closes open blocks and emits message_delta and message_stop
// (preceded by message_start if nothing was emitted yet). It is
// idempotent: later calls return nil.
func (t *StreamTranslator) Finish() []byte {
	if t.finished {
		return nil
	}
	t.out = nil
	t.start("", "")
	t.flush()
	reason, seq := mapFinish(t.finish, t.stopSeq, t.sawTool)
	t.emit("message_delta", messageDelta(reason, seq, t.usage))
	t.emit("message_stop", map[string]string{"type": "message_stop"})
	t.finished = true
	return t.take()
}

// Error returns an Anthropic "error" event (type defaults to api_error)
// and ends the stream: later calls emit nothing.
func (t *StreamTranslator) Error(typ, message string) []byte {
	if t.finished {
		return nil
	}
	t.finished = true
	if typ == "" {
		typ = ErrAPI
	}
	return sse.AppendEvent(nil, "error", errorJSON(typ, message))
}

// take returns and clears the pending output.
func (t *StreamTranslator) take() []byte {
	out := t.out
	t.out = nil
	return out
}

// emit appends one event.
func (t *StreamTranslator) emit(name string, payload any) {
	data, err := marshalJSON(payload)
	if err != nil {
		// Payloads are built from strings and numbers only.
		panic(fmt.Sprintf("anthropic: encode %s event: %v", name, err))
	}
	t.out = sse.AppendEvent(t.out, name, data)
}

// start emits message_start once.
func (t *StreamTranslator) start(id, model string) {
	if t.started {
		return
	}
	t.started = true
	t.msgID = messageID(id)
	msg := MessagesResponse{
		ID:      t.msgID,
		Type:    "message",
		Role:    "assistant",
		Model:   firstNonEmpty(t.model, model),
		Content: []Block{},
		Usage:   convertUsage(t.usage),
	}
	msg.Usage.OutputTokens = 0
	t.emit("message_start", struct {
		Type    string           `json:"type"`
		Message MessagesResponse `json:"message"`
	}{"message_start", msg})
}

// messageDelta builds the message_delta payload.
func messageDelta(reason string, seq *string, u *openai.Usage) any {
	type delta struct {
		StopReason   string  `json:"stop_reason"`
		StopSequence *string `json:"stop_sequence"`
	}
	return struct {
		Type  string `json:"type"`
		Delta delta  `json:"delta"`
		Usage Usage  `json:"usage"`
	}{"message_delta", delta{reason, seq}, convertUsage(u)}
}

// upstreamError extracts type and message from an OpenAI-style error.
func upstreamError(raw json.RawMessage) (string, string) {
	var e struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &e) != nil {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return ErrAPI, s
		}
		return ErrAPI, string(raw)
	}
	switch e.Type {
	case ErrInvalidRequest, ErrAuthentication, ErrPermission, ErrNotFound,
		ErrRequestTooLarge, ErrRateLimit, ErrTimeout, ErrOverloaded:
		return e.Type, e.Message
	}
	return ErrAPI, e.Message
}
