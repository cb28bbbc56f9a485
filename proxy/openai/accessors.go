package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/metaclaw/metaclaw/proxy/internal/rawjson"
	"github.com/tidwall/gjson"
)

// Model returns the "model" member, or "" when absent.
func (r *ChatRequest) Model() string {
	var s string
	r.decode("model", &s)
	return s
}

// SetModel sets the "model" member.
func (r *ChatRequest) SetModel(model string) {
	b, _ := marshalJSON(model) // strings cannot fail
	r.obj.Set("model", b)
}

// Stream reports whether the request asks for a streamed response.
func (r *ChatRequest) Stream() bool {
	var b bool
	r.decode("stream", &b)
	return b
}

// IncludeUsage reports whether stream_options.include_usage is true.
func (r *ChatRequest) IncludeUsage() bool {
	var so struct {
		IncludeUsage bool `json:"include_usage"`
	}
	r.decode("stream_options", &so)
	return so.IncludeUsage
}

// SetIncludeUsage sets stream_options.include_usage, keeping any other
// stream_options members. A stream_options that is not an object is
// replaced. Only use it on streamed requests: OpenAI rejects
// stream_options when "stream" is not true.
func (r *ChatRequest) SetIncludeUsage(on bool) {
	so, ok := rawjson.SplitObject(r.obj.Get("stream_options"))
	if !ok {
		so = object{}
	}
	so.Set("include_usage", json.RawMessage(fmt.Sprint(on)))
	r.obj.Set("stream_options", so.Marshal())
}

// Messages decodes the "messages" member. A malformed message is reported
// as a *RequestError with code invalid_messages.
func (r *ChatRequest) Messages() ([]Message, error) {
	var msgs []Message
	raw := r.obj.Get("messages")
	if isNull(raw) {
		return nil, nil
	}
	if err := json.Unmarshal(raw, &msgs); err != nil {
		return nil, invalid(CodeInvalidMessages, "messages", "invalid 'messages': %v", err)
	}
	return msgs, nil
}

// SetMessages replaces the "messages" member.
func (r *ChatRequest) SetMessages(msgs []Message) error {
	if msgs == nil {
		msgs = []Message{}
	}
	return r.SetFieldValue("messages", msgs)
}

// InjectSystem adds text to the system prompt. It appends to the first
// message whose role is "system" or "developer": string content gets
// "\n\n"+text (or just text when empty), array content gets a new text
// part, null or absent content becomes text. Without such a message, a new
// system message is inserted at index 0. Other messages are kept byte for
// byte.
func (r *ChatRequest) InjectSystem(text string) error {
	items, roles, err := r.items()
	if err != nil {
		return fmt.Errorf("inject system: %w", err)
	}
	idx := slices.IndexFunc(roles, func(role string) bool { return role == "system" || role == "developer" })
	if idx >= 0 && r.spliceSystem(idx, text) {
		return nil
	}
	return r.rebuildSystem(items, idx, text)
}

// rebuildSystem is InjectSystem for every case: it re-encodes the system
// message at idx (or inserts one when idx < 0) and joins the messages again.
func (r *ChatRequest) rebuildSystem(items []json.RawMessage, idx int, text string) error {
	var msg json.RawMessage
	var err error
	if idx < 0 {
		msg, err = marshalJSON(Message{Role: "system", Content: TextContent(text)})
		items = append([]json.RawMessage{msg}, items...)
	} else {
		msg, err = withAppendedText(items[idx], text)
		items = slices.Clone(items)
		items[idx] = msg
	}
	if err != nil {
		return fmt.Errorf("inject system: %w", err)
	}
	r.obj.Set("messages", rawArray(items))
	return nil
}

// spliceSystem is InjectSystem's fast path for the usual case, a system
// message with non-empty string content: it copies "messages" once with
// the escaped text spliced in before the content's closing quote, instead
// of splitting, re-encoding and joining the messages. It reports false,
// changing nothing, for any other case.
func (r *ChatRequest) spliceSystem(idx int, text string) bool {
	c := r.msgs
	content := c.contents[idx]
	if c.repeats[idx] || content.Type != gjson.String || len(content.Raw) <= 2 {
		return false
	}
	at := content.Index + len(content.Raw) - 1 // the closing quote
	r.obj.Set("messages", rawjson.AppendAfterText(c.raw, at, text))
	return true
}

// withAppendedText returns the message msg with text appended to its
// content (see InjectSystem), every other member kept as it was.
func withAppendedText(msg json.RawMessage, text string) (json.RawMessage, error) {
	obj, ok := rawjson.SplitObject(msg) // msg was checked when the messages were split
	if !ok {
		return nil, errNotObject
	}
	if raw := bytes.TrimSpace(obj.Get("content")); len(raw) > 2 && raw[0] == '"' {
		// Non-empty string content: splice the escaped text in before the
		// closing quote instead of decoding and re-encoding the string.
		out := append(slices.Clip(raw[:len(raw)-1]), rawjson.AppendString(nil, "\n\n"+text)[1:]...)
		obj.Set("content", out)
		return obj.Marshal(), nil
	}
	var c Content
	if raw := obj.Get("content"); !isNull(raw) {
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, err
		}
	}
	b, err := marshalJSON(appendText(c, text))
	if err != nil {
		return nil, err
	}
	obj.Set("content", b)
	return obj.Marshal(), nil
}

