package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Accumulator rebuilds the final message of a native Anthropic stream from
// its events, so the proxy can record streamed turns. The zero value is
// ready to use; it is not safe for concurrent use.
type Accumulator struct {
	msg    MessagesResponse
	blocks []*accBlock
	done   bool
}

type accBlock struct {
	block     Block
	text      strings.Builder
	thinking  strings.Builder
	signature strings.Builder
	input     strings.Builder
}

// streamEvent is the subset of an Anthropic stream event the accumulator
// reads.
type streamEvent struct {
	Type         string            `json:"type"`
	Message      *MessagesResponse `json:"message"`
	Index        int               `json:"index"`
	ContentBlock *Block            `json:"content_block"`
	Delta        json.RawMessage   `json:"delta"`
	Usage        *usageWire        `json:"usage"`
}

// usageWire distinguishes absent usage members from zero.
type usageWire struct {
	InputTokens              *int `json:"input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
}

// Add feeds one event: its SSE event name (used when the payload has no
// "type") and data. An "error" event returns a *StreamError; malformed or
// out-of-order events return an error and are otherwise ignored.
func (a *Accumulator) Add(event string, data []byte) error {
	var ev streamEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return fmt.Errorf("decode event: %w", err)
	}
	typ := firstNonEmpty(ev.Type, event)
	switch typ {
	case "message_start":
		if ev.Message != nil {
			a.start(ev.Message)
		}
	case "content_block_start":
		return a.blockStart(ev.Index, ev.ContentBlock)
	case "content_block_delta":
		return a.blockDelta(ev.Index, ev.Delta)
	case "message_delta":
		return a.messageDelta(ev.Delta, ev.Usage)
	case "message_stop":
		a.done = true
	case "error":
		return parseStreamError(data)
	}
	return nil
}

// start records message_start.
func (a *Accumulator) start(m *MessagesResponse) {
	a.msg = *m
	a.msg.Content = nil
	a.blocks = nil
	for i := range m.Content {
		a.blocks = append(a.blocks, &accBlock{block: m.Content[i]})
	}
}

// blockStart records content_block_start; indexes must be consecutive.
func (a *Accumulator) blockStart(index int, b *Block) error {
	if b == nil {
		return fmt.Errorf("content_block_start %d: missing content_block", index)
	}
	if index != len(a.blocks) {
		return fmt.Errorf("content_block_start: index %d, expected %d", index, len(a.blocks))
	}
	a.blocks = append(a.blocks, &accBlock{block: *b})
	return nil
}

// blockDelta records content_block_delta.
func (a *Accumulator) blockDelta(index int, raw json.RawMessage) error {
	if index < 0 || index >= len(a.blocks) {
		return fmt.Errorf("content_block_delta: unknown block %d", index)
	}
	var d struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		PartialJSON string `json:"partial_json"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return fmt.Errorf("decode delta: %w", err)
	}
	b := a.blocks[index]
	switch d.Type {
	case "text_delta":
		b.text.WriteString(d.Text)
	case "input_json_delta":
		b.input.WriteString(d.PartialJSON)
	case "thinking_delta":
		b.thinking.WriteString(d.Thinking)
	case "signature_delta":
		b.signature.WriteString(d.Signature)
	}
	return nil
}

// messageDelta records stop reason, stop sequence and cumulative usage.
func (a *Accumulator) messageDelta(raw json.RawMessage, u *usageWire) error {
	var d struct {
		StopReason   *string `json:"stop_reason"`
		StopSequence *string `json:"stop_sequence"`
	}
	if !isNull(raw) {
		if err := json.Unmarshal(raw, &d); err != nil {
			return fmt.Errorf("decode message_delta: %w", err)
		}
	}
	a.msg.StopReason = d.StopReason
	a.msg.StopSequence = d.StopSequence
	if u == nil {
		return nil
	}
	for _, f := range []struct {
		src *int
		dst *int
	}{
		{u.InputTokens, &a.msg.Usage.InputTokens},
		{u.OutputTokens, &a.msg.Usage.OutputTokens},
		{u.CacheCreationInputTokens, &a.msg.Usage.CacheCreationInputTokens},
		{u.CacheReadInputTokens, &a.msg.Usage.CacheReadInputTokens},
	} {
		if f.src != nil {
			*f.dst = *f.src
		}
	}
	return nil
}

// Done reports whether message_stop was seen.
func (a *Accumulator) Done() bool { return a.done }

// Message returns the message accumulated so far. A tool_use input that is
// not valid JSON (a cut-off stream) is wrapped as {"_raw": "<partial>"}.
func (a *Accumulator) Message() MessagesResponse {
	m := a.msg
	m.Content = make([]Block, len(a.blocks))
	for i, b := range a.blocks {
		m.Content[i] = b.finish()
	}
	return m
}

// finish applies the accumulated deltas to the start block.
func (b *accBlock) finish() Block {
	out := b.block
	out.Text += b.text.String()
	out.Thinking += b.thinking.String()
	out.Signature += b.signature.String()
	if b.input.Len() > 0 {
		in := []byte(b.input.String())
		if json.Valid(in) {
			var buf bytes.Buffer
			_ = json.Compact(&buf, in) // valid JSON compacts
			out.Input = buf.Bytes()
		} else {
			out.Input = toolInput(b.input.String())
		}
	}
	return out
}
