package fakeupstream

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// fallbackModel is echoed when a request names no model.
const fallbackModel = "fake-model"

// systemFingerprint is reported in every chat completion.
const systemFingerprint = "fp_fakeupstream"

// chatRequest holds the fields of a chat completion request the fake uses.
type chatRequest struct {
	Model         string `json:"model"`
	Stream        bool   `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

// openaiPlan holds the pre-rendered, request-independent parts of a chat
// completion.
type openaiPlan struct {
	// choices are the JSON of the "choices" element of each streamed chunk,
	// the role chunk first and the finish_reason chunk last.
	choices [][]byte
	// choice is the JSON of choices[0] of the non-streaming response.
	choice []byte
}

// The following types mirror OpenAI's JSON, in OpenAI's key order.

type oaDelta struct {
	Role             string          `json:"role,omitempty"`
	Content          json.RawMessage `json:"content,omitempty"`
	ReasoningContent string          `json:"reasoning_content,omitempty"`
	ToolCalls        []oaToolDelta   `json:"tool_calls,omitempty"`
	Refusal          json.RawMessage `json:"refusal,omitempty"`
}

type oaToolDelta struct {
	Index    int         `json:"index"`
	ID       string      `json:"id,omitempty"`
	Type     string      `json:"type,omitempty"`
	Function oaFuncDelta `json:"function"`
}

type oaFuncDelta struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type oaChunkChoice struct {
	Index        int       `json:"index"`
	Delta        oaDelta   `json:"delta"`
	Logprobs     *struct{} `json:"logprobs"`
	FinishReason *string   `json:"finish_reason"`
}

type oaMessage struct {
	Role             string       `json:"role"`
	Content          *string      `json:"content"`
	ReasoningContent string       `json:"reasoning_content,omitempty"`
	ToolCalls        []oaToolCall `json:"tool_calls,omitempty"`
	Refusal          *string      `json:"refusal"`
	Annotations      []struct{}   `json:"annotations"`
}

type oaToolCall struct {
	ID       string     `json:"id"`
	Type     string     `json:"type"`
	Function oaFunction `json:"function"`
}

type oaFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type oaChoice struct {
	Index        int       `json:"index"`
	Message      oaMessage `json:"message"`
	Logprobs     *struct{} `json:"logprobs"`
	FinishReason string    `json:"finish_reason"`
}

// doneFrame ends every OpenAI stream.
var doneFrame = []byte("data: [DONE]\n\n")

// jsonNull and jsonEmpty are raw JSON values used in deltas.
var (
	jsonNull  = json.RawMessage("null")
	jsonEmpty = json.RawMessage(`""`)
)

// buildOpenAIPlan renders the chat completion fragments of c.
func buildOpenAIPlan(c *compiled) *openaiPlan {
	ids := make([]string, len(c.ToolCalls))
	for i, tc := range c.ToolCalls {
		ids[i] = toolID(tc, "call_")
	}
	return &openaiPlan{choices: openaiStreamChoices(c, ids), choice: openaiChoice(c, ids)}
}

// openaiChoice renders the non-streaming choice.
func openaiChoice(c *compiled, ids []string) []byte {
	msg := oaMessage{Role: "assistant", ReasoningContent: c.Reasoning, Annotations: []struct{}{}}
	if c.Text != "" || len(c.ToolCalls) == 0 {
		text := c.Text
		msg.Content = &text
	}
	for i, tc := range c.ToolCalls {
		msg.ToolCalls = append(msg.ToolCalls, oaToolCall{
			ID: ids[i], Type: "function",
			Function: oaFunction{Name: tc.Name, Arguments: tc.Arguments},
		})
	}
	return marshal(oaChoice{Message: msg, FinishReason: c.openaiFinish()})
}

// openaiStreamChoices renders the streamed choices: the role delta, the
// reasoning and text deltas, the tool call deltas and the finish delta. A
// reply made only of tool calls carries the first call in the role delta,
// with content null, as OpenAI does.
func openaiStreamChoices(c *compiled, ids []string) [][]byte {
	var out [][]byte
	add := func(d oaDelta) { out = append(out, marshal(oaChunkChoice{Delta: d})) }
	n := c.chunkSize()
	toolsOnly := c.Text == "" && c.Reasoning == "" && len(c.ToolCalls) > 0
	first := oaDelta{Role: "assistant", Content: jsonEmpty, Refusal: jsonNull}
	if toolsOnly {
		first.Content = jsonNull
		first.ToolCalls = []oaToolDelta{toolStart(0, ids[0], c.ToolCalls[0].Name)}
	}
	add(first)
	for _, p := range splitRunes(c.Reasoning, n) {
		add(oaDelta{ReasoningContent: p})
	}
	for _, p := range splitRunes(c.Text, n) {
		add(oaDelta{Content: marshal(p)})
	}
	for i, tc := range c.ToolCalls {
		if i > 0 || !toolsOnly {
			add(oaDelta{ToolCalls: []oaToolDelta{toolStart(i, ids[i], tc.Name)}})
		}
		for _, p := range splitRunes(tc.Arguments, n) {
			add(oaDelta{ToolCalls: []oaToolDelta{{Index: i, Function: oaFuncDelta{Arguments: p}}}})
		}
	}
	finish := c.openaiFinish()
	out = append(out, marshal(oaChunkChoice{FinishReason: &finish}))
	return out
}

// toolStart returns the first delta of a tool call.
func toolStart(index int, id, name string) oaToolDelta {
	return oaToolDelta{Index: index, ID: id, Type: "function", Function: oaFuncDelta{Name: name}}
}

// chatHead is the request-dependent part of a chat completion.
type chatHead struct {
	id      string
	created int64
	model   string
	usage   Usage
}

// handleChat serves POST /v1/chat/completions.
func (s *Server) handleChat(w http.ResponseWriter, r *http.Request, body []byte) {
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		s.openaiError(w, http.StatusBadRequest, openaiBadJSON, "", "")
		return
	}
	c := s.nextReply(r, body, true)
	if !s.prelude(r, c) {
		return
	}
	if c.failsUpfront(req.Stream) {
		s.replyError(w, c, false)
		return
	}
	if c.RawBody != nil {
		c.writeRaw(w)
		return
	}
	if req.Model == "" {
		req.Model = fallbackModel
	}
	head := chatHead{id: s.nextID("chatcmpl-"), created: time.Now().Unix(), model: req.Model, usage: c.usage(len(body))}
	hdr := http.Header{"X-Request-Id": {s.nextID("req_")}, "Openai-Version": {"2020-10-01"}}
	if !req.Stream {
		s.writeBody(w, r, c, hdr, openaiBody(head, c.openai()))
		return
	}
	includeUsage := req.StreamOptions != nil && req.StreamOptions.IncludeUsage
	s.streamChat(s.startStream(w, r, c, hdr), head, c.openai(), includeUsage)
}

// openaiBody renders a non-streaming chat.completion.
func openaiBody(h chatHead, p *openaiPlan) []byte {
	b := make([]byte, 0, 256+len(p.choice))
	b = appendChunkHead(b, h, "chat.completion")
	b = append(b, p.choice...)
	b = append(b, `],"usage":`...)
	b = appendOpenAIUsage(b, h.usage)
	b = append(b, `,"service_tier":"default","system_fingerprint":"`+systemFingerprint+`"}`...)
	return b
}

// streamChat writes the chunks of a streaming chat completion.
func (s *Server) streamChat(st *streamer, h chatHead, p *openaiPlan, includeUsage bool) {
	st.errFrame = openaiStreamError(st.c)
	for _, choice := range p.choices {
		b := append(st.buf[:0], "data: "...)
		b = appendChunkHead(b, h, "chat.completion.chunk")
		b = append(b, choice...)
		b = append(b, ']')
		if includeUsage {
			b = append(b, `,"usage":null`...)
		}
		st.buf = append(b, "}\n\n"...)
		if !st.send(st.buf) {
			return
		}
	}
	if includeUsage {
		b := append(st.buf[:0], "data: "...)
		b = appendChunkHead(b, h, "chat.completion.chunk")
		b = append(b, `],"usage":`...)
		b = appendOpenAIUsage(b, h.usage)
		st.buf = append(b, "}\n\n"...)
		if !st.send(st.buf) {
			return
		}
	}
	st.send(doneFrame)
}

// appendChunkHead appends `{"id":…,"object":…,"created":…,"model":…,
// ["service_tier":…,]"system_fingerprint":…,"choices":[` for a chunk, or
// the non-streaming prefix (which puts service_tier and system_fingerprint
// at the end, as OpenAI does).
func appendChunkHead(b []byte, h chatHead, object string) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, h.id)
	b = append(b, `,"object":"`...)
	b = append(b, object...)
	b = append(b, `","created":`...)
	b = strconv.AppendInt(b, h.created, 10)
	b = append(b, `,"model":`...)
	b = appendString(b, h.model)
	if object == "chat.completion.chunk" {
		b = append(b, `,"service_tier":"default","system_fingerprint":"`+systemFingerprint+`"`...)
	}
	return append(b, `,"choices":[`...)
}

// appendOpenAIUsage appends an OpenAI usage object.
func appendOpenAIUsage(b []byte, u Usage) []byte {
	b = append(b, `{"prompt_tokens":`...)
	b = appendInt(b, u.PromptTokens)
	b = append(b, `,"completion_tokens":`...)
	b = appendInt(b, u.CompletionTokens)
	b = append(b, `,"total_tokens":`...)
	b = appendInt(b, u.PromptTokens+u.CompletionTokens)
	b = append(b, `,"prompt_tokens_details":{"cached_tokens":`...)
	b = appendInt(b, u.CachedTokens)
	b = append(b, `,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":`...)
	b = appendInt(b, u.ReasoningTokens)
	return append(b, `,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}`...)
}
