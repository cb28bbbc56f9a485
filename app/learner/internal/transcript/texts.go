package transcript

import (
	"github.com/metaclaw/metaclaw/proxy/openai"
	"github.com/tidwall/gjson"
)

// Texts is Parse without the tool calls, for readers that need only who
// said what (the instruction, the person's new words): it reads the
// messages with the proxy's fast paths instead of decoding them, which
// matters on a long session whose every request holds the whole history.
// Anthropic tool_result messages are RoleTool; the system prompt, when
// there is one, comes first.
func Texts(body []byte) ([]Message, error) {
	if looksAnthropic(body) {
		return withoutToolCalls(Parse(body)) // the decoding reader splits tool results from text
	}
	req, err := openai.ParseChatRequest(body)
	if err != nil {
		return withoutToolCalls(Parse(body))
	}
	conv, err := req.Conversation()
	if err != nil {
		return withoutToolCalls(Parse(body))
	}
	out := make([]Message, len(conv))
	for i, m := range conv {
		out[i] = Message{Role: m.Role, Text: m.Text}
		switch m.Role {
		case "developer":
			out[i].Role = RoleSystem
		case "function":
			out[i].Role = RoleTool
		}
	}
	return out, nil
}

// looksAnthropic is isAnthropic without decoding: a top-level "system", or
// a content block only Anthropic has.
func looksAnthropic(body []byte) bool {
	if gjson.GetBytes(body, "system").Exists() {
		return true
	}
	found := false
	gjson.GetBytes(body, "messages.#.content.#.type").ForEach(func(_, types gjson.Result) bool {
		types.ForEach(func(_, t gjson.Result) bool {
			switch t.Str {
			case "tool_use", "tool_result", "thinking", "redacted_thinking":
				found = true
			}
			return !found
		})
		return !found
	})
	return found
}

func withoutToolCalls(msgs []Message, err error) ([]Message, error) {
	for i := range msgs {
		msgs[i].ToolCalls = nil
	}
	return msgs, err
}
