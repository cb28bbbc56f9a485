package anthropic

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/metaclaw/metaclaw/proxy/internal/rawjson"
	"github.com/tidwall/gjson"
)

// The proxy's hot path reads a request's conversation without decoding the
// messages into Message values: ParseMessagesRequest splits "messages"
// once and reads each message's "role" and "content" with gjson while
// validating it, and Conversation checks every member type that decoding
// checks (the same acceptance as Message, Content, Block and ImageSource
// decoding, and encoding/json's nesting limit), so it answers from gjson
// only for a request that System and Messages would decode, and decodes
// otherwise, so that errors are theirs. Repeated keys are read as the
// decoders read them: the last one for members of messages and blocks
// (SplitKnown's map keeps it), every one for an image source's members
// (struct decoding checks each). A fuzz test holds the two paths to the
// same verdicts and texts.

// RoleText is a message reduced to what the proxy reads of it for
// identity, injection and truncation: its role, its text and whether it
// only answers tool calls.
type RoleText struct {
	Role            string
	Text            string // the content's Join("\n")
	ToolResultsOnly bool   // see Content.ToolResultsOnly
}

// Conversation is a request's system prompt text (System().Join("\n")) and
// its messages reduced to RoleText, in order.
type Conversation struct {
	System   string
	Messages []RoleText
}

// Conversation returns the request's conversation. Its errors are those of
// System, then Messages: it reads with gjson when both would decode, and
// decodes otherwise.
func (r *MessagesRequest) Conversation() (Conversation, error) {
	if c, ok := r.readConversation(); ok {
		return c, nil
	}
	return r.decodeConversation()
}

// decodeConversation is Conversation by decoding System and Messages.
func (r *MessagesRequest) decodeConversation() (Conversation, error) {
	sys, err := r.System()
	if err != nil {
		return Conversation{}, err
	}
	msgs, err := r.Messages()
	if err != nil {
		return Conversation{}, err
	}
	c := Conversation{System: sys.Join("\n"), Messages: make([]RoleText, len(msgs))}
	for i, m := range msgs {
		c.Messages[i] = RoleText{Role: m.Role, Text: m.Content.Join("\n"), ToolResultsOnly: m.Content.ToolResultsOnly()}
	}
	return c, nil
}

// readConversation is Conversation with gjson; it reports false when
// System or Messages would fail. The texts are views of the request's own
// copy of the body (see rawjson.ParseObject) or unescaped copies, never of
// a caller's buffer.
func (r *MessagesRequest) readConversation() (Conversation, bool) {
	sys, ok := readSystem(r.obj.Get("system"))
	if !ok {
		return Conversation{}, false
	}
	split, err := r.split()
	if err != nil {
		return Conversation{}, false
	}
	c := Conversation{System: sys, Messages: make([]RoleText, len(split.heads))}
	for i, h := range split.heads {
		text, toolResultsOnly, ok := readContent(h.content)
		if !ok {
			return Conversation{}, false
		}
		c.Messages[i] = RoleText{Role: h.role.Str, Text: text, ToolResultsOnly: toolResultsOnly}
	}
	return c, true
}

// readSystem mirrors System: raw absent or null, a string, or blocks that
// all decode, nested no deeper than encoding/json accepts. It returns the
// text System().Join("\n") gives.
func readSystem(raw json.RawMessage) (string, bool) {
	if isNull(raw) {
		return "", true
	}
	if !withinDepth(raw) {
		return "", false
	}
	text, _, ok := readContent(rawjson.View(raw))
	return text, ok
}

// msgSplit is the "messages" member split by validate: raw is the member
// it was made from, so a later change of the member invalidates it.
type msgSplit struct {
	raw   json.RawMessage
	heads []msgHead
}

// msgHead is what Message decoding reads of a message: its "role" and
// "content" members, each the last of its repeats as SplitKnown keeps it
// (absent members are zero Results, of gjson type Null like null ones).
type msgHead struct {
	role, content gjson.Result
}

// split returns the split "messages" member, splitting (and checking) it
// again when it changed since validate split it. Absent or null messages
// split into none, as Messages decodes them. The split makes validate's
// check, stricter than decoding on one point: a message without a string
// role, which can only appear by changing the member after parsing, sends
// Conversation to decoding.
func (r *MessagesRequest) split() (*msgSplit, error) {
	raw := r.obj.Get("messages")
	if isNull(raw) {
		return &msgSplit{}, nil
	}
	if c := r.msgs; c != nil && len(c.raw) == len(raw) && &c.raw[0] == &raw[0] {
		return c, nil
	}
	return splitMessages(raw)
}

