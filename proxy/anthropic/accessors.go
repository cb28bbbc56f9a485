package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/metaclaw/metaclaw/proxy/internal/rawjson"
)

// Model returns the "model" member.
func (r *MessagesRequest) Model() string {
	var s string
	r.decode("model", &s)
	return s
}

// SetModel sets the "model" member.
func (r *MessagesRequest) SetModel(model string) {
	b, _ := marshalJSON(model) // strings cannot fail
	r.obj.Set("model", b)
}

// Stream reports whether a streamed response is requested.
func (r *MessagesRequest) Stream() bool {
	var b bool
	r.decode("stream", &b)
	return b
}

// MaxTokens returns "max_tokens" and whether it is set.
func (r *MessagesRequest) MaxTokens() (int, bool) {
	var n int
	ok := r.decode("max_tokens", &n)
	return n, ok
}

// Temperature returns "temperature" and whether it is set.
func (r *MessagesRequest) Temperature() (float64, bool) {
	var f float64
	ok := r.decode("temperature", &f)
	return f, ok
}

// TopP returns "top_p" and whether it is set.
func (r *MessagesRequest) TopP() (float64, bool) {
	var f float64
	ok := r.decode("top_p", &f)
	return f, ok
}

// TopK returns "top_k" and whether it is set.
func (r *MessagesRequest) TopK() (int, bool) {
	var n int
	ok := r.decode("top_k", &n)
	return n, ok
}

// StopSequences returns "stop_sequences".
func (r *MessagesRequest) StopSequences() []string {
	var s []string
	r.decode("stop_sequences", &s)
	return s
}

// Metadata is the "metadata" member.
type Metadata struct {
	UserID string `json:"user_id,omitempty"`
}

// Metadata returns the "metadata" member (zero when absent or malformed).
func (r *MessagesRequest) Metadata() Metadata {
	var m Metadata
	r.decode("metadata", &m)
	return m
}

// Thinking is the extended-thinking configuration.
type Thinking struct {
	Type         string `json:"type"` // "enabled", "disabled", "adaptive"
	BudgetTokens int    `json:"budget_tokens,omitempty"`
}

// Thinking returns the "thinking" member and whether it is set.
func (r *MessagesRequest) Thinking() (Thinking, bool) {
	var t Thinking
	ok := r.decode("thinking", &t)
	return t, ok
}

// decodeSystem reads raw, the "system" member (a string or text blocks).
func decodeSystem(raw json.RawMessage) (Content, error) {
	c, err := readContent(rawjson.View(raw))
	if err != nil {
		return Content{}, invalid(CodeInvalidType, "system: %v", err)
	}
	return c, nil
}

// decodeMessages reads the "messages" member.
func (r *MessagesRequest) decodeMessages() ([]Message, error) {
	raw := r.obj.Get("messages")
	if isNull(raw) {
		return nil, nil
	}
	return readMessages(raw)
}

// SetMessages replaces the "messages" member.
func (r *MessagesRequest) SetMessages(msgs []Message) error {
	if msgs == nil {
		msgs = []Message{}
	}
	return r.SetFieldValue("messages", msgs)
}

// InjectSystem adds text to the system prompt: a string system gets
// "\n\n"+text appended (just text when empty); a block system gets a new
// text block, without cache_control, after the existing blocks (which stay
// byte for byte, so cached prefixes are unaffected); an absent system
// becomes the string text.
//
// A non-empty string keeps its bytes too: the escaped addition is spliced
// in before its closing quote, in one copy, giving the same JSON value as
// decoding, appending and re-encoding it. Splitting a block system with
// gjson instead of encoding/json means one nested deeper than
// encoding/json's limit no longer fails here; System rejects it (as the
// proxy does before it injects).
func (r *MessagesRequest) InjectSystem(text string) error {
	raw := bytes.TrimSpace(r.obj.Get("system"))
	switch firstByte(raw) {
	case '[':
		blocks, _ := rawjson.SplitArray(raw) // raw, a parsed member, is an array
		return r.setSystemBlocks(blocks, text)
	case '"':
		if len(raw) > len(`""`) {
			r.obj.Set("system", rawjson.AppendAfterText(raw, len(raw)-1, text)) // before the closing quote
			return nil
		}
	}
	return r.SetFieldValue("system", text)
}

// setSystemBlocks sets "system" to blocks followed by a text block.
func (r *MessagesRequest) setSystemBlocks(blocks []json.RawMessage, text string) error {
	b, err := marshalJSON(Block{Type: "text", Text: text})
	if err != nil {
		return fmt.Errorf("inject system: %w", err)
	}
	r.obj.Set("system", rawArray(append(blocks, b)))
	return nil
}

// Tool is a tool definition. Server tools (with a versioned Type such as
// "web_search_20250305") have no InputSchema.
type Tool struct {
	Type         string          `json:"type,omitempty"`
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema,omitempty"`
	CacheControl json.RawMessage `json:"cache_control,omitempty"`
}

// Tools decodes the "tools" member.
func (r *MessagesRequest) Tools() ([]Tool, error) {
	var tools []Tool
	raw := r.obj.Get("tools")
	if isNull(raw) {
		return nil, nil
	}
	if err := json.Unmarshal(raw, &tools); err != nil {
		return nil, invalid(CodeInvalidType, "tools: %v", err)
	}
	return tools, nil
}

// ToolChoice is the "tool_choice" member.
type ToolChoice struct {
	Type                   string `json:"type"` // auto, any, tool, none
	Name                   string `json:"name,omitempty"`
	DisableParallelToolUse bool   `json:"disable_parallel_tool_use,omitempty"`
}

// ToolChoice decodes the "tool_choice" member; ok is false when absent or
// malformed.
func (r *MessagesRequest) ToolChoice() (ToolChoice, bool) {
	var tc ToolChoice
	ok := r.decode("tool_choice", &tc)
	return tc, ok
}
