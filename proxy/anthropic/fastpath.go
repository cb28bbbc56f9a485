package anthropic

import (
	"encoding/json"
	"slices"
	"unicode/utf8"

	"github.com/metaclaw/metaclaw/proxy/internal/rawjson"
	"github.com/tidwall/gjson"
)

// The proxy's hot path reads a request's system prompt and messages
// without encoding/json: ParseMessagesRequest splits "messages" once and
// reads each message's "role" and "content" with gjson while validating
// it, and System and Messages build their values from gjson in one walk
// that also checks every member type decoding checks (the same acceptance
// as Message, Content, Block and ImageSource decoding, and encoding/json's
// nesting limit). They answer from gjson only for a member that decoding
// would accept, and decode otherwise, so that errors are decoding's.
//
// What the walk builds equals what decoding builds:
//   - Repeated keys are read as the decoders read them: the last one for
//     members of messages and blocks (SplitKnown's map keeps it, and
//     matches keys exactly), every one, in order, for an image source's
//     members (struct decoding matches them to fields as foldEqual does
//     and checks each; a null one leaves its field as it was).
//   - Raw members (Input, CacheControl, Extra values) are the member's
//     bytes without surrounding white space, "null" included, as
//     json.RawMessage decoding keeps them; Extra is nil when a message or
//     block has no other members.
//   - Strings are unescaped as encoding/json unescapes them (lone and
//     mispaired surrogate escapes become U+FFFD; rawjson.ForEach walks the
//     members, FuzzUnquote holds its unescaping to encoding/json's) as
//     long as the member is valid UTF-8: encoding/json replaces each
//     invalid byte with U+FFFD, the walk keeps it, so a member that is not
//     valid UTF-8 (possible only after SetField) is decoded.
//
// The walk takes the members for valid JSON, as parsing leaves them and
// SetField requires them. It is stricter than decoding on one point only:
// a message without a string role (see split) is decoded.
//
// A fuzz test holds the two paths to the same verdicts and cmp-equal
// values.

// RoleText is a message reduced to what the proxy reads of it for
// identity, injection and truncation: its role, its text and whether it
// only answers tool calls.
type RoleText struct {
	Role            string
	Text            string // the content's Join("\n"); ToolResultText("\n") when ToolResultsOnly
	ToolResultsOnly bool   // see Content.ToolResultsOnly
}

// Conversation is a request's system prompt text (System().Join("\n")) and
// its messages reduced to RoleText, in order.
type Conversation struct {
	System   string
	Messages []RoleText
}

// Conversation returns the request's conversation: System and Messages,
// reduced. Its errors are theirs.
func (r *MessagesRequest) Conversation() (Conversation, error) {
	sys, err := r.System()
	if err != nil {
		return Conversation{}, err
	}
	msgs, err := r.Messages()
	if err != nil {
		return Conversation{}, err
	}
	return conversationOf(sys, msgs), nil
}

// conversationOf reduces a system prompt and messages to a Conversation.
func conversationOf(sys Content, msgs []Message) Conversation {
	c := Conversation{System: sys.Join("\n"), Messages: make([]RoleText, len(msgs))}
	for i, m := range msgs {
		rt := RoleText{Role: m.Role, ToolResultsOnly: m.Content.ToolResultsOnly()}
		if rt.ToolResultsOnly {
			rt.Text = m.Content.ToolResultText("\n") // what the tools reported, as OpenAI's tool messages carry it
		} else {
			rt.Text = m.Content.Join("\n")
		}
		c.Messages[i] = rt
	}
	return c
}

// System returns the "system" member (a string or text blocks) as
// decoding it gives it; its strings may share the request's copy of the
// body (see Messages).
func (r *MessagesRequest) System() (Content, error) {
	raw := r.obj.Get("system")
	if c, ok := readSystem(raw); ok {
		return c, nil
	}
	return decodeSystem(raw)
}

// Messages returns the "messages" member as decoding it gives it; a
// malformed message is reported as a *RequestError with code
// invalid_messages.
//
// The strings of the messages may be views of the request's own copy of
// the body (see rawjson.ParseObject), never of a caller's buffer; nothing
// writes into that copy (SetField and the setters replace members).
//
// The messages read are kept until the member changes, and later calls
// return them again (the proxy reads them for injection and again to
// translate the request): the caller must not modify them, their blocks,
// raw members or Extra maps. Appending to the slice is safe.
func (r *MessagesRequest) Messages() ([]Message, error) {
	raw := r.obj.Get("messages")
	if c := r.read; c != nil && len(c.raw) == len(raw) && len(raw) > 0 && &c.raw[0] == &raw[0] {
		return c.msgs[:len(c.msgs):len(c.msgs)], nil
	}
	msgs, ok := r.readMessages()
	if !ok {
		var err error
		if msgs, err = r.decodeMessages(); err != nil {
			return nil, err
		}
	}
	if len(raw) > 0 {
		r.read = &msgRead{raw: raw, msgs: msgs}
	}
	return msgs[:len(msgs):len(msgs)], nil
}