// splitMessages makes validate's check of a non-null "messages" member
// (one that decodes into []json.RawMessage, each element an object that
// decodes into struct{Role *string} with Role set) and keeps what it read.
func splitMessages(raw json.RawMessage) (*msgSplit, error) {
	items, ok := rawjson.SplitArray(raw)
	if !ok || !withinDepth(raw) {
		return nil, invalid(CodeInvalidMessages, "messages: must be an array")
	}
	s := &msgSplit{raw: raw, heads: make([]msgHead, len(items))}
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
	var h msgHead
	var role gjson.Result
	ok := true
	m.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "role":
			h.role = v
		case "content":
			h.content = v
		}
		if foldEqual(k.Str, "role") {
			role = v
			ok = v.Type == gjson.String || v.Type == gjson.Null
		}
		return ok
	})
	return h, ok && role.Type == gjson.String
}

// readContent mirrors Content decoding (null, a string, or an array of
// blocks that all decode) and returns the content's Join("\n") and
// ToolResultsOnly.
func readContent(c gjson.Result) (text string, toolResultsOnly, ok bool) {
	switch {
	case c.Type == gjson.Null:
		return "", false, true
	case c.Type == gjson.String:
		return c.Str, false, true
	case !c.IsArray():
		return "", false, false
	}
	var texts []string
	toolResultsOnly, ok = true, true
	c.ForEach(func(_, b gjson.Result) bool {
		var typ, txt string
		if typ, txt, ok = readBlock(b); typ == "text" {
			texts = append(texts, txt)
		}
		toolResultsOnly = toolResultsOnly && typ == "tool_result"
		return ok
	})
	return strings.Join(texts, "\n"), toolResultsOnly, ok
}

// readBlock mirrors Block decoding: b must be an object whose members
// named in blockKeys, the last of each as SplitKnown keeps it, are null or
// of the type their field decodes. It returns the block's type and text.
func readBlock(b gjson.Result) (typ, text string, ok bool) {
	if !b.IsObject() {
		return "", "", false
	}
	var known [len(blockKeys)]gjson.Result
	b.ForEach(func(k, v gjson.Result) bool {
		if i := slices.Index(blockKeys[:], k.Str); i >= 0 {
			known[i] = v
		}
		switch k.Str {
		case "type":
			typ = v.Str
		case "text":
			text = v.Str
		}
		return true
	})
	for i, v := range known {
		if !blockMemberOK(blockKeys[i], v) {
			return "", "", false
		}
	}
	return typ, text, true
}

// blockMemberOK reports whether decoding accepts v as the block member
// key: null (or absent) always, as decodeInto skips it; "input" and
// "cache_control" are kept raw; the others decode into their field.
func blockMemberOK(key string, v gjson.Result) bool {
	switch {
	case v.Type == gjson.Null, key == "input", key == "cache_control":
		return true
	case key == "source":
		return sourceOK(v)
	case key == "content":
		_, _, ok := readContent(v)
		return ok
	case key == "is_error":
		return v.Type == gjson.True || v.Type == gjson.False
	}
	return v.Type == gjson.String
}

// sourceFields are ImageSource's JSON names.
var sourceFields = []string{"type", "media_type", "data", "url", "file_id"}

// sourceOK mirrors decoding a non-null "source" into ImageSource: an
// object whose members that encoding/json matches to a field (see
// foldEqual) are, every one of them, strings or null.
func sourceOK(s gjson.Result) bool {
	if !s.IsObject() {
		return false
	}
	ok := true
	s.ForEach(func(k, v gjson.Result) bool {
		field := slices.ContainsFunc(sourceFields, func(f string) bool { return foldEqual(k.Str, f) })
		ok = !field || v.Type == gjson.String || v.Type == gjson.Null
		return ok
	})
	return ok
}

// foldEqual reports whether encoding/json matches the object key key to a
// struct field named name: whether they are equal once every rune is
// folded as its decoder folds them (see foldRune).
func foldEqual(key, name string) bool {
	for key != "" && name != "" {
		a, n := utf8.DecodeRuneInString(key)
		b, m := utf8.DecodeRuneInString(name)
		if foldRune(a) != foldRune(b) {
			return false
		}
		key, name = key[n:], name[m:]
	}
	return key == "" && name == ""
}

// foldRune folds r as encoding/json does for field names: ASCII letters
// to upper case, ASCII otherwise unchanged, other runes to the smallest
// rune of their case-folding orbit (so the Kelvin sign folds to 'K').
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' {
			r -= 'a' - 'A'
		}
		return r
	}
	for {
		r2 := unicode.SimpleFold(r)
		if r2 <= r {
			return r2
		}
		r = r2
	}
}

// maxDepth is encoding/json's nesting limit: it rejects a value with more
// arrays and objects open at once.
const maxDepth = 10000

// withinDepth reports whether raw, valid JSON, nests no deeper than
// maxDepth. Counting brackets answers for almost any value; only one with
// more brackets than that (some may be inside strings) is scanned.
func withinDepth(raw []byte) bool {
	if bytes.Count(raw, []byte("{"))+bytes.Count(raw, []byte("[")) <= maxDepth {
		return true
	}
	depth, inString := 0, false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			if depth++; depth > maxDepth {
				return false
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return true
}
