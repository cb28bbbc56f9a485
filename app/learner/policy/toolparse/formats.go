package toolparse

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"
)

// Hermes (Qwen) markup.
const (
	hermesOpen  = "<tool_call>"
	hermesClose = "</tool_call>"
)

// hermes takes out every <tool_call> block that holds a valid call. A
// block left open at the end counts when what follows is a whole call
// (sampling stopped at </tool_call>).
func (p *parser) hermes(text string) ([]ToolCall, []string) {
	var calls []ToolCall
	var content []string
	var cur strings.Builder // content since the last call taken out
	for {
		open := strings.Index(text, hermesOpen)
		if open < 0 {
			break
		}
		body := text[open+len(hermesOpen):]
		end, closeLen := strings.Index(body, hermesClose), len(hermesClose)
		if end < 0 {
			end, closeLen = len(body), 0
		}
		call, ok := jsonCall(body[:end], "arguments", "parameters")
		if !ok {
			// Not a call: keep the opening tag as text and look further.
			cur.WriteString(text[:open+len(hermesOpen)])
			text = body
			continue
		}
		cur.WriteString(text[:open])
		content = append(content, cur.String())
		cur.Reset()
		p.take(text[open : open+len(hermesOpen)+end+closeLen])
		calls = append(calls, call)
		text = body[end+closeLen:]
	}
	cur.WriteString(text)
	return calls, append(content, cur.String())
}

const pythonTag = "<|python_tag|>"

// llama3 reads a message that is one or more JSON calls, separated by
// semicolons or new lines, optionally after <|python_tag|>. Text before
// the tag is content; without the tag, the JSON must be the whole
// message, else it is all content.
func (p *parser) llama3(text string) ([]ToolCall, []string) {
	before, body, tagged := strings.Cut(text, pythonTag)
	if !tagged {
		before, body = "", text
	}
	calls, ok := jsonCalls(body)
	if !ok {
		return nil, []string{text}
	}
	if tagged {
		p.take(pythonTag)
	}
	p.take(body)
	return calls, []string{before}
}

// jsonCalls decodes a run of JSON call objects separated by whitespace or
// semicolons.
func jsonCalls(s string) ([]ToolCall, bool) {
	var calls []ToolCall
	for {
		s = strings.TrimLeftFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == ';' })
		if s == "" {
			return calls, len(calls) > 0
		}
		dec := json.NewDecoder(strings.NewReader(s))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, false
		}
		call, ok := jsonCall(string(raw), "parameters", "arguments")
		if !ok {
			return nil, false
		}
		calls = append(calls, call)
		s = s[dec.InputOffset():]
	}
}

// jsonCall reads {"name": ..., <argsKey>: {...}} (or altKey), with
// arguments an object or a JSON string holding one.
func jsonCall(body string, argsKey, altKey string) (ToolCall, bool) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(strings.TrimSpace(body)), &obj); err != nil {
		return ToolCall{}, false
	}
	var name string
	if err := json.Unmarshal(obj["name"], &name); err != nil || strings.TrimSpace(name) == "" {
		return ToolCall{}, false
	}
	raw, ok := obj[argsKey]
	if !ok {
		raw = obj[altKey]
	}
	args, ok := arguments(raw)
	if !ok {
		return ToolCall{}, false
	}
	return ToolCall{ID: newID(), Name: name, Arguments: args}, true
}

// arguments returns the JSON object text of raw: raw itself, the object
// inside a JSON string, or "{}" when absent or null.
func arguments(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return "{}", true
	case raw[0] == '{':
		return string(raw), json.Valid(raw)
	case raw[0] == '"':
		var inner string
		if err := json.Unmarshal(raw, &inner); err != nil {
			return "", false
		}
		inner = strings.TrimSpace(inner)
		return inner, strings.HasPrefix(inner, "{") && json.Valid([]byte(inner))
	}
	return "", false
}
