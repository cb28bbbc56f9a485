package toolparse

import (
	"strings"
)

// section describes a format whose calls sit in one section of special
// tokens: begin, then calls each between callBegin and callEnd, then end.
type section struct {
	begins             []string // any of these opens the section
	ends               []string // any of these closes it
	callBegin, callEnd string
	call               func(inner string) (ToolCall, bool)
}

// kimiSection is Kimi K2's and K2.5's markup, as MoonshotAI/Kimi-K2
// docs/tool_call_guidance.md describes it: the calls sit between
// <|tool_calls_section_begin|> and <|tool_calls_section_end|>, each
// between <|tool_call_begin|> and <|tool_call_end|>, its id and JSON
// arguments separated by <|tool_call_argument_begin|>; the id is
// functions.{name}:{idx}. K2.5's chat template renders an assistant's
// calls back the same way from each call's id and arguments (the
// render_toolcalls macro of its chat_template.jinja). Some checkpoints
// write the section names in the singular, which Thinking Machines'
// tinker-cookbook (tinker_cookbook/renderers/kimi_k2.py) also accepts.
var kimiSection = section{
	begins:    []string{"<|tool_calls_section_begin|>", "<|tool_call_section_begin|>"},
	ends:      []string{"<|tool_calls_section_end|>", "<|tool_call_section_end|>"},
	callBegin: "<|tool_call_begin|>",
	callEnd:   "<|tool_call_end|>",
	call:      kimiCall,
}

var deepseekSection = section{
	begins:    []string{"<｜tool▁calls▁begin｜>"},
	ends:      []string{"<｜tool▁calls▁end｜>"},
	callBegin: "<｜tool▁call▁begin｜>",
	callEnd:   "<｜tool▁call▁end｜>",
	call:      deepseekCall,
}

// sections takes out every section whose calls all parse. A section left
// open at the end counts when its calls are whole (sampling stopped at the
// end token); any other section stays in the content as written.
func (p *parser) sections(text string, sec section) ([]ToolCall, []string) {
	var calls []ToolCall
	var content []string
	var cur strings.Builder
	for {
		open, begin := indexAny(text, sec.begins)
		if open < 0 {
			break
		}
		body := text[open+len(begin):]
		end, endMark := indexAny(body, sec.ends)
		endLen := len(endMark)
		if end < 0 {
			end, endLen = len(body), 0
		}
		found, ok := sec.parseCalls(body[:end])
		if !ok {
			cur.WriteString(text[:open+len(begin)])
			text = body
			continue
		}
		cur.WriteString(text[:open])
		content = append(content, cur.String())
		cur.Reset()
		p.take(text[open : open+len(begin)+end+endLen])
		calls = append(calls, found...)
		text = body[end+endLen:]
	}
	cur.WriteString(text)
	return calls, append(content, cur.String())
}

// parseCalls reads the calls of a section body, which must hold nothing
// else but whitespace.
func (sec section) parseCalls(body string) ([]ToolCall, bool) {
	var calls []ToolCall
	for {
		body = strings.TrimSpace(body)
		if body == "" {
			return calls, len(calls) > 0
		}
		rest, ok := strings.CutPrefix(body, sec.callBegin)
		if !ok {
			return nil, false
		}
		inner, after, ok := strings.Cut(rest, sec.callEnd)
		if !ok {
			return nil, false
		}
		call, ok := sec.call(inner)
		if !ok {
			return nil, false
		}
		calls = append(calls, call)
		body = after
	}
}

// kimiCall reads "functions.NAME:IDX<|tool_call_argument_begin|>{json}".
// The id is "functions.NAME:IDX", which Kimi's template expects back.
func kimiCall(inner string) (ToolCall, bool) {
	id, args, ok := strings.Cut(inner, "<|tool_call_argument_begin|>")
	id = strings.TrimSpace(id)
	if !ok || id == "" {
		return ToolCall{}, false
	}
	name := strings.TrimPrefix(id, "functions.")
	if i := strings.LastIndexByte(name, ':'); i >= 0 {
		name = name[:i]
	}
	argText, ok := objectText(args)
	if !ok || name == "" {
		return ToolCall{}, false
	}
	return ToolCall{ID: id, Name: name, Arguments: argText}, true
}

const deepseekSep = "<｜tool▁sep｜>"

// deepseekCall reads V3's "function<｜tool▁sep｜>NAME\n```json\n{json}\n```"
// or V3.1's "NAME<｜tool▁sep｜>{json}".
func deepseekCall(inner string) (ToolCall, bool) {
	head, tail, ok := strings.Cut(inner, deepseekSep)
	if !ok {
		return ToolCall{}, false
	}
	name, args := strings.TrimSpace(head), tail
	if !strings.HasPrefix(strings.TrimSpace(tail), "{") { // V3: type, then name and a json fence
		var fenced string
		name, fenced, ok = strings.Cut(tail, "\n")
		if !ok {
			return ToolCall{}, false
		}
		name = strings.TrimSpace(name)
		fenced = strings.TrimSpace(fenced)
		fenced, ok1 := strings.CutPrefix(fenced, "```json")
		fenced, ok2 := strings.CutSuffix(fenced, "```")
		if !ok1 || !ok2 {
			return ToolCall{}, false
		}
		args = fenced
	}
	argText, ok := objectText(args)
	if !ok || name == "" {
		return ToolCall{}, false
	}
	return ToolCall{ID: newID(), Name: name, Arguments: argText}, true
}

// objectText returns s trimmed if it is one JSON object.
func objectText(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "{") {
		return "", false
	}
	return arguments([]byte(s))
}

// indexAny returns the first position of any of subs in s and which one.
func indexAny(s string, subs []string) (int, string) {
	best, which := -1, ""
	for _, sub := range subs {
		if i := strings.Index(s, sub); i >= 0 && (best < 0 || i < best) {
			best, which = i, sub
		}
	}
	return best, which
}
