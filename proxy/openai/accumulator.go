package openai

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"strings"
)

// Accumulator rebuilds the final assistant message of a streamed response
// from its chunks. Only choice 0 is recorded. The zero value is ready to
// use; it is not safe for concurrent use.
type Accumulator struct {
	id, model, fingerprint string
	created                int64
	role                   string
	text                   strings.Builder
	reasoning              strings.Builder
	refusal                strings.Builder
	hasRefusal             bool
	tools                  []*toolAcc
	finish                 string
	stopReason             json.RawMessage
	usage                  *Usage
	done                   bool
}

type toolAcc struct {
	index int
	id    string
	typ   string
	name  string
	args  strings.Builder
}

// Add feeds the payload of one "data:" line. The "[DONE]" marker marks the
// stream complete. A payload carrying an "error" member returns a
// *StreamError; malformed JSON returns a decode error. Both leave what was
// accumulated so far intact. Add does not keep data.
func (a *Accumulator) Add(data []byte) error {
	data = bytes.TrimSpace(data)
	if string(data) == "[DONE]" {
		a.done = true
		return nil
	}
	c, err := ParseStreamChunk(data)
	if err != nil {
		return err
	}
	return a.AddChunk(&c)
}

// AddChunk feeds a chunk ParseStreamChunk read, for callers that read the
// stream's chunks for other purposes too. A chunk carrying an "error"
// member returns a *StreamError.
func (a *Accumulator) AddChunk(c *StreamChunk) error {
	if !isNull(c.Error) {
		return parseStreamError(c.Error)
	}
	a.addMeta(c)
	for i := range c.Choices {
		if c.Choices[i].Index == 0 {
			a.addChoice(&c.Choices[i])
		}
	}
	return nil
}

// addMeta records chunk-level fields.
func (a *Accumulator) addMeta(c *StreamChunk) {
	if a.id == "" {
		a.id = c.ID
	}
	if a.model == "" {
		a.model = c.Model
	}
	if a.created == 0 {
		a.created = c.Created
	}
	if c.SystemFingerprint != "" {
		a.fingerprint = c.SystemFingerprint
	}
	if c.Usage != nil {
		a.usage = c.Usage
	}
}

// addChoice merges one choice delta.
func (a *Accumulator) addChoice(ch *ChunkChoice) {
	d := &ch.Delta
	if d.Role != "" {
		a.role = d.Role
	}
	if d.Content != nil {
		a.text.WriteString(*d.Content)
	}
	if d.Refusal != nil {
		a.hasRefusal = true
		a.refusal.WriteString(*d.Refusal)
	}
	a.reasoning.WriteString(d.ReasoningText())
	for i := range d.ToolCalls {
		a.addTool(&d.ToolCalls[i])
	}
	if ch.FinishReason != nil && *ch.FinishReason != "" {
		a.finish = *ch.FinishReason
		a.stopReason = ch.StopReason
	}
}

// addTool merges one tool call fragment, keyed by its index.
func (a *Accumulator) addTool(td *ToolCallDelta) {
	t := a.tool(td.Index)
	if t.id == "" {
		t.id = td.ID
	}
	if t.typ == "" {
		t.typ = td.Type
	}
	if td.Function != nil {
		if t.name == "" {
			t.name = td.Function.Name
		}
		t.args.WriteString(td.Function.Arguments)
	}
}

// tool returns the accumulator for index, creating it on first use.
func (a *Accumulator) tool(index int) *toolAcc {
	for _, t := range a.tools {
		if t.index == index {
			return t
		}
	}
	t := &toolAcc{index: index}
	a.tools = append(a.tools, t)
	return t
}

// Done reports whether the [DONE] marker was seen.
func (a *Accumulator) Done() bool { return a.done }

// Text returns the concatenated content.
func (a *Accumulator) Text() string { return a.text.String() }

// Reasoning returns the concatenated reasoning content.
func (a *Accumulator) Reasoning() string { return a.reasoning.String() }

// FinishReason returns the finish reason, or "" if none was received.
func (a *Accumulator) FinishReason() string { return a.finish }

// Usage returns the usage chunk's usage, or nil if none was received.
func (a *Accumulator) Usage() *Usage { return a.usage }

// ToolCalls returns the assembled tool calls ordered by stream index.
func (a *Accumulator) ToolCalls() []ToolCall {
	if len(a.tools) == 0 {
		return nil
	}
	sorted := slices.SortedFunc(slices.Values(a.tools), func(x, y *toolAcc) int {
		return cmp.Compare(x.index, y.index)
	})
	calls := make([]ToolCall, len(sorted))
	for i, t := range sorted {
		typ := t.typ
		if typ == "" {
			typ = "function"
		}
		calls[i] = ToolCall{ID: t.id, Type: typ, Function: FunctionCall{Name: t.name, Arguments: t.args.String()}}
	}
	return calls
}

// Completion returns the accumulated response as the equivalent
// non-streamed ChatCompletion with one choice.
func (a *Accumulator) Completion() ChatCompletion {
	msg := ResponseMessage{
		Role:             cmp.Or(a.role, "assistant"),
		ReasoningContent: a.reasoning.String(),
		ToolCalls:        a.ToolCalls(),
	}
	if a.text.Len() > 0 || len(msg.ToolCalls) == 0 {
		msg.Content = StringPtr(a.text.String())
	}
	if a.hasRefusal {
		msg.Refusal = StringPtr(a.refusal.String())
	}
	return ChatCompletion{
		ID:                a.id,
		Object:            "chat.completion",
		Created:           a.created,
		Model:             a.model,
		SystemFingerprint: a.fingerprint,
		Choices:           []Choice{{Message: msg, FinishReason: a.finish, StopReason: a.stopReason}},
		Usage:             a.usage,
	}
}
