package anthropic

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/metaclaw/metaclaw/proxy/internal/rawjson"
	"github.com/tidwall/gjson"
)

// The readers below build messages, content and blocks from gjson views
// of valid JSON. They are the one reader of these types: Messages and
// System call them on the request's own copy of the body (the strings
// they return may be views of it, which nothing writes), and the
// UnmarshalJSON methods on a copy of what encoding/json hands them. Like
// decoding, they take the last of repeated keys, keep raw members as
// their bytes ("null" included) and refuse a member of the wrong type.

// readMessage reads a message: "role" and "content", the rest in Extra.
func readMessage(m gjson.Result) (Message, error) {
	if !m.IsObject() {
		return Message{}, errors.New("must be an object")
	}
	var out Message
	var role, content gjson.Result
	m.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "role":
			role = v
		case "content":
			content = v
		default:
			out.Extra = addExtra(out.Extra, k.Str, v)
		}
		return true
	})
	var err error
	if out.Role, err = stringMember("role", role); err != nil {
		return Message{}, err
	}
	if out.Content, err = readContent(content); err != nil {
		return Message{}, fmt.Errorf("content: %w", err)
	}
	return out, nil
}

// readContent reads content: null (or absent), a string or blocks.
func readContent(c gjson.Result) (Content, error) {
	switch {
	case c.Type == gjson.Null:
		return Content{}, nil
	case c.Type == gjson.String:
		return TextContent(c.Str), nil
	case !c.IsArray():
		return Content{}, errors.New("must be a string or an array of blocks")
	}
	var buf [4]Block // most content has a few blocks: collect them here, then copy them out once
	blocks := buf[:0]
	var err error
	c.ForEach(func(i, v gjson.Result) bool {
		var b Block
		if b, err = readBlock(v); err != nil {
			err = fmt.Errorf("%d: %w", i.Int(), err)
			return false
		}
		blocks = append(blocks, b)
		return true
	})
	if err != nil {
		return Content{}, err
	}
	return BlocksContent(slices.Clone(blocks)...), nil
}

// readBlock reads a block: the members named in blockKeys, the rest in
// Extra.
func readBlock(b gjson.Result) (Block, error) {
	if !b.IsObject() {
		return Block{}, errors.New("must be an object")
	}
	var known [len(blockKeys)]gjson.Result
	var out Block
	b.ForEach(func(k, v gjson.Result) bool {
		if i := slices.Index(blockKeys[:], k.Str); i >= 0 {
			known[i] = v
		} else {
			out.Extra = addExtra(out.Extra, k.Str, v)
		}
		return true
	})
	out.Input, out.CacheControl = rawValue(known[blockInput]), rawValue(known[blockCacheControl])
	for _, s := range []struct {
		key int
		dst *string
	}{
		{blockType, &out.Type}, {blockText, &out.Text}, {blockID, &out.ID}, {blockName, &out.Name},
		{blockToolUseID, &out.ToolUseID}, {blockThinking, &out.Thinking}, {blockSignature, &out.Signature}, {blockData, &out.Data},
	} {
		var err error
		if *s.dst, err = stringMember(blockKeys[s.key], known[s.key]); err != nil {
			return Block{}, err
		}
	}
	return out, readBlockValues(&out, &known)
}

// readBlockValues reads the block members that are not strings.
func readBlockValues(out *Block, known *[len(blockKeys)]gjson.Result) error {
	switch v := known[blockIsError]; v.Type {
	case gjson.True, gjson.False, gjson.Null:
		out.IsError = v.Type == gjson.True
	default:
		return errors.New("is_error: must be a boolean")
	}
	var err error
	if out.Source, err = readSource(known[blockSource]); err != nil {
		return err
	}
	if c := known[blockContent]; c.Type != gjson.Null {
		content, err := readContent(c)
		if err != nil {
			return fmt.Errorf("content: %w", err)
		}
		out.Content = &content
	}
	return nil
}

// readSource reads an image source: nil when null or absent.
func readSource(s gjson.Result) (*ImageSource, error) {
	if s.Type == gjson.Null {
		return nil, nil
	}
	if !s.IsObject() {
		return nil, errors.New("source: must be an object")
	}
	src := new(ImageSource)
	fields := map[string]*string{"type": &src.Type, "media_type": &src.MediaType, "data": &src.Data, "url": &src.URL, "file_id": &src.FileID}
	var err error
	s.ForEach(func(k, v gjson.Result) bool {
		if dst, ok := fields[k.Str]; ok {
			*dst, err = stringMember("source."+k.Str, v)
		}
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	return src, nil
}

// stringMember reads a member decoded into a string: null (or absent)
// leaves it empty.
func stringMember(name string, v gjson.Result) (string, error) {
	if !rawjson.IsText(v) {
		return "", fmt.Errorf("%s: must be a string", name)
	}
	return v.Str, nil
}

// rawValue is a member kept raw: nil when absent, else a copy of its JSON
// ("null" for null).
func rawValue(v gjson.Result) json.RawMessage {
	if v.Raw == "" {
		return nil
	}
	return json.RawMessage(v.Raw)
}

// addExtra sets extra[key] to a copy of v's raw JSON, making the map when
// it is nil, and returns it.
func addExtra(extra map[string]json.RawMessage, key string, v gjson.Result) map[string]json.RawMessage {
	if extra == nil {
		extra = make(map[string]json.RawMessage, 1)
	}
	extra[key] = json.RawMessage(v.Raw)
	return extra
}

// readMessages reads raw, a "messages" member, as Messages returns it.
func readMessages(raw json.RawMessage) ([]Message, error) {
	list := rawjson.View(raw)
	if !list.IsArray() {
		return nil, invalid(CodeInvalidMessages, "messages: must be an array")
	}
	msgs := make([]Message, 0, 16)
	var err error
	list.ForEach(func(i, v gjson.Result) bool {
		var m Message
		if m, err = readMessage(v); err != nil {
			err = invalid(CodeInvalidMessages, "messages.%d: %v", i.Int(), err)
			return false
		}
		msgs = append(msgs, m)
		return true
	})
	return msgs, err
}
