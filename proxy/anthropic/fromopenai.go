package anthropic

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/metaclaw/metaclaw/proxy/openai"
)

// FromOpenAI translates an OpenAI ChatCompletion body into an Anthropic
// message body, reporting model (the completion's model when empty).
//
// Content blocks, in order: a "thinking" block when the choice carries
// reasoning (reasoning_content or reasoning; its signature is empty since
// OpenAI-compatible providers have none, and ToOpenAI drops thinking blocks
// on the way back), a "text" block when there is content (or a refusal),
// then one "tool_use" block per tool call. Tool arguments that are not a
// JSON object are wrapped as {"_raw": "<arguments>"} so the input is always
// an object; empty arguments become {}.
//
// finish_reason maps as: stop → end_turn (stop_sequence when a vLLM-style
// stop_reason string names the matched sequence), length → max_tokens,
// tool_calls/function_call → tool_use, content_filter → refusal; anything
// else → end_turn. Whenever tool calls are present and the reason is not
// length or content_filter, the stop reason is tool_use so clients run the
// tools. Usage: input_tokens = prompt_tokens − cached_tokens,
// cache_read_input_tokens = cached_tokens, output_tokens =
// completion_tokens.
func FromOpenAI(resp []byte, model string) ([]byte, error) {
	var cc openai.ChatCompletion
	if err := json.Unmarshal(resp, &cc); err != nil {
		return nil, fmt.Errorf("decode completion: %w", err)
	}
	if len(cc.Choices) == 0 {
		return nil, errors.New("decode completion: no choices")
	}
	ch := cc.Choices[0]
	blocks := responseBlocks(ch.Message)
	reason, seq := mapFinish(ch.FinishReason, ch.StopReason, len(ch.Message.ToolCalls) > 0)
	out := MessagesResponse{
		ID:           messageID(cc.ID),
		Type:         "message",
		Role:         "assistant",
		Model:        firstNonEmpty(model, cc.Model),
		Content:      blocks,
		StopReason:   &reason,
		StopSequence: seq,
		Usage:        convertUsage(cc.Usage),
	}
	return marshalJSON(out)
}

// responseBlocks builds the content blocks of a response message.
func responseBlocks(m openai.ResponseMessage) []Block {
	blocks := []Block{}
	if r := m.ReasoningText(); r != "" {
		blocks = append(blocks, Block{Type: "thinking", Thinking: r})
	}
	text := ""
	if m.Content != nil {
		text = *m.Content
	}
	if text == "" && m.Refusal != nil {
		text = *m.Refusal
	}
	if text != "" {
		blocks = append(blocks, Block{Type: "text", Text: text})
	}
	for _, tc := range m.ToolCalls {
		id := tc.ID
		if id == "" {
			id = newID("toolu_")
		}
		blocks = append(blocks, Block{
			Type:  "tool_use",
			ID:    id,
			Name:  tc.Function.Name,
			Input: toolInput(tc.Function.Arguments),
		})
	}
	return blocks
}

// toolInput turns tool call arguments into a JSON object.
func toolInput(args string) json.RawMessage {
	trimmed := strings.TrimSpace(args)
	if trimmed == "" {
		return json.RawMessage("{}")
	}
	if trimmed[0] == '{' && json.Valid([]byte(trimmed)) {
		var buf bytes.Buffer
		if json.Compact(&buf, []byte(trimmed)) == nil {
			return buf.Bytes()
		}
	}
	b, _ := marshalJSON(map[string]string{"_raw": args}) // strings cannot fail
	return b
}

// mapFinish maps an OpenAI finish reason to an Anthropic stop reason and
// stop sequence.
func mapFinish(finish string, stopReason json.RawMessage, hasTools bool) (string, *string) {
	switch finish {
	case "length":
		return StopMaxTokens, nil
	case "content_filter":
		return StopRefusal, nil
	}
	if hasTools {
		return StopToolUse, nil
	}
	switch finish {
	case "tool_calls", "function_call":
		return StopToolUse, nil
	case "stop":
		var seq string
		if json.Unmarshal(stopReason, &seq) == nil && seq != "" {
			return StopStopSequence, &seq
		}
	}
	return StopEndTurn, nil
}

// convertUsage maps OpenAI usage to Anthropic usage.
func convertUsage(u *openai.Usage) Usage {
	if u == nil {
		return Usage{}
	}
	cached := u.CachedTokens()
	return Usage{
		InputTokens:          max(u.PromptTokens-cached, 0),
		OutputTokens:         u.CompletionTokens,
		CacheReadInputTokens: cached,
	}
}

// messageID derives an Anthropic-style message id from an OpenAI id.
func messageID(id string) string {
	switch {
	case id == "":
		return newID("msg_")
	case strings.HasPrefix(id, "msg_"):
		return id
	}
	return "msg_" + strings.TrimPrefix(id, "chatcmpl-")
}

// newID returns prefix followed by 24 random hex digits.
func newID(prefix string) string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return prefix + hex.EncodeToString(b[:])
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
