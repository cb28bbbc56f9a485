package proxy

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/metaclaw/metaclaw/proxy/anthropic"
	"github.com/metaclaw/metaclaw/proxy/learning"
	"github.com/metaclaw/metaclaw/proxy/openai"
	"github.com/metaclaw/metaclaw/store"
)

// turnState follows one request through the proxy, for recording.
type turnState struct {
	start     time.Time
	api       string // the client's API
	model     string // the model sent upstream
	stream    bool
	id        identity
	injected  []string
	request   []byte // body as sent upstream
	ttfb      time.Duration
	retries   int
	upstream  string // "primary", "fallback" or "policy"
	policy    bool   // this turn goes to the Policy first
	sampleID  int64  // the Policy's training sample for this turn, 0 if none
	cut       cut    // what truncation removed (zero: nothing)
	fresh     bool   // the request ends with the person's own words
	failure   string // the kind of upstream failure (see FailureKinds), "" when none or by status
	callerKey bool   // the caller's own credentials went upstream
	lease     *lease // the request's share of the in-flight budget
}

// response is what the upstream answered, reduced for recording.
type response struct {
	text, reasoning, finish string
	toolCalls               []openai.ToolCall
	promptTokens, outTokens int
}

func fromOpenAIAcc(a *openai.Accumulator) response {
	r := response{text: a.Text(), reasoning: a.Reasoning(), finish: a.FinishReason(), toolCalls: a.ToolCalls()}
	if u := a.Usage(); u != nil {
		r.promptTokens, r.outTokens = u.PromptTokens, u.CompletionTokens
	}
	return r
}

// completionWire is the part of a chat completion recording needs; a
// small struct decodes several times faster than the full wire types.
type completionWire struct {
	Choices []struct {
		Message struct {
			Content          *string           `json:"content"`
			ReasoningContent string            `json:"reasoning_content"`
			Reasoning        string            `json:"reasoning"`
			ToolCalls        []openai.ToolCall `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// fromOpenAIBody reduces a chat completion body for recording; a body
// that does not decode records an empty response.
func fromOpenAIBody(body []byte) response {
	var cc completionWire
	if json.Unmarshal(body, &cc) != nil || len(cc.Choices) == 0 {
		return response{}
	}
	ch := cc.Choices[0]
	r := response{reasoning: firstNonEmpty(ch.Message.ReasoningContent, ch.Message.Reasoning), finish: ch.FinishReason,
		toolCalls: ch.Message.ToolCalls}
	if ch.Message.Content != nil {
		r.text = *ch.Message.Content
	}
	if cc.Usage != nil {
		r.promptTokens, r.outTokens = cc.Usage.PromptTokens, cc.Usage.CompletionTokens
	}
	return r
}

func fromAnthropicMessage(m anthropic.MessagesResponse) response {
	r := response{text: m.Text(), outTokens: m.Usage.OutputTokens,
		promptTokens: m.Usage.InputTokens + m.Usage.CacheReadInputTokens + m.Usage.CacheCreationInputTokens}
	if m.StopReason != nil {
		r.finish = *m.StopReason
	}
	for _, b := range m.Content {
		switch b.Type {
		case "tool_use":
			r.toolCalls = append(r.toolCalls, openai.ToolCall{ID: b.ID, Type: "function",
				Function: openai.FunctionCall{Name: b.Name, Arguments: string(b.Input)}})
		case "thinking":
			r.reasoning += b.Thinking
		}
	}
	return r
}

func fromAnthropicBody(body []byte) response {
	var m anthropic.MessagesResponse
	if json.Unmarshal(body, &m) != nil {
		return response{}
	}
	return fromAnthropicMessage(m)
}

// record queues the finished turn for the store. fill, when set, computes
// the response on the recorder's goroutine.
func (s *Server) record(ts *turnState, status int, errMsg string, fill func() response) {
	if ts == nil {
		return
	}
	now := s.opts.Now()
	kind := ts.failure
	if kind == "" {
		kind = failureOf(status, errMsg)
	}
	s.failures.turn(kind, errMsg, now, ts.callerKey)
	if s.rec == nil {
		return
	}
	t := &store.Turn{
		SessionID: ts.id.sessionID, Type: ts.id.turnType, API: ts.api, Model: ts.model, Stream: ts.stream,
		Request: ts.request, LatencyMS: ms(now.Sub(ts.start)), TTFBMS: ms(ts.ttfb), Status: status,
		Error: errMsg, Injected: idsJSON(ts.injected), CreatedAt: ts.start, Client: ts.id.client, Scope: ts.id.scope,
		SampleID: ts.sampleID, CutMessagesBefore: ts.cut.msgsBefore, CutMessagesAfter: ts.cut.msgsAfter,
		CutTokensBefore: ts.cut.tokensBefore, CutTokensAfter: ts.cut.tokensAfter,
	}
	var f func(*store.Turn)
	if secrets := s.cur().secrets; fill != nil || len(secrets) > 0 {
		f = func(t *store.Turn) {
			if fill != nil {
				applyResponse(t, fill())
			}
			redactTurn(t, secrets)
		}
	}
	// The queued turn holds the request: its share of the budget goes
	// back once the turn is written.
	ts.lease.retain()
	s.rec.enqueue(recordItem{turn: t, sessionDone: ts.id.sessionDone, fresh: ts.fresh, fill: f, done: ts.lease.release})
}

func applyResponse(t *store.Turn, r response) {
	t.ResponseText, t.Reasoning, t.FinishReason = r.text, r.reasoning, r.finish
	t.PromptTokens, t.CompletionTokens = r.promptTokens, r.outTokens
	if len(r.toolCalls) > 0 {
		b, _ := json.Marshal(r.toolCalls)
		t.ToolCalls = string(b)
	}
}

func idsJSON(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	b, _ := json.Marshal(ids)
	return string(b)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// minSecret is the length below which a configured credential is not
// looked for in recorded text (a short value would match ordinary words).
const minSecret = 8

// redactSecrets replaces each of secrets in s with "[redacted]".
func redactSecrets(s string, secrets []string) string {
	for _, sec := range secrets {
		if strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, "[redacted]")
		}
	}
	return s
}

// redactTurn removes the configured credentials from what a turn stores
// as text: the request (a person may paste a key into a message), the
// error and the answer. Headers, where clients send their keys, are never
// stored. It runs on the recorder's goroutine, off the request's path,
// and copies the request only when it holds a credential.
func redactTurn(t *store.Turn, secrets []string) {
	for _, sec := range secrets {
		if bytes.Contains(t.Request, []byte(sec)) {
			t.Request = bytes.ReplaceAll(t.Request, []byte(sec), []byte("[redacted]"))
		}
	}
	for _, p := range []*string{&t.Error, &t.ResponseText, &t.Reasoning, &t.ToolCalls} {
		*p = redactSecrets(*p, secrets)
	}
}

// endsWithPerson reports whether a conversation ends with the person's own
// message (a tool result is a "tool" message).
func endsWithPerson(conv []learning.Message) bool {
	return len(conv) > 0 && conv[len(conv)-1].Role == "user"
}
