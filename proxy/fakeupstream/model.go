package fakeupstream

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
)

// Model is a scripted model: it answers each chat request (OpenAI chat
// completions or Anthropic messages) by the first of its rules that matches
// the conversation, so that a test can play a whole agent run — tool
// loops, and the learning calls MetaClaw makes in between — in whatever
// order the requests arrive. It only chooses the Reply; the server renders
// it in the request's wire format, streaming included. Use it as the
// default reply:
//
//	m := fakeupstream.NewModel(fakeupstream.TextReply("?"),
//		fakeupstream.Rule{Name: "greet", User: "hello", Steps: []fakeupstream.Reply{{Text: "hi"}}})
//	up.SetDefault(fakeupstream.Reply{Func: m.Reply})
//
// A Model is safe for concurrent use.
type Model struct {
	mu       sync.Mutex // guards the fields below
	rules    []Rule
	hits     map[string]int
	fallback Reply
}

// Rule answers the requests it matches. Every condition that is set must
// hold; a rule with none matches every request.
type Rule struct {
	// Name names the rule for Hits.
	Name string
	// System must be part of the system prompt (every system or developer
	// message, or Anthropic's system, joined by newlines).
	System string
	// NotSystem must not be part of the system prompt.
	NotSystem string
	// User must be part of the last user message.
	User string
	// Match, when set, must report true.
	Match func(Conversation) bool
	// Steps are the replies, chosen by Conversation.Steps: Steps[0]
	// answers the user message, Steps[1] the request that follows the
	// first reply (with its tool results), and so on. The last step
	// answers every later request.
	Steps []Reply
}

// Conversation is what a Model sees of a request.
type Conversation struct {
	System   string
	Messages []ModelMessage // every message but the system ones, in order
	LastUser string         // text of the last user message that is not only tool results
	// Steps counts the assistant messages after that user message: 0 for
	// a fresh question, 1 after one round of tool calls, and so on.
	Steps int
	Tools []string // names of the tools offered
}

// ModelMessage is one message of a Conversation: its role (user,
// assistant, tool) and its text, tool results included.
type ModelMessage struct {
	Role, Text string
}

// NewModel returns a Model that answers with fallback when no rule
// matches.
func NewModel(fallback Reply, rules ...Rule) *Model {
	return &Model{rules: append([]Rule(nil), rules...), hits: map[string]int{}, fallback: fallback}
}

// Add appends a rule; it is tried after the earlier ones.
func (m *Model) Add(r Rule) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rules = append(m.rules, r)
}

// Hits returns how many requests the named rule answered ("" counts the
// fallback's).
func (m *Model) Hits(name string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.hits[name]
}

// Reply chooses the reply to a request; it has the signature of
// Reply.Func.
func (m *Model) Reply(_ *http.Request, body []byte) Reply {
	c := ParseConversation(body)
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range m.rules {
		if !r.matches(c) || len(r.Steps) == 0 {
			continue
		}
		m.hits[r.Name]++
		return r.Steps[min(c.Steps, len(r.Steps)-1)]
	}
	m.hits[""]++
	return m.fallback
}

func (r *Rule) matches(c Conversation) bool {
	switch {
	case r.System != "" && !strings.Contains(c.System, r.System):
		return false
	case r.NotSystem != "" && strings.Contains(c.System, r.NotSystem):
		return false
	case r.User != "" && !strings.Contains(c.LastUser, r.User):
		return false
	case r.Match != nil && !r.Match(c):
		return false
	}
	return true
}

// wireRequest holds what ParseConversation reads of both request formats.
type wireRequest struct {
	System   json.RawMessage `json:"system"` // Anthropic: a string or text blocks
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"` // a string or content blocks
	} `json:"messages"`
	Tools []struct {
		Name     string `json:"name"` // Anthropic
		Function struct {
			Name string `json:"name"`
		} `json:"function"` // OpenAI
	} `json:"tools"`
}

// wireBlock is a content block of either format.
type wireBlock struct {
	Type    string          `json:"type"`
	Text    string          `json:"text"`
	Content json.RawMessage `json:"content"` // Anthropic tool_result
}

// ParseConversation reads the conversation of an OpenAI chat completions
// or Anthropic messages request body; what it cannot read stays empty.
func ParseConversation(body []byte) Conversation {
	var req wireRequest
	var c Conversation
	if json.Unmarshal(body, &req) != nil {
		return c
	}
	var system []string
	if s := contentText(req.System); s != "" {
		system = append(system, s)
	}
	for _, t := range req.Tools {
		c.Tools = append(c.Tools, t.Name+t.Function.Name)
	}
	for _, msg := range req.Messages {
		text := contentText(msg.Content)
		switch {
		case msg.Role == "system" || msg.Role == "developer":
			system = append(system, text)
			continue
		case msg.Role == "user" && !onlyToolResults(msg.Content):
			c.LastUser, c.Steps = text, 0
		case msg.Role == "assistant":
			c.Steps++
		}
		c.Messages = append(c.Messages, ModelMessage{Role: msg.Role, Text: text})
	}
	c.System = strings.Join(system, "\n")
	return c
}

// contentText joins the text of a string or of content blocks (tool
// results' contents included).
func contentText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []wireBlock
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		switch {
		case b.Text != "":
			parts = append(parts, b.Text)
		case len(b.Content) > 0:
			parts = append(parts, contentText(b.Content))
		}
	}
	return strings.Join(parts, "\n")
}

// onlyToolResults reports whether content is Anthropic tool_result blocks
// and nothing else.
func onlyToolResults(raw json.RawMessage) bool {
	var blocks []wireBlock
	if json.Unmarshal(raw, &blocks) != nil || len(blocks) == 0 {
		return false
	}
	for _, b := range blocks {
		if b.Type != "tool_result" {
			return false
		}
	}
	return true
}
