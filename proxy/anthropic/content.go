package anthropic

import (
	"encoding/json"
	"strings"

	"github.com/metaclaw/metaclaw/proxy/internal/rawjson"
	"github.com/tidwall/gjson"
)

// Message is one entry of a Messages request's "messages" array. Unknown
// members are kept in Extra.
type Message struct {
	Role    string
	Content Content
	Extra   map[string]json.RawMessage
}

// UnmarshalJSON implements json.Unmarshaler with readMessage.
func (m *Message) UnmarshalJSON(data []byte) error {
	out, err := readMessage(gjson.Parse(string(data)))
	if err != nil {
		return err
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
	w.Extra(m.Extra)
	return w.Bytes()
}

// ContentKind tells which JSON shape a Content has.
type ContentKind uint8

// Content kinds. The zero value is ContentAbsent (absent or null).
const (
	ContentAbsent ContentKind = iota
	ContentString
	ContentBlocks
)

// Content is message content, a system prompt or a tool result's content:
// a string or an array of blocks.
type Content struct {
	Kind   ContentKind
	Text   string  // the content when Kind is ContentString
	Blocks []Block // the content when Kind is ContentBlocks
}

// TextContent returns string content.
func TextContent(s string) Content { return Content{Kind: ContentString, Text: s} }

// BlocksContent returns block content.
func BlocksContent(blocks ...Block) Content {
	if blocks == nil {
		blocks = []Block{}
	}
	return Content{Kind: ContentBlocks, Blocks: blocks}
}

// Join returns the text of the content: the string itself, or the text
// of all text blocks joined with sep.
func (c Content) Join(sep string) string {
	if c.Kind != ContentBlocks {
		return c.Text
	}
	var texts []string
	for _, b := range c.Blocks {
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
	}
	return strings.Join(texts, sep)
}

// ToolResultText returns the text of the content's tool_result blocks,
// each its content's Join(sep), joined with sep.
func (c Content) ToolResultText(sep string) string {
	var texts []string
	for _, b := range c.Blocks {
		if b.Type == "tool_result" && b.Content != nil {
			if t := b.Content.Join(sep); t != "" {
				texts = append(texts, t)
			}
		}
	}
	return strings.Join(texts, sep)
}

// ToolResultsOnly reports whether c is blocks that are all tool_result
// blocks (none counts): user content that only answers tool calls, nothing
// the person wrote.
func (c Content) ToolResultsOnly() bool {
	if c.Kind != ContentBlocks {
		return false
	}
	for _, b := range c.Blocks {
		if b.Type != "tool_result" {
			return false
		}
	}
	return true
}

// UnmarshalJSON implements json.Unmarshaler with readContent.
func (c *Content) UnmarshalJSON(data []byte) error {
	out, err := readContent(gjson.Parse(string(data)))
	if err != nil {
		return err
	}
	*c = out
	return nil
}

// MarshalJSON implements json.Marshaler. Absent content marshals as null.
func (c Content) MarshalJSON() ([]byte, error) { return c.AppendJSON(nil) }

// AppendJSON appends the content's encoding to dst (rawjson.Appender).
func (c Content) AppendJSON(dst []byte) ([]byte, error) {
	switch c.Kind {
	case ContentString:
		return rawjson.AppendString(dst, c.Text), nil
	case ContentBlocks:
		return rawjson.AppendArray(dst, c.Blocks)
	default:
		return append(dst, "null"...), nil
	}
}

// Block is a content block. One struct covers all block types; which
// fields apply depends on Type:
//
//   - "text": Text
//   - "image": Source
//   - "tool_use": ID, Name, Input
//   - "tool_result": ToolUseID, Content (string or text/image blocks), IsError
//   - "thinking": Thinking, Signature
//   - "redacted_thinking": Data
//
// CacheControl and any other member (citations, other block types'
// payloads) are kept raw.
type Block struct {
	Type         string
	Text         string
	Source       *ImageSource
	ID           string
	Name         string
	Input        json.RawMessage
	ToolUseID    string
	Content      *Content
	IsError      bool
	Thinking     string
	Signature    string
	Data         string
	CacheControl json.RawMessage
	Extra        map[string]json.RawMessage
}

// ImageSource is the source of an image block: {type:"base64", media_type,
// data} or {type:"url", url}.
type ImageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data,omitempty"`
	URL       string `json:"url,omitempty"`
	FileID    string `json:"file_id,omitempty"`
}

// Indexes of the members Block decodes in blockKeys.
const (
	blockType = iota
	blockText
	blockSource
	blockID
	blockName
	blockInput
	blockToolUseID
	blockContent
	blockIsError
	blockThinking
	blockSignature
	blockData
	blockCacheControl
)

// blockKeys are the members Block decodes; the rest go to Extra.
var blockKeys = [...]string{blockType: "type", blockText: "text", blockSource: "source", blockID: "id",
	blockName: "name", blockInput: "input", blockToolUseID: "tool_use_id", blockContent: "content",
	blockIsError: "is_error", blockThinking: "thinking", blockSignature: "signature", blockData: "data",
	blockCacheControl: "cache_control"}

// UnmarshalJSON implements json.Unmarshaler with readBlock.
func (b *Block) UnmarshalJSON(data []byte) error {
	out, err := readBlock(gjson.Parse(string(data)))
	if err != nil {
		return err
	}
	*b = out
	return nil
}

// MarshalJSON implements json.Marshaler. Members required by the block's
// type are always written (e.g. "text" for text blocks, "input" — {} when
// unset — for tool_use blocks); others only when set.
func (b Block) MarshalJSON() ([]byte, error) { return b.AppendJSON(nil) }

// AppendJSON appends the block's encoding to dst (rawjson.Appender).
func (b Block) AppendJSON(dst []byte) ([]byte, error) {
	w := rawjson.ObjectAt(dst)
	w.String("type", b.Type)
	str := func(key, val string, required bool) {
		if val != "" || required {
			w.String(key, val)
		}
	}
	str("text", b.Text, b.Type == "text")
	if b.Source != nil {
		w.Value("source", b.Source)
	}
	str("id", b.ID, b.Type == "tool_use")
	str("name", b.Name, b.Type == "tool_use")
	if len(b.Input) > 0 {
		w.Raw("input", b.Input)
	} else if b.Type == "tool_use" {
		w.Raw("input", json.RawMessage("{}"))
	}
	str("tool_use_id", b.ToolUseID, b.Type == "tool_result")
	if b.Content != nil && b.Content.Kind != ContentAbsent {
		w.Value("content", b.Content)
	}
	if b.IsError {
		w.Value("is_error", true)
	}
	str("thinking", b.Thinking, b.Type == "thinking")
	str("signature", b.Signature, b.Type == "thinking")
	str("data", b.Data, b.Type == "redacted_thinking")
	if len(b.CacheControl) > 0 {
		w.Raw("cache_control", b.CacheControl)
	}
	w.Extra(b.Extra)
	return w.Bytes()
}