// appendText appends text to content as described by InjectSystem.
func appendText(c Content, text string) Content {
	switch {
	case c.Kind == ContentParts:
		return PartsContent(append(c.Parts, TextPart(text))...)
	case c.Kind == ContentString && c.Text != "":
		return TextContent(c.Text + "\n\n" + text)
	default:
		return TextContent(text)
	}
}

// Tool is a function tool offered to the model.
type Tool struct {
	Type     string             `json:"type"`
	Function FunctionDefinition `json:"function"`
}

// FunctionDefinition describes a callable function.
type FunctionDefinition struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Strict      *bool           `json:"strict,omitempty"`
}

// AppendJSON appends the tool's encoding to dst (rawjson.Appender): what
// encoding/json writes, without reflection and with the parameters' JSON
// as it came (encoding/json would validate and compact it again). A
// translated request's tools are written on every turn.
func (t Tool) AppendJSON(dst []byte) ([]byte, error) {
	w := rawjson.ObjectAt(dst)
	w.String("type", t.Type)
	w.Value("function", t.Function)
	return w.Bytes()
}

// AppendJSON appends the function's encoding to dst (rawjson.Appender).
func (f FunctionDefinition) AppendJSON(dst []byte) ([]byte, error) {
	w := rawjson.ObjectAt(dst)
	w.String("name", f.Name)
	if f.Description != "" {
		w.String("description", f.Description)
	}
	if len(f.Parameters) != 0 {
		w.Raw("parameters", f.Parameters)
	}
	if f.Strict != nil {
		w.Value("strict", *f.Strict)
	}
	return w.Bytes()
}

// Tools decodes the "tools" member (nil when absent).
func (r *ChatRequest) Tools() ([]Tool, error) {
	var tools []Tool
	raw := r.obj.Get("tools")
	if isNull(raw) {
		return nil, nil
	}
	if err := json.Unmarshal(raw, &tools); err != nil {
		return nil, fmt.Errorf("decode tools: %w", err)
	}
	return tools, nil
}

// ToolChoice is the "tool_choice" member: a mode string ("auto", "none",
// "required") or a specific function.
type ToolChoice struct {
	Mode     string // set for the string form
	Function string // set for {"type":"function","function":{"name":...}}
}

type namedToolChoice struct {
	Type     string `json:"type"`
	Function struct {
		Name string `json:"name"`
	} `json:"function"`
}

// MarshalJSON implements json.Marshaler.
func (tc ToolChoice) MarshalJSON() ([]byte, error) { return tc.AppendJSON(nil) }

// AppendJSON appends the choice's encoding to dst (rawjson.Appender).
func (tc ToolChoice) AppendJSON(dst []byte) ([]byte, error) {
	if tc.Function == "" {
		return rawjson.AppendString(dst, tc.Mode), nil
	}
	dst = append(dst, `{"type":"function","function":{"name":`...)
	return append(rawjson.AppendString(dst, tc.Function), '}', '}'), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (tc *ToolChoice) UnmarshalJSON(data []byte) error {
	if firstByte(data) == '"' {
		*tc = ToolChoice{}
		return json.Unmarshal(data, &tc.Mode)
	}
	var n namedToolChoice
	if err := json.Unmarshal(data, &n); err != nil {
		return err
	}
	if n.Function.Name == "" {
		return errors.New("tool_choice object without function name")
	}
	*tc = ToolChoice{Function: n.Function.Name}
	return nil
}

// ToolChoice decodes the "tool_choice" member; ok is false when absent or
// not understood.
func (r *ChatRequest) ToolChoice() (tc ToolChoice, ok bool) {
	ok = r.decode("tool_choice", &tc)
	return tc, ok
}

// MaxTokens returns "max_tokens" and whether it is set to a number.
func (r *ChatRequest) MaxTokens() (int, bool) {
	var n int
	ok := r.decode("max_tokens", &n)
	return n, ok
}

// MaxCompletionTokens returns "max_completion_tokens" and whether it is set.
func (r *ChatRequest) MaxCompletionTokens() (int, bool) {
	var n int
	ok := r.decode("max_completion_tokens", &n)
	return n, ok
}

// Temperature returns "temperature" and whether it is set.
func (r *ChatRequest) Temperature() (float64, bool) {
	var f float64
	ok := r.decode("temperature", &f)
	return f, ok
}

// TopP returns "top_p" and whether it is set.
func (r *ChatRequest) TopP() (float64, bool) {
	var f float64
	ok := r.decode("top_p", &f)
	return f, ok
}

// Stop returns the "stop" sequences; a single string becomes one element.
func (r *ChatRequest) Stop() []string {
	var one string
	if r.decode("stop", &one) {
		return []string{one}
	}
	var many []string
	r.decode("stop", &many)
	return many
}

// User returns the "user" member.
func (r *ChatRequest) User() string {
	var s string
	r.decode("user", &s)
	return s
}

// Metadata returns the "metadata" member (nil when absent or malformed).
func (r *ChatRequest) Metadata() map[string]string {
	var m map[string]string
	r.decode("metadata", &m)
	return m
}
