package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/metaclaw/metaclaw/proxy/internal/rawjson"
	"github.com/metaclaw/metaclaw/proxy/openai"
)

// defaultParameters is used for tools that declare no input schema.
var defaultParameters = json.RawMessage(`{"type":"object","properties":{}}`)

// ToOpenAI translates a Messages request into an OpenAI Chat Completions
// request body for model (req.Model() when model is empty).
//
// Mapping:
//   - system (string, or text blocks joined with "\n\n") becomes the first
//     message, role "system".
//   - user text/image blocks become content parts (a single text block
//     becomes plain string content); base64 images become
//     "data:<media_type>;base64,<data>" image_url parts, url images keep
//     their URL.
//   - user tool_result blocks become one "tool" message each, emitted before
//     the rest of that user message so they directly follow the assistant
//     tool calls. Block content is the text blocks joined with "\n"; images
//     inside a tool result move to the user message that follows (tool
//     messages cannot carry images). is_error prefixes the content with
//     "Error: ".
//   - assistant text blocks (joined with "\n") become content and tool_use
//     blocks become tool_calls with the input as a JSON string; content is
//     null when there are tool calls and no text.
//   - thinking and redacted_thinking blocks, and block types with no
//     Chat Completions equivalent (documents, server tool blocks), are
//     dropped.
//   - tools become function tools (server tools without an input schema are
//     dropped); tool_choice auto/any/tool/none becomes
//     "auto"/"required"/{function}/"none"; disable_parallel_tool_use becomes
//     parallel_tool_calls:false. Both are omitted when no tool remains.
//   - max_tokens, stop_sequences (as stop), temperature and top_p pass
//     through; stream adds stream_options.include_usage; metadata.user_id
//     becomes user. top_k, thinking and unknown members are dropped.
func ToOpenAI(req *MessagesRequest, model string) ([]byte, error) {
	if model == "" {
		model = req.Model()
	}
	msgs, err := convertMessages(req)
	if err != nil {
		return nil, fmt.Errorf("translate request: %w", err)
	}
	// The translation is about as long as the members it comes from.
	size := len(req.Field("system")) + len(req.Field("messages")) + len(req.Field("tools")) + 512
	w := rawjson.NewWriterSize(size)
	w.String("model", model)
	w.Value("messages", msgs)
	writeSampling(w, req)
	if err := writeTools(w, req); err != nil {
		return nil, fmt.Errorf("translate request: %w", err)
	}
	if uid := req.Metadata().UserID; uid != "" {
		w.Value("user", uid)
	}
	return w.Bytes()
}

// writeSampling writes the generation parameters.
func writeSampling(w *objWriter, req *MessagesRequest) {
	if n, ok := req.MaxTokens(); ok {
		w.Value("max_tokens", n)
	}
	if stops := req.StopSequences(); len(stops) > 0 {
		w.Value("stop", stops)
	}
	if f, ok := req.Temperature(); ok {
		w.Value("temperature", f)
	}
	if f, ok := req.TopP(); ok {
		w.Value("top_p", f)
	}
	if req.Stream() {
		w.Value("stream", true)
		w.Raw("stream_options", json.RawMessage(`{"include_usage":true}`))
	}
}

// convertMessages builds the OpenAI message list, system prompt first.
func convertMessages(req *MessagesRequest) ([]openai.Message, error) {
	system, err := req.System()
	if err != nil {
		return nil, err
	}
	msgs, err := req.Messages()
	if err != nil {
		return nil, err
	}
	out := make([]openai.Message, 0, len(msgs)+1)
	if s := system.Join("\n\n"); s != "" {
		out = append(out, openai.Message{Role: "system", Content: openai.TextContent(s)})
	}
	for _, m := range msgs {
		if m.Role == "assistant" {
			out = append(out, convertAssistant(m.Content))
		} else {
			out = append(out, convertUser(m.Role, m.Content)...)
		}
	}
	return out, nil
}

// convertUser translates a user message: tool results first, then the
// remaining text and image parts.
func convertUser(role string, c Content) []openai.Message {
	if c.Kind != ContentBlocks {
		return []openai.Message{{Role: role, Content: openai.TextContent(c.Text)}}
	}
	var out []openai.Message
	var parts []openai.ContentPart
	for _, b := range c.Blocks {
		switch b.Type {
		case "text":
			parts = append(parts, openai.TextPart(b.Text))
		case "image":
			if p, ok := imagePart(b.Source); ok {
				parts = append(parts, p)
			}
		case "tool_result":
			msg, images := convertToolResult(b)
			out = append(out, msg)
			parts = append(parts, images...)
		}
	}
	if len(parts) > 0 || len(out) == 0 {
		out = append(out, openai.Message{Role: role, Content: partsContent(parts)})
	}
	return out
}

