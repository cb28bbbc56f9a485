package anthropic

import (
	"encoding/json"
	"strings"

	"github.com/metaclaw/metaclaw/proxy/internal/rawjson"
	"github.com/tidwall/gjson"
)

// The proxy's hot path reads a request's conversation with gjson and does
// not decode it: ParseMessagesRequest walks "messages" once, checking that
// each message is an object with a string role and keeping its role and
// content, and Conversation reduces those (and the system prompt) to text.
// System and Messages decode, for truncation and translation only.

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

// Conversation returns the request's conversation: the system prompt's
// text and each message's role and text, read with gjson. Its error is
// validation's, for a "messages" member changed since parsing.
func (r *MessagesRequest) Conversation() (Conversation, error) {
	raw := r.obj.Get("messages")
	var heads []msgHead
	if !isNull(raw) {
		split, err := r.split(raw)
		if err != nil {
			return Conversation{}, err
		}
		heads = split.heads
	}
	sys, _ := contentText(rawjson.View(r.obj.Get("system")))
	c := Conversation{System: sys, Messages: make([]RoleText, len(heads))}
	for i, h := range heads {
		text, results := contentText(h.content)
		c.Messages[i] = RoleText{Role: h.role.Str, Text: text, ToolResultsOnly: results}
	}
	return c, nil
}

// contentText reads content with gjson, in one pass over its blocks: its
// text, Content.Join("\n") (a string's text, or the text of the "text"
// blocks of an array), and Content.ToolResultsOnly; when that is true,
// the text is instead Content.ToolResultText("\n"), what the tools
// reported, as OpenAI's tool messages carry it.
func contentText(c gjson.Result) (text string, toolResultsOnly bool) {
	if c.Type == gjson.String {
		return c.Str, false
	}
	if !c.IsArray() {
		return "", false
	}
	var texts, results []string
	toolResultsOnly = true
	c.ForEach(func(_, b gjson.Result) bool {
		f := rawjson.Fields(b, "type", "text", "content")
		switch f[0].Str {
		case "text":
			texts = append(texts, f[1].Str)
		case "tool_result":
			if t, _ := contentText(f[2]); t != "" {
				results = append(results, t)
			}
		}
		toolResultsOnly = toolResultsOnly && f[0].Str == "tool_result"
		return true
	})
	if toolResultsOnly {
		return strings.Join(results, "\n"), true
	}
	return strings.Join(texts, "\n"), false
}

// System decodes the "system" member (a string or text blocks).
func (r *MessagesRequest) System() (Content, error) {
	return decodeSystem(r.obj.Get("system"))
}

// Messages decodes the "messages" member; a malformed message is reported
// as a *RequestError with code invalid_messages.
//
// The messages decoded are kept until the member changes, and later calls
// return them again (the proxy reads them to truncate the request and
// again to translate it): the caller must not modify them, their blocks,
// raw members or Extra maps. Appending to the slice is safe.
func (r *MessagesRequest) Messages() ([]Message, error) {
	raw := r.obj.Get("messages")
	if c := r.read; c != nil && len(c.raw) == len(raw) && len(raw) > 0 && &c.raw[0] == &raw[0] {
		return c.msgs[:len(c.msgs):len(c.msgs)], nil
	}
	msgs, err := r.decodeMessages()
	if err != nil {
		return nil, err
	}
	if len(raw) > 0 {
		r.read = &msgRead{raw: raw, msgs: msgs}
	}
	return msgs[:len(msgs):len(msgs)], nil
}

// msgRead is what Messages decoded from raw, the "messages" member.
type msgRead struct {
	raw  json.RawMessage
	msgs []Message
}

// msgSplit is the "messages" member as validation walked it: raw is the
// member it was made from, so a later change of the member invalidates it.
type msgSplit struct {
	raw   json.RawMessage
	heads []msgHead
}

// msgHead is what validation reads of a message: its "role" and "content"
// members, the last of each when repeated, as decoding keeps them (absent
// members are zero Results, of gjson type Null like null ones).
type msgHead struct {
	role, content gjson.Result
}

// split returns raw, the non-null "messages" member, walked, walking (and
// checking) it again when it changed since validation walked it.
func (r *MessagesRequest) split(raw json.RawMessage) (*msgSplit, error) {
	if c := r.msgs; c != nil && len(c.raw) == len(raw) && &c.raw[0] == &raw[0] {
		return c, nil
	}
	s, err := splitMessages(raw)
	if err == nil {
		r.msgs = s
	}
	return s, err
}

// splitMessages checks a non-null "messages" member, an array of objects
// each with a string "role", and keeps what it read.
func splitMessages(raw json.RawMessage) (*msgSplit, error) {
	list := rawjson.View(raw)
	if !list.IsArray() {
		return nil, invalid(CodeInvalidMessages, "messages: must be an array")
	}
	s := &msgSplit{raw: raw}
	var err error
	list.ForEach(func(_, item gjson.Result) bool {
		h, ok := readHead(item)
		if !ok {
			err = invalid(CodeInvalidMessages, "messages.%d: must be an object with a string role", len(s.heads))
			return false
		}
		s.heads = append(s.heads, h)
		return true
	})
	return s, err
}

// readHead reads a message's role and content in one pass and reports
// whether it is an object whose role is a string.
func readHead(m gjson.Result) (msgHead, bool) {
	if !m.IsObject() {
		return msgHead{}, false
	}
	var h msgHead
	m.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "role":
			h.role = v
		case "content":
			h.content = v
		}
		return true
	})
	return h, h.role.Type == gjson.String
}