// msgRead is what Messages read from raw, the "messages" member.
type msgRead struct {
	raw  json.RawMessage
	msgs []Message
}

// readSystem is System with gjson: raw absent or null, a string, or blocks
// that all decode. It reports false when decoding would fail, or might
// read the strings otherwise. (Parsing already refused a member nested
// deeper than encoding/json decodes: see rawjson.ParseObject.)
func readSystem(raw json.RawMessage) (Content, bool) {
	if isNull(raw) {
		return Content{}, true
	}
	if !utf8.Valid(raw) {
		return Content{}, false
	}
	return readContent(rawjson.View(raw))
}

// readMessages is Messages with gjson; it reports false when decoding
// would fail, or might read the strings otherwise.
func (r *MessagesRequest) readMessages() ([]Message, bool) {
	raw := r.obj.Get("messages")
	if isNull(raw) {
		return nil, true
	}
	split, err := r.split(raw)
	if err != nil || !split.validUTF8 {
		return nil, false
	}
	msgs := make([]Message, len(split.heads))
	for i, h := range split.heads {
		var ok bool
		if msgs[i], ok = readMessage(h); !ok {
			return nil, false
		}
	}
	return msgs, true
}

// msgSplit is the "messages" member split by validate: raw is the member
// it was made from, so a later change of the member invalidates it.
type msgSplit struct {
	raw       json.RawMessage
	heads     []msgHead
	validUTF8 bool // raw is valid UTF-8, so gjson reads its strings as decoding does
}

// msgHead is what validate reads of a message: its "role" and "content"
// members, each the last of its repeats as SplitKnown keeps it (absent
// members are zero Results, of gjson type Null like null ones), and
// whether it has other members, which go to Message.Extra.
type msgHead struct {
	role, content gjson.Result
	item          json.RawMessage // the message
	more          bool            // it has members other than "role" and "content"
}

// split returns raw, the non-null "messages" member, split, splitting (and
// checking) it again when it changed since validate split it. The split
// makes validate's check, stricter than decoding on one point: a message
// without a string role, which can only appear by changing the member
// after parsing, sends Messages to decoding.
func (r *MessagesRequest) split(raw json.RawMessage) (*msgSplit, error) {
	if c := r.msgs; c != nil && len(c.raw) == len(raw) && &c.raw[0] == &raw[0] {
		return c, nil
	}
	return splitMessages(raw, utf8.Valid(raw))
}

// splitMessages makes validate's check of a non-null "messages" member
// (one that decodes into []json.RawMessage, each element an object that
// decodes into struct{Role *string} with Role set) and keeps what it read;
// validUTF8 tells whether raw is valid UTF-8.
func splitMessages(raw json.RawMessage, validUTF8 bool) (*msgSplit, error) {
	items, ok := rawjson.SplitArray(raw)
	if !ok {
		return nil, invalid(CodeInvalidMessages, "messages: must be an array")
	}
	s := &msgSplit{raw: raw, heads: make([]msgHead, len(items)), validUTF8: validUTF8}
	for i, item := range items {
		if s.heads[i], ok = readHead(item); !ok {
			return nil, invalid(CodeInvalidMessages, "messages.%d: must be an object with a string role", i)
		}
	}
	return s, nil
}

// readHead reads a message's head in one pass and reports whether the
// message is an object whose members named "role" in any case (as
// encoding/json matches struct fields) are all strings or null, the last
// of them a string: what decoding into struct{Role *string} accepts.
func readHead(item json.RawMessage) (msgHead, bool) {
	m := rawjson.View(item)
	if !m.IsObject() {
		return msgHead{}, false
	}
	h := msgHead{item: item}
	var role gjson.Result
	ok := true
	rawjson.ForEach(m, func(k, v gjson.Result) bool {
		switch k.Str {
		case "role":
			h.role = v
		case "content":
			h.content = v
		default:
			h.more = true
		}
		if foldEqual(k.Str, "role") {
			role = v
			ok = rawjson.IsText(v)
		}
		return ok
	})
	return h, ok && role.Type == gjson.String
}

// readMessage mirrors Message decoding of a message validate accepted: its
// exact "role" is a string or null (or absent), and its content must
// decode.
func readMessage(h msgHead) (Message, bool) {
	content, ok := readContent(h.content)
	if !ok {
		return Message{}, false
	}
	m := Message{Role: h.role.Str, Content: content}
	if h.more {
		m.Extra = extraMembers(rawjson.View(h.item))
	}
	return m, true
}