// partsContent uses plain string content for a single text part (or none)
// and array content otherwise.
func partsContent(parts []openai.ContentPart) openai.Content {
	switch {
	case len(parts) == 0:
		return openai.TextContent("")
	case len(parts) == 1 && parts[0].Type == "text":
		return openai.TextContent(parts[0].Text)
	default:
		return openai.PartsContent(parts...)
	}
}

// imagePart converts an image source; file sources are not supported.
func imagePart(src *ImageSource) (openai.ContentPart, bool) {
	if src == nil {
		return openai.ContentPart{}, false
	}
	switch src.Type {
	case "base64":
		return openai.ImagePart("data:"+src.MediaType+";base64,"+src.Data, ""), true
	case "url":
		return openai.ImagePart(src.URL, ""), true
	}
	return openai.ContentPart{}, false
}

// convertToolResult returns the tool message for a tool_result block and
// the image parts it contained.
func convertToolResult(b Block) (openai.Message, []openai.ContentPart) {
	var text string
	var images []openai.ContentPart
	if b.Content != nil {
		text = b.Content.Join("\n")
		if b.Content.Kind == ContentBlocks {
			for _, inner := range b.Content.Blocks {
				if inner.Type != "image" {
					continue
				}
				if p, ok := imagePart(inner.Source); ok {
					images = append(images, p)
				}
			}
		}
	}
	if b.IsError {
		if text == "" {
			text = "Error"
		} else {
			text = "Error: " + text
		}
	}
	return openai.Message{Role: "tool", ToolCallID: b.ToolUseID, Content: openai.TextContent(text)}, images
}

// convertAssistant translates an assistant message.
func convertAssistant(c Content) openai.Message {
	msg := openai.Message{Role: "assistant"}
	if c.Kind != ContentBlocks {
		msg.Content = openai.TextContent(c.Text)
		return msg
	}
	var texts []string
	for _, b := range c.Blocks {
		switch b.Type {
		case "text":
			texts = append(texts, b.Text)
		case "tool_use":
			msg.ToolCalls = append(msg.ToolCalls, openai.ToolCall{
				ID: b.ID, Type: "function",
				Function: openai.FunctionCall{Name: b.Name, Arguments: argumentsJSON(b.Input)},
			})
		}
	}
	switch {
	case len(texts) > 0:
		msg.Content = openai.TextContent(strings.Join(texts, "\n"))
	case len(msg.ToolCalls) > 0:
		msg.Content = openai.Content{Kind: openai.ContentNull}
	default:
		msg.Content = openai.TextContent("")
	}
	return msg
}

// argumentsJSON renders a tool_use input as compact JSON text.
func argumentsJSON(input json.RawMessage) string {
	if isNull(input) {
		return "{}"
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, input); err != nil {
		return string(input)
	}
	return buf.String()
}

// writeTools writes tools, tool_choice and parallel_tool_calls.
func writeTools(w *objWriter, req *MessagesRequest) error {
	tools, err := req.Tools()
	if err != nil {
		return err
	}
	var out []openai.Tool
	for _, t := range tools {
		if t.Type != "" && t.Type != "custom" {
			continue // server tool: executed by Anthropic, no OpenAI equivalent
		}
		params := t.InputSchema
		if isNull(params) {
			params = defaultParameters
		}
		out = append(out, openai.Tool{Type: "function", Function: openai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: params,
		}})
	}
	if len(out) == 0 {
		return nil
	}
	w.Value("tools", out)
	if tc, ok := req.ToolChoice(); ok {
		if choice, ok := convertToolChoice(tc); ok {
			w.Value("tool_choice", choice)
		}
		if tc.DisableParallelToolUse {
			w.Value("parallel_tool_calls", false)
		}
	}
	return nil
}

// convertToolChoice maps an Anthropic tool_choice to OpenAI's.
func convertToolChoice(tc ToolChoice) (openai.ToolChoice, bool) {
	switch tc.Type {
	case "auto":
		return openai.ToolChoice{Mode: "auto"}, true
	case "any":
		return openai.ToolChoice{Mode: "required"}, true
	case "none":
		return openai.ToolChoice{Mode: "none"}, true
	case "tool":
		if tc.Name != "" {
			return openai.ToolChoice{Function: tc.Name}, true
		}
	}
	return openai.ToolChoice{}, false
}
