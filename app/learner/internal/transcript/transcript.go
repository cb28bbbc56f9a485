// Package transcript reads what the learner needs out of a stored turn: the
// conversation of its request (an OpenAI chat request or an Anthropic
// messages request, told apart by their JSON rather than by the turn's API,
// since an Anthropic client routed to an OpenAI upstream is stored
// translated), the user's instruction, and the response's tool calls. It
// also trims long text. Conversation reads only as much of a request as a
// reader asks for, and Digests keeps what memory extraction and skill
// evolution read of each turn, so that a turn's request is read once. It
// reads requests with gjson alone, not with the proxy's request parsers;
// it imports proxy/openai for the tool call type of stored responses only,
// and store for the turns. It is internal to app/learner.
package transcript

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/metaclaw/metaclaw/proxy/openai"
	"github.com/tidwall/gjson"
)

// Roles of a Message.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool" // a tool result
)

// Message is one message of a conversation reduced to text.
type Message struct {
	Role      string
	Text      string
	ToolCalls []ToolCall // assistant messages
}

// ToolCall is a tool call reduced to its name and JSON arguments.
type ToolCall struct {
	Name      string
	Arguments string
}

// Parse returns the conversation of a request body in either wire format,
// read in one walk with gjson (the proxy validated the request before
// storing it; this reads it, it does not check it again). The formats
// share what it reads: a top-level "system" (Anthropic) becomes the first
// message; a message's text is its string content or its "text" parts or
// blocks joined with "\n"; tool calls are OpenAI's "tool_calls" or
// Anthropic's tool_use blocks; Anthropic tool_result blocks become RoleTool
// messages before the rest of their message. OpenAI's "developer" counts
// as RoleSystem, "function" as RoleTool.
func Parse(body []byte) ([]Message, error) {
	c, err := Open(body)
	if err != nil {
		return nil, err
	}
	return c.Messages(), nil
}

// readMessage reads one message: its tool results (Anthropic), then its
// own text and tool calls, which an Anthropic message holding only tool
// results does without.
func readMessage(role string, m gjson.Result) []Message {
	switch role {
	case "developer":
		role = RoleSystem
	case "function":
		role = RoleTool
	}
	own := Message{Role: role}
	content := m.Get("content")
	own.Text = contentText(content)
	var results []Message
	content.ForEach(func(_, b gjson.Result) bool {
		switch b.Get("type").Str {
		case "tool_use":
			own.ToolCalls = append(own.ToolCalls, ToolCall{Name: b.Get("name").Str, Arguments: b.Get("input").Raw})
		case "tool_result":
			results = append(results, Message{Role: RoleTool, Text: contentText(b.Get("content"))})
		}
		return true
	})
	m.Get("tool_calls").ForEach(func(_, tc gjson.Result) bool {
		own.ToolCalls = append(own.ToolCalls, ToolCall{Name: tc.Get("function.name").Str, Arguments: tc.Get("function.arguments").Str})
		return true
	})
	if own.Text != "" || len(own.ToolCalls) > 0 || len(results) == 0 {
		results = append(results, own)
	}
	return results
}

// contentText is the text of content: a string, or the "text" parts
// (OpenAI) or blocks (Anthropic) of an array joined with "\n".
func contentText(c gjson.Result) string {
	if c.Type == gjson.String {
		return c.Str
	}
	var texts []string
	if c.IsArray() {
		c.ForEach(func(_, p gjson.Result) bool {
			if p.Get("type").Str == "text" {
				texts = append(texts, p.Get("text").Str)
			}
			return true
		})
	}
	return strings.Join(texts, "\n")
}

// openclawContext is OpenClaw's internal-context block (its active exec
// sessions and subagents), which it sends as a user message of its own
// at the end of every request: the agent's bookkeeping, not the person's
// words.
var openclawContext = regexp.MustCompile(`(?s)<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>.*?<<<END_OPENCLAW_INTERNAL_CONTEXT>>>`)

// Instruction returns the text of the last user message that has any: the
// person's latest instruction (tool results are not user text, nor is
// OpenClaw's internal context).
func Instruction(msgs []Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if text := userInstruction(msgs[i]); text != "" {
			return text
		}
	}
	return ""
}

// userInstruction is m's text as an instruction ("" when m is not the
// person's words).
func userInstruction(m Message) string {
	if m.Role != RoleUser {
		return ""
	}
	text := m.Text
	if strings.Contains(text, "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>") {
		text = openclawContext.ReplaceAllString(text, "")
	}
	return strings.TrimSpace(text)
}

// TrailingToolResults returns the tool results after the last assistant
// message: what the agent's previous tool calls returned.
func TrailingToolResults(msgs []Message) []string {
	var out []string
	for i := len(msgs) - 1; i >= 0 && msgs[i].Role != RoleAssistant; i-- {
		if msgs[i].Role == RoleTool {
			out = append([]string{msgs[i].Text}, out...)
		}
	}
	return out
}

// ResponseToolCalls decodes a turn's stored tool calls (a JSON array of
// OpenAI tool calls); it returns nil for empty or unreadable JSON.
func ResponseToolCalls(js string) []ToolCall {
	if strings.TrimSpace(js) == "" {
		return nil
	}
	var calls []openai.ToolCall
	if json.Unmarshal([]byte(js), &calls) != nil {
		return nil
	}
	out := make([]ToolCall, 0, len(calls))
	for _, c := range calls {
		out = append(out, ToolCall{Name: c.Function.Name, Arguments: c.Function.Arguments})
	}
	return out
}

// Trim shortens s to about max bytes, keeping its beginning and its end
// (two thirds and one third) around a note of what was left out. It never
// splits a UTF-8 sequence.
func Trim(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	head := runeStart(s, max*2/3)
	tail := runeStart(s, len(s)-max/3)
	return s[:head] + fmt.Sprintf("\n…[%d bytes omitted]…\n", tail-head) + s[tail:]
}

// runeStart moves i back to the start of the UTF-8 sequence it falls in.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && s[i]&0xC0 == 0x80 {
		i--
	}
	return i
}
