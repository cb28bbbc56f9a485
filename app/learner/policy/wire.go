package policy

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/metaclaw/metaclaw/app/learner/policy/toolparse"
	"github.com/metaclaw/metaclaw/app/learner/tinker"
	"github.com/metaclaw/metaclaw/proxy/openai"
	"github.com/metaclaw/metaclaw/proxy/sse"
)

// answer is a decoded completion, ready to send.
type answer struct {
	content   string
	reasoning string
	calls     []toolparse.ToolCall
	finish    string // stop, length or tool_calls
	usage     openai.Usage
}

// decodeAnswer turns a sampled sequence into an answer: the end-of-turn
// token is dropped, the text is cut at the first of the request's stop
// strings (which OpenAI leaves out of the answer), and reasoning and tool
// calls are split out in the model's format.
func (rt *runtime) decodeAnswer(j *job, seq tinker.SampledSequence) answer {
	toks := seq.Tokens
	for len(toks) > 0 && slices.Contains(rt.stopIDs, toks[len(toks)-1]) {
		toks = toks[:len(toks)-1]
	}
	text := rt.tok.Decode(toks)
	cut := false
	for _, s := range j.stops {
		if i := strings.Index(text, s); i >= 0 {
			text, cut = text[:i], true
		}
	}
	st := toolparse.NewStream(rt.format, j.thinking)
	st.Write(text)
	r := st.Result()
	switch {
	case j.noTools && len(r.ToolCalls) > 0:
		// tool_choice "none", yet the model wrote a call: it is text.
		r = toolparse.Result{Content: strings.TrimSpace(text)}
	case j.oneCall && len(r.ToolCalls) > 1:
		r.ToolCalls = r.ToolCalls[:1]
	}
	a := answer{content: r.Content, reasoning: r.Reasoning, calls: r.ToolCalls, finish: "stop",
		usage: openai.Usage{PromptTokens: len(j.prompt), CompletionTokens: len(seq.Tokens),
			TotalTokens: len(j.prompt) + len(seq.Tokens)}}
	switch {
	case len(a.calls) > 0:
		a.finish = "tool_calls"
	case seq.StopReason == "length" && !cut:
		a.finish = "length"
	}
	return a
}

// meta is what every chunk of one answer repeats.
type meta struct {
	id      string
	created int64
	model   string
}

// toolCalls converts parsed calls to the wire form.
func toolCalls(calls []toolparse.ToolCall) []openai.ToolCall {
	out := make([]openai.ToolCall, len(calls))
	for i, c := range calls {
		out[i] = openai.ToolCall{ID: c.ID, Type: "function",
			Function: openai.FunctionCall{Name: c.Name, Arguments: c.Arguments}}
	}
	return out
}

// completionBody is the non-streamed answer.
func completionBody(m meta, a answer) ([]byte, error) {
	msg := openai.ResponseMessage{Role: "assistant", ReasoningContent: a.reasoning}
	if a.content != "" || len(a.calls) == 0 {
		msg.Content = openai.StringPtr(a.content)
	}
	if len(a.calls) > 0 {
		msg.ToolCalls = toolCalls(a.calls)
	}
	usage := a.usage
	return json.Marshal(openai.ChatCompletion{ID: m.id, Object: "chat.completion", Created: m.created, Model: m.model,
		Choices: []openai.Choice{{Index: 0, Message: msg, FinishReason: a.finish}}, Usage: &usage})
}

// pieceSize is the most text one streamed delta carries.
const pieceSize = 48

// streamChunks is the answer as the chunks of a stream: the role, the
// reasoning and the content in pieces, each tool call (id and name, then
// its arguments in pieces), the finish reason, and the usage when asked
// for.
func streamChunks(m meta, a answer, includeUsage bool) []openai.ChatCompletionChunk {
	var out []openai.ChatCompletionChunk
	add := func(d openai.Delta) {
		out = append(out, chunk(m, []openai.ChunkChoice{{Delta: d}}))
	}
	add(openai.Delta{Role: "assistant", Content: openai.StringPtr("")})
	for _, p := range pieces(a.reasoning, pieceSize) {
		add(openai.Delta{ReasoningContent: openai.StringPtr(p)})
	}
	for _, p := range pieces(a.content, pieceSize) {
		add(openai.Delta{Content: openai.StringPtr(p)})
	}
	for i, c := range a.calls {
		add(openai.Delta{ToolCalls: []openai.ToolCallDelta{{Index: i, ID: c.ID, Type: "function",
			Function: &openai.FunctionCallDelta{Name: c.Name}}}})
		for _, p := range pieces(c.Arguments, pieceSize) {
			add(openai.Delta{ToolCalls: []openai.ToolCallDelta{{Index: i, Function: &openai.FunctionCallDelta{Arguments: p}}}})
		}
	}
	finish := a.finish
	out = append(out, chunk(m, []openai.ChunkChoice{{FinishReason: &finish}}))
	if includeUsage {
		last := chunk(m, []openai.ChunkChoice{})
		usage := a.usage
		last.Usage = &usage
		out = append(out, last)
	}
	return out
}

func chunk(m meta, choices []openai.ChunkChoice) openai.ChatCompletionChunk {
	return openai.ChatCompletionChunk{ID: m.id, Object: "chat.completion.chunk", Created: m.created, Model: m.model, Choices: choices}
}

// streamBody is the SSE body of a streamed answer, ending with
// "data: [DONE]".
func streamBody(m meta, a answer, includeUsage bool) ([]byte, error) {
	var buf []byte
	for _, c := range streamChunks(m, a, includeUsage) {
		data, err := json.Marshal(c)
		if err != nil {
			return nil, err
		}
		buf = sse.AppendEvent(buf, "", data)
	}
	return sse.AppendEvent(buf, "", []byte("[DONE]")), nil
}

// pieces splits s into parts of at most n bytes, never inside a UTF-8
// character (a character longer than n is a part of its own).
func pieces(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		end := min(n, len(s))
		for end < len(s) && end > 0 && !utf8.RuneStart(s[end]) {
			end--
		}
		if end == 0 {
			_, end = utf8.DecodeRuneInString(s)
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}
