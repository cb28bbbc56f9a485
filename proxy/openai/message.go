package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/metaclaw/metaclaw/proxy/internal/rawjson"
)

// Message is one entry of a Chat Completions request's "messages" array.
// Members the proxy does not model are kept in Extra and written back
// unchanged (after the known members, in sorted key order).
type Message struct {
	Role             string
	Content          Content
	Name             string
	ToolCalls        []ToolCall
	ToolCallID       string
	ReasoningContent string
	Extra            map[string]json.RawMessage
}

var messageKeys = []string{"role", "content", "name", "tool_calls", "tool_call_id", "reasoning_content"}

// UnmarshalJSON implements json.Unmarshaler.
func (m *Message) UnmarshalJSON(data []byte) error {
	known, extra, err := splitKnown(data, messageKeys...)
	if err != nil {
		return err
	}
	var out Message
	out.Extra = extra
	for _, d := range []struct {
		key string
		dst any
	}{
		{"role", &out.Role}, {"content", &out.Content}, {"name", &out.Name},
		{"tool_calls", &out.ToolCalls}, {"tool_call_id", &out.ToolCallID},
		{"reasoning_content", &out.ReasoningContent},
	} {
		if err := decodeInto(known, d.key, d.dst); err != nil {
			return err
		}
	}
	if raw, ok := known["content"]; ok && isNull(raw) {
		out.Content = Content{Kind: ContentNull}
	}
	*m = out
	return nil
}

// MarshalJSON implements json.Marshaler.
func (m Message) MarshalJSON() ([]byte, error) { return m.AppendJSON(nil) }

// AppendJSON appends the message's encoding to dst (rawjson.Appender).
func (m Message) AppendJSON(dst []byte) ([]byte, error) {
	w := rawjson.ObjectAt(dst)
	w.String("role", m.Role)
	if m.Content.Kind != ContentAbsent {
		w.Value("content", m.Content)
	}
	if m.Name != "" {
		w.String("name", m.Name)
	}
	if m.ToolCalls != nil {
		w.Value("tool_calls", toolCalls(m.ToolCalls))
	}
	if m.ToolCallID != "" {
		w.String("tool_call_id", m.ToolCallID)
	}
	if m.ReasoningContent != "" {
		w.String("reasoning_content", m.ReasoningContent)
	}
	w.Extra(m.Extra)
	return w.Bytes()
}

// toolCalls encodes a non-nil list of tool calls without reflection.
type toolCalls []ToolCall

// AppendJSON implements rawjson.Appender.
func (tcs toolCalls) AppendJSON(dst []byte) ([]byte, error) { return rawjson.AppendArray(dst, tcs) }

// ContentKind tells which JSON shape a Content has.
type ContentKind uint8

// Content kinds. The zero value is ContentAbsent.
const (
	ContentAbsent ContentKind = iota // no "content" member
	ContentNull                      // "content": null
	ContentString                    // "content": "..."
	ContentParts                     // "content": [ ...parts ]
)

// Content is a message's content: a string, an array of parts, null or
// absent.
type Content struct {
	Kind  ContentKind
	Text  string        // the content when Kind is ContentString
	Parts []ContentPart // the content when Kind is ContentParts
}

// TextContent returns string content.
func TextContent(s string) Content { return Content{Kind: ContentString, Text: s} }

// PartsContent returns array content made of parts.
func PartsContent(parts ...ContentPart) Content {
	if parts == nil {
		parts = []ContentPart{}
	}
	return Content{Kind: ContentParts, Parts: parts}
}

// String returns the text of the content: the string itself, or the text
// of all text parts joined with "\n".
func (c Content) String() string {
	if c.Kind != ContentParts {
		return c.Text
	}
	var texts []string
	for _, p := range c.Parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// UnmarshalJSON implements json.Unmarshaler.
func (c *Content) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	switch {
	case isNull(data):
		*c = Content{Kind: ContentNull}
	case data[0] == '"':
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		*c = TextContent(s)
	case data[0] == '[':
		var parts []ContentPart
		if err := json.Unmarshal(data, &parts); err != nil {
			return err
		}
		*c = PartsContent(parts...)
	default:
		return errors.New("content must be a string, an array or null")
	}
	return nil
}

// MarshalJSON implements json.Marshaler. Absent content marshals as null.
func (c Content) MarshalJSON() ([]byte, error) { return c.AppendJSON(nil) }

