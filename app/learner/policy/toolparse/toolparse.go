package toolparse

import (
	"crypto/rand"
	"strings"
)

// Format is a model family's tool-call markup.
type Format string

// The supported formats.
const (
	// FormatHermes is Qwen2.5/Qwen3 and Hermes:
	// <tool_call>{"name": ..., "arguments": {...}}</tool_call>, repeated.
	FormatHermes Format = "hermes"
	// FormatLlama3 is Llama 3.x: the message is one or more JSON objects
	// {"name": ..., "parameters": {...}}, optionally after <|python_tag|>.
	FormatLlama3 Format = "llama3"
	// FormatKimiK2 is Kimi K2's <|tool_calls_section_begin|> section.
	FormatKimiK2 Format = "kimi_k2"
	// FormatDeepSeekV3 is DeepSeek V3 and V3.1 (and R1): the
	// <｜tool▁calls▁begin｜> section, in either version's call layout.
	FormatDeepSeekV3 Format = "deepseek_v3"
)

// FormatFor picks the format from a model name (a Hugging Face id or a
// Tinker base model, any case): Kimi, DeepSeek and Llama models by name
// (Hermes fine-tunes of Llama write Hermes calls), everything else
// Qwen/Hermes.
func FormatFor(model string) Format {
	m := strings.ToLower(model)
	switch {
	case strings.Contains(m, "kimi"):
		return FormatKimiK2
	case strings.Contains(m, "deepseek"):
		return FormatDeepSeekV3
	case strings.Contains(m, "hermes"):
		return FormatHermes
	case strings.Contains(m, "llama"):
		return FormatLlama3
	}
	return FormatHermes
}

// ToolCall is one parsed call.
type ToolCall struct {
	// ID is the model's own id where the format has one (Kimi K2:
	// "functions.NAME:0"), else a new "call_..." id.
	ID string
	// Name is the function name.
	Name string
	// Arguments is a JSON object as text, as the model wrote it.
	Arguments string
}

// Result is a parsed completion.
type Result struct {
	// Content is the text for the user, with the recognised markup taken
	// out and the whitespace around it trimmed; when nothing was
	// recognised, the text exactly as it came.
	Content string
	// Reasoning is the text of the think blocks.
	Reasoning string
	// ToolCalls are the calls, in order.
	ToolCalls []ToolCall
}

// Parse splits a completion in the given format. An unknown format is
// read as Hermes.
func Parse(text string, f Format) Result {
	r, _ := parse(text, f)
	return r
}

// parse also returns the text it took out as markup or calls, which tests
// use to check that nothing was lost.
func parse(text string, f Format) (Result, []string) {
	var p parser
	reasoning, rest := p.splitThink(text)
	var calls []ToolCall
	var content []string
	switch f {
	case FormatLlama3:
		calls, content = p.llama3(rest)
	case FormatKimiK2:
		calls, content = p.sections(rest, kimiSection)
	case FormatDeepSeekV3:
		calls, content = p.sections(rest, deepseekSection)
	default:
		calls, content = p.hermes(rest)
	}
	r := Result{Reasoning: joinTrimmed(reasoning), ToolCalls: calls}
	if len(p.removed) == 0 {
		r.Content = text // nothing recognised: the text as it came
	} else {
		r.Content = joinTrimmed(content)
	}
	return r, p.removed
}

// parser collects what it takes out of the text.
type parser struct {
	removed []string
}

// take records markup or a call's text taken out of the content.
func (p *parser) take(s string) {
	p.removed = append(p.removed, s)
}

// joinTrimmed joins the non-blank parts, each trimmed, with new lines.
func joinTrimmed(parts []string) string {
	var out []string
	for _, s := range parts {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return strings.Join(out, "\n")
}

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// splitThink takes the think blocks out of text: a bare </think> ends
// reasoning that started with the text (the prompt opened the block), and
// an unclosed <think> runs to the end (the sampling stopped inside it).
func (p *parser) splitThink(text string) (reasoning []string, rest string) {
	var content []string
	if i := strings.Index(text, thinkClose); i >= 0 && !strings.Contains(text[:i], thinkOpen) {
		reasoning = append(reasoning, text[:i])
		p.take(thinkClose)
		text = text[i+len(thinkClose):]
	}
	for {
		open := strings.Index(text, thinkOpen)
		if open < 0 {
			break
		}
		content = append(content, text[:open])
		p.take(thinkOpen)
		text = text[open+len(thinkOpen):]
		end := strings.Index(text, thinkClose)
		if end < 0 {
			reasoning = append(reasoning, text)
			text = ""
			break
		}
		reasoning = append(reasoning, text[:end])
		p.take(thinkClose)
		text = text[end+len(thinkClose):]
	}
	content = append(content, text)
	return reasoning, strings.Join(content, "\n")
}

// newID makes the ids of calls whose format has none. Tests replace it.
var newID = randomID

// randomID returns a new OpenAI-style call id.
func randomID() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, 24)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return "call_" + string(b)
}
