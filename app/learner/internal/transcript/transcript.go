// Package transcript reads what the learner needs out of a stored turn: the
// conversation of its request (an OpenAI chat request or an Anthropic
// messages request, told apart by their JSON rather than by the turn's API,
// since an Anthropic client routed to an OpenAI upstream is stored
// translated), the user's instruction, and the response's tool calls. It
// also trims long text. It is internal to app/learner and imports only the
// proxy's pure wire-format packages.
package transcript

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/metaclaw/metaclaw/proxy/anthropic"
	"github.com/metaclaw/metaclaw/proxy/openai"
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

// Parse returns the conversation of a request body in either wire format.
// Anthropic tool_result blocks become RoleTool messages; the system prompt,
// when there is one, comes first.
func Parse(body []byte) ([]Message, error) {
	if isAnthropic(body) {
		msgs, err := parseAnthropic(body)
		if err == nil {
			return msgs, nil
		}
	}
	msgs, err := parseOpenAI(body)
	if err != nil {
		if alt, aerr := parseAnthropic(body); aerr == nil {
			return alt, nil
		}
		return nil, fmt.Errorf("parse request: %w", err)
	}
	return msgs, nil
}

// isAnthropic tells an Anthropic messages request from an OpenAI chat
// request: a top-level "system", or content blocks only Anthropic has.
func isAnthropic(body []byte) bool {
	var probe struct {
		System   json.RawMessage `json:"system"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &probe) != nil {
		return false
	}
	if len(probe.System) > 0 && string(probe.System) != "null" {
		return true
	}
	for _, m := range probe.Messages {
		switch m.Role {
		case "system", "developer", "tool":
			return false
		}
		var blocks []struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			switch b.Type {
			case "tool_use", "tool_result", "thinking", "redacted_thinking":
				return true
			}
		}
	}
	return false
}

func parseOpenAI(body []byte) ([]Message, error) {
	req, err := openai.ParseChatRequest(body)
	if err != nil {
		return nil, err
	}
	in, err := req.Messages()
	if err != nil {
		return nil, err
	}
	out := make([]Message, 0, len(in))
	for _, m := range in {
		msg := Message{Role: m.Role, Text: m.Content.String()}
		switch m.Role {
		case "developer":
			msg.Role = RoleSystem
		case "function":
			msg.Role = RoleTool
		}
		for _, tc := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, ToolCall{Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		out = append(out, msg)
	}
	return out, nil
}

func parseAnthropic(body []byte) ([]Message, error) {
	req, err := anthropic.ParseMessagesRequest(body)
	if err != nil {
		return nil, err
	}
	in, err := req.Messages()
	if err != nil {
		return nil, err
	}
	var out []Message
	if sys, err := req.System(); err == nil && sys.Kind != anthropic.ContentAbsent {
		out = append(out, Message{Role: RoleSystem, Text: sys.Join("\n")})
	}
	for _, m := range in {
		out = append(out, fromAnthropic(m)...)
	}
	return out, nil
}

// fromAnthropic splits one Anthropic message into tool results and the
// message's own text and tool calls.
func fromAnthropic(m anthropic.Message) []Message {
	if m.Content.Kind != anthropic.ContentBlocks {
		return []Message{{Role: m.Role, Text: m.Content.Text}}
	}
	var out []Message
	own := Message{Role: m.Role}
	var texts []string
	for _, b := range m.Content.Blocks {
		switch b.Type {
		case "text":
			texts = append(texts, b.Text)
		case "tool_use":
			own.ToolCalls = append(own.ToolCalls, ToolCall{Name: b.Name, Arguments: string(b.Input)})
		case "tool_result":
			text := ""
			if b.Content != nil {
				text = b.Content.Join("\n")
			}
			out = append(out, Message{Role: RoleTool, Text: text})
		}
	}
	own.Text = strings.Join(texts, "\n")
	if own.Text != "" || len(own.ToolCalls) > 0 || len(out) == 0 {
		out = append(out, own)
	}
	return out
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
		if msgs[i].Role != RoleUser {
			continue
		}
		text := msgs[i].Text
		if strings.Contains(text, "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>") {
			text = openclawContext.ReplaceAllString(text, "")
		}
		if text = strings.TrimSpace(text); text != "" {
			return text
		}
	}
	return ""
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