// extraMembers returns a message's members other than "role" and
// "content", the last of each key, as SplitKnown leaves them.
func extraMembers(m gjson.Result) map[string]json.RawMessage {
	var extra map[string]json.RawMessage
	rawjson.ForEach(m, func(k, v gjson.Result) bool {
		if k.Str != "role" && k.Str != "content" {
			extra = addExtra(extra, k.Str, v)
		}
		return true
	})
	return extra
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

// readContent mirrors Content decoding: null (or absent), a string, or an
// array of blocks that all decode.
func readContent(c gjson.Result) (Content, bool) {
	switch {
	case c.Type == gjson.Null:
		return Content{}, true
	case c.Type == gjson.String:
		return TextContent(c.Str), true
	case !c.IsArray():
		return Content{}, false
	}
	var buf [4]Block // most content has a few blocks: collect them here, then copy them out once
	blocks := buf[:0]
	ok := true
	rawjson.ForEach(c, func(_, v gjson.Result) bool {
		var b Block
		if b, ok = readBlock(v); ok {
			blocks = append(blocks, b)
		}
		return ok
	})
	out := make([]Block, len(blocks))
	copy(out, blocks)
	return BlocksContent(out...), ok
}

// readBlock mirrors Block decoding: b must be an object whose members
// named in blockKeys, the last of each as SplitKnown keeps it, are null or
// of the type their field decodes; its other members, the last of each
// key, go to Extra.
func readBlock(b gjson.Result) (Block, bool) {
	if !b.IsObject() {
		return Block{}, false
	}
	var known [len(blockKeys)]gjson.Result
	var extra map[string]json.RawMessage
	rawjson.ForEach(b, func(k, v gjson.Result) bool {
		if i := slices.Index(blockKeys[:], k.Str); i >= 0 {
			known[i] = v
		} else {
			extra = addExtra(extra, k.Str, v)
		}
		return true
	})
	return blockOf(&known, extra)
}

// blockOf builds a Block from its known members (indexed as blockKeys)
// and its other members, reporting whether every known member decodes.
func blockOf(known *[len(blockKeys)]gjson.Result, extra map[string]json.RawMessage) (Block, bool) {
	out := Block{Input: rawValue(known[blockInput]), CacheControl: rawValue(known[blockCacheControl]), Extra: extra}
	ok := true
	str := func(key int, dst *string) {
		if ok {
			*dst, ok = stringMember(known[key])
		}
	}
	str(blockType, &out.Type)
	str(blockText, &out.Text)
	str(blockID, &out.ID)
	str(blockName, &out.Name)
	str(blockToolUseID, &out.ToolUseID)
	str(blockThinking, &out.Thinking)
	str(blockSignature, &out.Signature)
	str(blockData, &out.Data)
	if !ok {
		return Block{}, false
	}
	if out.IsError, ok = boolMember(known[blockIsError]); !ok {
		return Block{}, false
	}
	if out.Source, ok = readSource(known[blockSource]); !ok {
		return Block{}, false
	}
	out.Content, ok = contentMember(known[blockContent])
	return out, ok
}

// rawValue is a block member kept raw: nil when absent, else a copy of
// its JSON ("null" for null).
func rawValue(v gjson.Result) json.RawMessage {
	if v.Raw == "" {
		return nil
	}
	return json.RawMessage(v.Raw)
}

// stringMember mirrors decoding a member into a string field: null (or
// absent) leaves it empty, a string sets it, anything else fails.
func stringMember(v gjson.Result) (string, bool) {
	return v.Str, rawjson.IsText(v)
}

// boolMember mirrors decoding a member into a bool field.
func boolMember(v gjson.Result) (bool, bool) {
	return v.Type == gjson.True, v.Type == gjson.True || v.Type == gjson.False || v.Type == gjson.Null
}

// contentMember mirrors decoding a tool result's "content" into *Content:
// nil when null or absent.
func contentMember(v gjson.Result) (*Content, bool) {
	if v.Type == gjson.Null {
		return nil, true
	}
	c, ok := readContent(v)
	return &c, ok
}

// sourceFields are ImageSource's JSON names.
var sourceFields = []string{"type", "media_type", "data", "url", "file_id"}

// readSource mirrors decoding "source" into *ImageSource: nil when null or
// absent, else an object whose members that encoding/json matches to a
// field (see foldEqual) are, every one of them, strings or null; a string
// sets its field, a null leaves it as it was.
func readSource(s gjson.Result) (*ImageSource, bool) {
	if s.Type == gjson.Null {
		return nil, true
	}
	if !s.IsObject() {
		return nil, false
	}
	src := new(ImageSource)
	fields := [...]*string{&src.Type, &src.MediaType, &src.Data, &src.URL, &src.FileID} // as sourceFields
	ok := true
	rawjson.ForEach(s, func(k, v gjson.Result) bool {
		i := slices.IndexFunc(sourceFields, func(f string) bool { return foldEqual(k.Str, f) })
		switch {
		case i < 0 || v.Type == gjson.Null:
		case v.Type == gjson.String:
			*fields[i] = v.Str
		default:
			ok = false
		}
		return ok
	})
	return src, ok
}
