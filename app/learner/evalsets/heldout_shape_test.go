package evalsets

import (
	"encoding/json"
	"fmt"
	"slices"
)

// openaiRequest is the part of a Chat Completions body the held-out
// checks read.
type openaiRequest struct {
	Model    string          `json:"model"`
	Messages []openaiMessage `json:"messages"`
	Tools    []struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

type openaiMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// checkOpenAIShape checks roles, content forms, tool definitions, and that
// each tool message answers a call of the assistant message before it, and
// that the request ends with something for the model to answer.
func checkOpenAIShape(raw json.RawMessage) error {
	var r openaiRequest
	if err := json.Unmarshal(raw, &r); err != nil {
		return err
	}
	if r.Model == "" || len(r.Messages) == 0 {
		return fmt.Errorf("model and messages are required")
	}
	for i, tool := range r.Tools {
		if tool.Type != "function" || tool.Function.Name == "" {
			return fmt.Errorf("tools[%d]: want a named function", i)
		}
	}
	open := map[string]bool{} // tool call ids not answered yet
	for i, m := range r.Messages {
		if err := checkOpenAIMessage(m, open); err != nil {
			return fmt.Errorf("messages[%d]: %w", i, err)
		}
	}
	if last := r.Messages[len(r.Messages)-1].Role; last != "user" && last != "tool" {
		return fmt.Errorf("the last message is %s, not user or tool", last)
	}
	return nil
}

func checkOpenAIMessage(m openaiMessage, open map[string]bool) error {
	switch m.Role {
	case "system", "developer", "user":
		return checkOpenAIContent(m.Content, false)
	case "assistant":
		for _, c := range m.ToolCalls {
			if c.ID == "" || c.Type != "function" || c.Function.Name == "" || !json.Valid([]byte(c.Function.Arguments)) {
				return fmt.Errorf("tool call %q: want an id, a function name and JSON arguments", c.ID)
			}
			open[c.ID] = true
		}
		return checkOpenAIContent(m.Content, len(m.ToolCalls) > 0)
	case "tool":
		if !open[m.ToolCallID] {
			return fmt.Errorf("tool result %q answers no open tool call", m.ToolCallID)
		}
		delete(open, m.ToolCallID)
		return checkOpenAIContent(m.Content, false)
	}
	return fmt.Errorf("unknown role %q", m.Role)
}

// checkOpenAIContent accepts a string or an array of text/image parts;
// null only where the message carries tool calls instead.
func checkOpenAIContent(raw json.RawMessage, nullOK bool) error {
	if len(raw) == 0 || string(raw) == "null" {
		if nullOK {
			return nil
		}
		return fmt.Errorf("content is missing")
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return nil
	}
	var parts []struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return fmt.Errorf("content is neither a string nor parts: %w", err)
	}
	for _, p := range parts {
		if p.Type == "text" && p.Text == nil || p.Type != "text" && p.Type != "image_url" {
			return fmt.Errorf("content part of type %q", p.Type)
		}
	}
	return nil
}

// anthropicRequest is the part of a Messages body the held-out checks
// read.
type anthropicRequest struct {
	Model     string             `json:"model"`
	MaxTokens int                `json:"max_tokens"`
	System    json.RawMessage    `json:"system"`
	Messages  []anthropicMessage `json:"messages"`
	Tools     []struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"input_schema"`
	} `json:"tools"`
}

type anthropicMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
}

// checkAnthropicShape checks the system field, alternating-free roles,
// block types, and that each tool_result answers a tool_use of the
// assistant message just before.
func checkAnthropicShape(raw json.RawMessage) error {
	var r anthropicRequest
	if err := json.Unmarshal(raw, &r); err != nil {
		return err
	}
	if r.Model == "" || r.MaxTokens <= 0 || len(r.Messages) == 0 {
		return fmt.Errorf("model, max_tokens and messages are required")
	}
	if err := checkAnthropicSystem(r.System); err != nil {
		return err
	}
	for i, tool := range r.Tools {
		if tool.Name == "" || !json.Valid(tool.InputSchema) {
			return fmt.Errorf("tools[%d]: want a name and an input_schema", i)
		}
	}
	if r.Messages[0].Role != "user" || r.Messages[len(r.Messages)-1].Role != "user" {
		return fmt.Errorf("messages must start and end with a user message")
	}
	var calls []string // tool_use ids of the last assistant message
	for i, m := range r.Messages {
		next, err := checkAnthropicMessage(m, calls)
		if err != nil {
			return fmt.Errorf("messages[%d]: %w", i, err)
		}
		calls = next
	}
	return nil
}

func checkAnthropicSystem(raw json.RawMessage) error {
	if len(raw) == 0 {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return nil
	}
	var blocks []anthropicBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return fmt.Errorf("system: %w", err)
	}
	for _, b := range blocks {
		if b.Type != "text" || b.Text == nil {
			return fmt.Errorf("system: block of type %q", b.Type)
		}
	}
	return nil
}

// checkAnthropicMessage checks one message given the tool_use ids of the
// assistant message before it, and returns the ids this one opens.
func checkAnthropicMessage(m anthropicMessage, calls []string) ([]string, error) {
	if m.Role != "user" && m.Role != "assistant" {
		return nil, fmt.Errorf("unknown role %q", m.Role)
	}
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return nil, nil
	}
	var blocks []anthropicBlock
	if err := json.Unmarshal(m.Content, &blocks); err != nil {
		return nil, fmt.Errorf("content is neither a string nor blocks: %w", err)
	}
	var opened []string
	for _, b := range blocks {
		switch {
		case b.Type == "text" && b.Text != nil, b.Type == "image", b.Type == "thinking":
		case b.Type == "tool_use" && m.Role == "assistant" && b.ID != "" && b.Name != "" && json.Valid(b.Input):
			opened = append(opened, b.ID)
		case b.Type == "tool_result" && m.Role == "user":
			if !slices.Contains(calls, b.ToolUseID) {
				return nil, fmt.Errorf("tool_result %q answers no tool_use of the message before", b.ToolUseID)
			}
		default:
			return nil, fmt.Errorf("%s block of type %q is malformed", m.Role, b.Type)
		}
	}
	return opened, nil
}
