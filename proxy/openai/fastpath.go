package openai

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/metaclaw/metaclaw/proxy/internal/rawjson"
	"github.com/tidwall/gjson"
)

// The proxy's hot path reads a request's messages without decoding them
// into Message values: ParseChatRequest splits the array once, checks each
// message's member types with gjson (the same checks Messages' decoding
// makes, so a request that passes here also decodes), and keeps the split
// so Conversation and InjectSystem do not scan the array again. A fuzz
// test holds the two paths to the same verdicts and texts.

// RoleText is a message's role and the text of its content (see
// Content.String).
type RoleText struct {
	Role string
	Text string
}

// msgCache is the split "messages" member: raw is the member the split was
// made from, so a later SetField invalidates it.
type msgCache struct {
	raw   json.RawMessage
	items []json.RawMessage
	roles []string
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
	items, ok := rawjson.SplitArray(raw)
	if !ok {
		return nil, nil, invalid(CodeInvalidMessages, "messages", "'messages' must be an array")
	}
	roles := make([]string, len(items))
	for i, item := range items {
		role, err := checkMessage(item, i)
		if err != nil {
			return nil, nil, err
		}
		roles[i] = role
	}
	r.msgs = &msgCache{raw: raw, items: items, roles: roles}
	return items, roles, nil
}

// Conversation returns each message's role and text, in order.
func (r *ChatRequest) Conversation() ([]RoleText, error) {
	items, roles, err := r.items()
	if err != nil {
		return nil, err
	}
	out := make([]RoleText, len(items))
	for i, item := range items {
		out[i] = RoleText{Role: roles[i], Text: contentText(rawjson.View(item).Get("content"))}
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
		if p.Get("type").String() == "text" {
			texts = append(texts, p.Get("text").String())
		}
		return true
	})
	return strings.Join(texts, "\n")
}

// checkMessage checks the members of messages[i] that Message decodes and
// returns its role.
func checkMessage(item json.RawMessage, i int) (string, error) {
	m := rawjson.View(item)
	bad := func(what string) error {
		return invalid(CodeInvalidMessages, "messages", "invalid 'messages': messages[%d]: %s", i, what)
	}
	if !m.IsObject() {
		return "", invalid(CodeInvalidMessages, fmt.Sprintf("messages[%d]", i),
			"messages[%d] must be an object with a string 'role'", i)
	}
	role := m.Get("role")
	if role.Type != gjson.String {
		return "", invalid(CodeInvalidMessages, fmt.Sprintf("messages[%d]", i),
			"messages[%d] must be an object with a string 'role'", i)
	}
	for _, k := range []string{"name", "tool_call_id", "reasoning_content"} {
		if !stringOrNull(m.Get(k)) {
			return "", bad("'" + k + "' must be a string")
		}
	}
	if !contentOK(m.Get("content")) {
		return "", bad("'content' must be a string, an array of content parts or null")
	}
	if !toolCallsOK(m.Get("tool_calls")) {
		return "", bad("'tool_calls' must be an array of tool call objects")
	}
	return role.String(), nil
}

// stringOrNull reports whether v is absent, null or a string.
func stringOrNull(v gjson.Result) bool {
	return !v.Exists() || v.Type == gjson.Null || v.Type == gjson.String
}

// contentOK mirrors Content and ContentPart decoding.
func contentOK(c gjson.Result) bool {
	switch {
	case !c.Exists() || c.Type == gjson.Null || c.Type == gjson.String:
		return true
	case !c.IsArray():
		return false
	}
	ok := true
	c.ForEach(func(_, p gjson.Result) bool {
		ok = p.IsObject() && stringOrNull(p.Get("type")) && stringOrNull(p.Get("text")) && imageURLOK(p.Get("image_url"))
		return ok
	})
	return ok
}

// imageURLOK mirrors decodeImageURL: an object with string members, or a
// string.
func imageURLOK(u gjson.Result) bool {
	if stringOrNull(u) {
		return true
	}
	return u.IsObject() && stringOrNull(u.Get("url")) && stringOrNull(u.Get("detail"))
}

// toolCallsOK mirrors ToolCall decoding.
func toolCallsOK(tcs gjson.Result) bool {
	switch {
	case !tcs.Exists() || tcs.Type == gjson.Null:
		return true
	case !tcs.IsArray():
		return false
	}
	ok := true
	tcs.ForEach(func(_, tc gjson.Result) bool {
		fn := tc.Get("function")
		ok = tc.IsObject() && stringOrNull(tc.Get("id")) && stringOrNull(tc.Get("type")) &&
			(!fn.Exists() || fn.Type == gjson.Null ||
				(fn.IsObject() && stringOrNull(fn.Get("name")) && stringOrNull(fn.Get("arguments"))))
		return ok
	})
	return ok
}
