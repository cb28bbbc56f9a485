package transcript

import (
	"errors"
	"fmt"
	"iter"

	"github.com/tidwall/gjson"
)

// Conversation is a request's conversation located but not yet read: its
// messages' raw JSON, each turned into Messages only when asked for. Most
// readers want the end of it (the person's latest words, the instruction)
// and an agent's request is mostly the tool results and system prompt
// before them, so reading only the end saves unescaping tens of kilobytes
// a turn.
type Conversation struct {
	system gjson.Result // Anthropic's top-level system; absent for OpenAI
	raw    []gjson.Result
	roles  []string
}

// Open locates the messages of a request body in either wire format. It
// refuses what Parse refuses: a body that is not an object with a messages
// array, a message without a string role.
func Open(body []byte) (*Conversation, error) {
	root := gjson.ParseBytes(body)
	msgs, sys := topMembers(root)
	if !root.IsObject() || !msgs.IsArray() {
		return nil, errors.New("parse request: not a request with a messages array")
	}
	c := &Conversation{}
	if sys.Exists() && sys.Type != gjson.Null {
		c.system = sys
	}
	var err error
	msgs.ForEach(func(i, m gjson.Result) bool {
		role := m.Get("role")
		if !m.IsObject() || role.Type != gjson.String {
			err = fmt.Errorf("parse request: message %d has no string role", i.Int())
			return false
		}
		c.raw, c.roles = append(c.raw, m), append(c.roles, role.Str)
		return true
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// topMembers returns the request's "messages" and "system", the first of
// each as gjson's Get finds it, in one pass over the body rather than one
// Get each (each Get walks the whole body to find a member, or to find
// that it is absent).
func topMembers(root gjson.Result) (msgs, sys gjson.Result) {
	if !root.IsObject() {
		return
	}
	root.ForEach(func(k, v gjson.Result) bool {
		switch {
		case k.Str == "messages" && !msgs.Exists():
			msgs = v
		case k.Str == "system" && !sys.Exists():
			sys = v
		}
		return true
	})
	return
}

// Messages reads every message, in order (what Parse returns).
func (c *Conversation) Messages() []Message {
	var out []Message
	if c.system.Exists() {
		out = append(out, Message{Role: RoleSystem, Text: contentText(c.system)})
	}
	for i, m := range c.raw {
		out = append(out, readMessage(c.roles[i], m)...)
	}
	return out
}

// Backward yields the messages Messages returns in reverse order, reading
// each raw message only when the loop reaches it.
func (c *Conversation) Backward() iter.Seq[Message] {
	return func(yield func(Message) bool) {
		for i := len(c.raw) - 1; i >= 0; i-- {
			msgs := readMessage(c.roles[i], c.raw[i])
			for j := len(msgs) - 1; j >= 0; j-- {
				if !yield(msgs[j]) {
					return
				}
			}
		}
		if c.system.Exists() {
			yield(Message{Role: RoleSystem, Text: contentText(c.system)})
		}
	}
}

// Instruction is Instruction of the conversation's messages, reading only
// those after the person's latest words.
func (c *Conversation) Instruction() string {
	for m := range c.Backward() {
		if text := userInstruction(m); text != "" {
			return text
		}
	}
	return ""
}

// NewUserTexts returns the texts of the user messages after the last
// assistant message, in order: the words the person added this turn.
func (c *Conversation) NewUserTexts() []string {
	var out []string
	for m := range c.Backward() {
		if m.Role == RoleAssistant {
			break
		}
		if m.Role == RoleUser {
			out = append(out, m.Text)
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}