// AppendJSON appends the content's encoding to dst (rawjson.Appender).
func (c Content) AppendJSON(dst []byte) ([]byte, error) {
	switch c.Kind {
	case ContentString:
		return rawjson.AppendString(dst, c.Text), nil
	case ContentParts:
		return rawjson.AppendArray(dst, c.Parts)
	default:
		return append(dst, "null"...), nil
	}
}

// ContentPart is one element of array content. Typical types are "text"
// (Text) and "image_url" (ImageURL); any other member, such as
// "cache_control" or the payload of "input_audio" and "file" parts, is kept
// in Extra.
type ContentPart struct {
	Type     string
	Text     string
	ImageURL *ImageURL
	Extra    map[string]json.RawMessage
}

// ImageURL is the payload of an "image_url" content part.
type ImageURL struct {
	URL    string `json:"url"`
	Detail string `json:"detail,omitempty"`
}

// TextPart returns a text content part.
func TextPart(text string) ContentPart { return ContentPart{Type: "text", Text: text} }

// ImagePart returns an image_url content part.
func ImagePart(url, detail string) ContentPart {
	return ContentPart{Type: "image_url", ImageURL: &ImageURL{URL: url, Detail: detail}}
}

// UnmarshalJSON implements json.Unmarshaler.
func (p *ContentPart) UnmarshalJSON(data []byte) error {
	known, extra, err := splitKnown(data, "type", "text", "image_url")
	if err != nil {
		return err
	}
	out := ContentPart{Extra: extra}
	if err := decodeInto(known, "type", &out.Type); err != nil {
		return err
	}
	if err := decodeInto(known, "text", &out.Text); err != nil {
		return err
	}
	if err := decodeImageURL(known["image_url"], &out.ImageURL); err != nil {
		return err
	}
	*p = out
	return nil
}

// decodeImageURL accepts the object form and the legacy plain-string form.
func decodeImageURL(raw json.RawMessage, dst **ImageURL) error {
	if isNull(raw) {
		return nil
	}
	var u ImageURL
	if err := json.Unmarshal(raw, &u); err != nil {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return fmt.Errorf("decode image_url: %w", err)
		}
		u.URL = s
	}
	*dst = &u
	return nil
}

// MarshalJSON implements json.Marshaler. A text part always has "text".
func (p ContentPart) MarshalJSON() ([]byte, error) { return p.AppendJSON(nil) }

// AppendJSON appends the part's encoding to dst (rawjson.Appender).
func (p ContentPart) AppendJSON(dst []byte) ([]byte, error) {
	w := rawjson.ObjectAt(dst)
	w.String("type", p.Type)
	if p.Text != "" || p.Type == "text" {
		w.String("text", p.Text)
	}
	if p.ImageURL != nil {
		w.Value("image_url", p.ImageURL)
	}
	w.Extra(p.Extra)
	return w.Bytes()
}

// ToolCall is a tool call made by the assistant. Unknown members (for
// example provider extensions carrying thought signatures) are kept in
// Extra.
type ToolCall struct {
	ID       string
	Type     string
	Function FunctionCall
	Extra    map[string]json.RawMessage
}

// FunctionCall names the function called and its JSON-encoded arguments.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// AppendJSON appends the call's encoding to dst (rawjson.Appender), as
// encoding/json would encode the struct.
func (f FunctionCall) AppendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"name":`...)
	dst = rawjson.AppendString(dst, f.Name)
	dst = append(dst, `,"arguments":`...)
	return append(rawjson.AppendString(dst, f.Arguments), '}'), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (tc *ToolCall) UnmarshalJSON(data []byte) error {
	known, extra, err := splitKnown(data, "id", "type", "function")
	if err != nil {
		return err
	}
	out := ToolCall{Extra: extra}
	if err := decodeInto(known, "id", &out.ID); err != nil {
		return err
	}
	if err := decodeInto(known, "type", &out.Type); err != nil {
		return err
	}
	if err := decodeInto(known, "function", &out.Function); err != nil {
		return err
	}
	*tc = out
	return nil
}

// MarshalJSON implements json.Marshaler.
func (tc ToolCall) MarshalJSON() ([]byte, error) { return tc.AppendJSON(nil) }

// AppendJSON appends the tool call's encoding to dst (rawjson.Appender).
func (tc ToolCall) AppendJSON(dst []byte) ([]byte, error) {
	w := rawjson.ObjectAt(dst)
	w.String("id", tc.ID)
	typ := tc.Type
	if typ == "" {
		typ = "function"
	}
	w.String("type", typ)
	w.Value("function", tc.Function)
	w.Extra(tc.Extra)
	return w.Bytes()
}
