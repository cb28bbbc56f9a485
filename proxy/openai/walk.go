package openai

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/metaclaw/metaclaw/proxy/internal/rawjson"
	"github.com/tidwall/gjson"
)

// The proxy's hot path reads a request's messages with gjson and never
// decodes them: ParseChatRequest walks the array once, checks the types of
// the members of each message the proxy reads or forwards to a translated
// API, and keeps what it read so Conversation and InjectSystem do not walk
// the array again. Messages decodes, for translation only.

// RoleText is a message's role and the text of its content (see
// Content.String).
type RoleText struct {
	Role string
	Text string
}

// msgCache is the split "messages" member: raw is the member the split was
// made from, so a later SetField invalidates it. The contents' Index is
// their offset in raw.
type msgCache struct {
	raw      json.RawMessage
	items    []json.RawMessage
	roles    []string
	contents []gjson.Result // each message's "content" member, read while checking it
	repeats  []bool         // whether a message repeats a member the checks read
}

// items returns the messages split into raw elements, splitting again when
// the member changed since the last split.
func (r *ChatRequest) items() ([]json.RawMessage, []string, error) {
	raw := r.obj.Get("messages")
	if isNull(raw) {
		return nil, nil, nil
	}
	if c := r.msgs; c != nil && len(c.raw) == len(raw) && &c.raw[0] == &raw[0] {
		return c.items, c.roles, nil
	}
	list := rawjson.View(raw)
	if !list.IsArray() {
		return nil, nil, invalid(CodeInvalidMessages, "messages", "'messages' must be an array")
	}
	c := &msgCache{raw: raw}
	var err error
	list.ForEach(func(_, item gjson.Result) bool {
		m, e := checkMessage(item, len(c.items))
		if err = e; err != nil {
			return false
		}
		c.items = append(c.items, rawjson.Slice(raw, item))
		c.roles, c.contents, c.repeats = append(c.roles, m.role.String()), append(c.contents, m.content), append(c.repeats, m.repeats)
		return true
	})
	if err != nil {
		return nil, nil, err
	}
	r.msgs = c
	return c.items, c.roles, nil
}

// Conversation returns each message's role and text, in order.
func (r *ChatRequest) Conversation() ([]RoleText, error) {
	_, roles, err := r.items()
	if err != nil {
		return nil, err
	}
	out := make([]RoleText, len(roles))
	for i, role := range roles {
		out[i] = RoleText{Role: role, Text: contentText(r.msgs.contents[i])}
	}
	return out, nil
}

// contentText is Content.String for a gjson view of a "content" member.
func contentText(c gjson.Result) string {
	switch {
	case c.Type == gjson.String:
		return c.String()
	case !c.IsArray():
		return ""
	}
	var texts []string
	c.ForEach(func(_, p gjson.Result) bool {
		if f := rawjson.Fields(p, "type", "text"); f[0].Str == "text" {
			texts = append(texts, f[1].Str)
		}
		return true
	})
	return strings.Join(texts, "\n")
}

// message holds the members of one message that the checks look at; like
// encoding/json, the last of repeated keys counts.
type message struct {
	role, content, toolCalls, name, toolCallID, reasoning gjson.Result
	repeats                                               bool // one of them appears twice
}

// members reads a message's members in one pass over it, item being a
// JSON object; only the members the checks read are kept.
func members(item gjson.Result) message {
	var msg message
	item.ForEach(func(k, v gjson.Result) bool {
		var dst *gjson.Result
		switch k.Str {
		case "role":
			dst = &msg.role
		case "content":
			dst = &msg.content
		case "tool_calls":
			dst = &msg.toolCalls
		case "name":
			dst = &msg.name
		case "tool_call_id":
			dst = &msg.toolCallID
		case "reasoning_content":
			dst = &msg.reasoning
		}
		if dst != nil {
			msg.repeats = msg.repeats || dst.Exists()
			*dst = v
		}
		return true
	})
	return msg
}

// checkMessage checks the members of messages[i], m, that the proxy reads
// or translates, and returns them.
func checkMessage(m gjson.Result, i int) (message, error) {
	bad := func(what string) error {
		return invalid(CodeInvalidMessages, "messages", "invalid 'messages': messages[%d]: %s", i, what)
	}
	noRole := func() error {
		return invalid(CodeInvalidMessages, fmt.Sprintf("messages[%d]", i),
			"messages[%d] must be an object with a string 'role'", i)
	}
	if !m.IsObject() {
		return message{}, noRole()
	}
	msg := members(m)
	switch {
	case msg.role.Type != gjson.String:
		return message{}, noRole()
	case !rawjson.IsText(msg.name):
		return message{}, bad("'name' must be a string")
	case !rawjson.IsText(msg.toolCallID):
		return message{}, bad("'tool_call_id' must be a string")
	case !rawjson.IsText(msg.reasoning):
		return message{}, bad("'reasoning_content' must be a string")
	case !contentOK(msg.content):
		return message{}, bad("'content' must be a string, an array of content parts or null")
	case !toolCallsOK(msg.toolCalls):
		return message{}, bad("'tool_calls' must be an array of tool call objects")
	}
	return msg, nil
}

// contentOK checks content: a string, null or an array of part objects
// whose "type", "text" and "image_url" are of the types Content decodes.
func contentOK(c gjson.Result) bool {
	switch {
	case rawjson.IsText(c):
		return true
	case !c.IsArray():
		return false
	}
	ok := true
	c.ForEach(func(_, p gjson.Result) bool {
		f := rawjson.Fields(p, "type", "text", "image_url")
		ok = p.IsObject() && rawjson.IsText(f[0]) && rawjson.IsText(f[1]) && imageURLOK(f[2])
		return ok
	})
	return ok
}

// imageURLOK checks an image_url: a string, or an object with string
// members (see decodeImageURL).
func imageURLOK(u gjson.Result) bool {
	if rawjson.IsText(u) {
		return true
	}
	f := rawjson.Fields(u, "url", "detail")
	return u.IsObject() && rawjson.IsText(f[0]) && rawjson.IsText(f[1])
}

// toolCallsOK checks tool_calls: null or an array of ToolCall objects.
func toolCallsOK(tcs gjson.Result) bool {
	switch {
	case !tcs.Exists() || tcs.Type == gjson.Null:
		return true
	case !tcs.IsArray():
		return false
	}
	ok := true
	tcs.ForEach(func(_, tc gjson.Result) bool {
		f := rawjson.Fields(tc, "id", "type", "function")
		fn, ff := f[2], rawjson.Fields(f[2], "name", "arguments")
		ok = tc.IsObject() && rawjson.IsText(f[0]) && rawjson.IsText(f[1]) &&
			(!fn.Exists() || fn.Type == gjson.Null || (fn.IsObject() && rawjson.IsText(ff[0]) && rawjson.IsText(ff[1])))
		return ok
	})
	return ok
}
