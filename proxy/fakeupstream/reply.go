package fakeupstream

import (
	"net/http"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

// DefaultText is the assistant text of the default reply of a new Server.
const DefaultText = "Hello from fakeupstream."

// defaultChunkSize is the number of runes per streamed text delta when
// Reply.ChunkSize is not set.
const defaultChunkSize = 4

// Reply scripts one response of the fake provider. The zero value answers
// with an empty assistant message. The same Reply drives both wire formats:
// the OpenAI endpoint renders it as a chat.completion, the Anthropic endpoint
// as a message.
type Reply struct {
	// Text is the assistant text.
	Text string
	// Reasoning is emitted as reasoning_content (OpenAI-compatible, as Kimi
	// and DeepSeek do) or as a thinking block (Anthropic).
	Reasoning string
	// ToolCalls are the tool calls of the reply, in order.
	ToolCalls []ToolCall
	// FinishReason overrides the finish reason. Either vocabulary is accepted
	// and translated: "stop"/"end_turn", "tool_calls"/"tool_use",
	// "length"/"max_tokens"; other values pass through unchanged. Empty means
	// "tool_calls" when ToolCalls is set and "stop" otherwise.
	FinishReason string
	// Usage overrides the token usage. When nil, prompt tokens are estimated
	// from the request body length and completion tokens from the reply.
	Usage *Usage

	// Status, when not 0 or 200, makes the server answer with that status and
	// an error body in the API's shape instead of a completion (for a
	// streaming request with ErrorAfterChunks set, Status only selects the
	// type of the in-stream error).
	Status int
	// RetryAfter, when set, is sent as the Retry-After header of an error
	// status reply.
	RetryAfter string
	// ErrorType overrides the error type of an error body (for example
	// "rate_limit_error" or "server_error"); empty derives it from Status.
	ErrorType string
	// ErrorMessage overrides the message of an error body.
	ErrorMessage string

	// FirstByteDelay delays the response headers.
	FirstByteDelay time.Duration
	// ChunkDelay is slept between consecutive SSE events.
	ChunkDelay time.Duration
	// ChunkSize is the number of runes of text, reasoning or tool arguments
	// per streamed delta; 0 means 4.
	ChunkSize int
	// FailAfterChunks, when > 0, aborts the connection abruptly after that
	// many SSE events have been sent, so the client sees a truncated stream.
	// For a non-streaming request it sends a truncated body instead.
	FailAfterChunks int
	// ErrorAfterChunks, when > 0, sends an in-stream error event after that
	// many SSE events and ends the stream (OpenAI: data: {"error":{...}};
	// Anthropic: event: error). The error's type and message come from
	// ErrorType, ErrorMessage and Status (default: 500 server_error for
	// OpenAI, 529 overloaded_error for Anthropic). Ignored for non-streaming
	// requests.
	ErrorAfterChunks int
	// HoldAfterFirst, when non-nil, makes a streaming response wait after
	// its first SSE event until the channel is closed (or the client goes
	// away, or the server is closed). A non-streaming response waits before
	// writing its body.
	HoldAfterFirst <-chan struct{}
	// RawBody, when not nil, is the whole body of the generation
	// endpoints' 200 answer instead of a completion, typed RawContentType
	// (application/json when empty): a provider or a gateway in front of
	// it answering with an HTML page or truncated JSON.
	RawBody        []byte
	RawContentType string
	// Hang makes the server never answer: it waits until the client goes
	// away or the server is closed.
	Hang bool

	// Func, when set, computes the actual reply from the request; its body
	// argument is the request body (the caller may keep it). The Func field
	// of the returned Reply is ignored.
	Func func(r *http.Request, body []byte) Reply
}

// ToolCall is one tool (function) call of a Reply.
type ToolCall struct {
	// ID is the call id; empty generates one ("call_…" for OpenAI,
	// "toolu_…" for Anthropic).
	ID string
	// Name is the function name.
	Name string
	// Arguments is the JSON text of the arguments, normally an object.
	// Empty means "{}".
	Arguments string
}

// Usage is the token usage reported for a reply.
//
// For Anthropic, input_tokens is PromptTokens minus CachedTokens and
// cache_read_input_tokens is CachedTokens (OpenAI counts cached tokens
// inside prompt_tokens, Anthropic does not).
type Usage struct {
	PromptTokens     int
	CompletionTokens int
	// CachedTokens is reported as prompt_tokens_details.cached_tokens
	// (OpenAI) and cache_read_input_tokens (Anthropic).
	CachedTokens int
	// ReasoningTokens is reported as completion_tokens_details.reasoning_tokens
	// (OpenAI); it is part of CompletionTokens.
	ReasoningTokens int
}

// TextReply returns a Reply answering with text.
func TextReply(text string) Reply { return Reply{Text: text} }

// ErrorReply returns a Reply failing with status and, when message is not
// empty, that error message.
func ErrorReply(status int, message string) Reply {
	return Reply{Status: status, ErrorMessage: message}
}

// writeRaw answers with the reply's RawBody, status 200.
func (r *Reply) writeRaw(w http.ResponseWriter) {
	ct := r.RawContentType
	if ct == "" {
		ct = "application/json"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Content-Length", strconv.Itoa(len(r.RawBody)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(r.RawBody)
}

// isError reports whether the reply answers with an error status.
func (r *Reply) isError() bool { return r.Status != 0 && r.Status != http.StatusOK }

// failsUpfront reports whether the reply answers with an error status
// instead of a response: an error Status, unless a streaming request is to
// get the error in-stream (ErrorAfterChunks).
func (r *Reply) failsUpfront(stream bool) bool {
	return r.isError() && (!stream || r.ErrorAfterChunks <= 0)
}

// chunkSize returns the effective number of runes per delta.
func (r *Reply) chunkSize() int {
	if r.ChunkSize > 0 {
		return r.ChunkSize
	}
	return defaultChunkSize
}

// compiled is a Reply with its wire fragments, pre-rendered once per format
// and reused for every request answered with it.
type compiled struct {
	Reply
	completionTokens int
	reasoningTokens  int

	oaOnce sync.Once
	oa     *openaiPlan
	anOnce sync.Once
	an     *anthropicPlan
}

// compile prepares r for serving. It copies the tool calls so that later
// changes by the caller do not race with the server.
func compile(r Reply) *compiled {
	r.ToolCalls = append([]ToolCall(nil), r.ToolCalls...)
	for i := range r.ToolCalls {
		if r.ToolCalls[i].Arguments == "" {
			r.ToolCalls[i].Arguments = "{}"
		}
	}
	c := &compiled{Reply: r}
	c.reasoningTokens = estimateTokens(r.Reasoning)
	c.completionTokens = estimateTokens(r.Text) + c.reasoningTokens
	for _, tc := range r.ToolCalls {
		c.completionTokens += estimateTokens(tc.Name) + estimateTokens(tc.Arguments)
	}
	if r.Usage != nil {
		c.completionTokens = r.Usage.CompletionTokens
		c.reasoningTokens = r.Usage.ReasoningTokens
	}
	return c
}

// openai returns the reply's OpenAI fragments, rendering them on first use.
func (c *compiled) openai() *openaiPlan {
	c.oaOnce.Do(func() { c.oa = buildOpenAIPlan(c) })
	return c.oa
}

// anthropic returns the reply's Anthropic fragments, rendering them on first use.
func (c *compiled) anthropic() *anthropicPlan {
	c.anOnce.Do(func() { c.an = buildAnthropicPlan(c) })
	return c.an
}

// usage returns the token usage for a request whose body had bodyLen bytes.
func (c *compiled) usage(bodyLen int) Usage {
	if c.Usage != nil {
		return *c.Usage
	}
	return Usage{
		PromptTokens:     max(1, bodyLen/4),
		CompletionTokens: c.completionTokens,
		ReasoningTokens:  c.reasoningTokens,
	}
}

// openaiFinish returns the finish_reason in OpenAI's vocabulary.
func (c *compiled) openaiFinish() string {
	switch c.FinishReason {
	case "":
		if len(c.ToolCalls) > 0 {
			return "tool_calls"
		}
		return "stop"
	case "end_turn", "stop_sequence":
		return "stop"
	case "tool_use":
		return "tool_calls"
	case "max_tokens":
		return "length"
	}
	return c.FinishReason
}

// anthropicStop returns the stop_reason in Anthropic's vocabulary.
func (c *compiled) anthropicStop() string {
	switch c.openaiFinish() {
	case "stop":
		return "end_turn"
	case "tool_calls":
		return "tool_use"
	case "length":
		return "max_tokens"
	case "content_filter":
		return "refusal"
	}
	return c.FinishReason
}

// estimateTokens roughly estimates the token count of s (4 runes a token).
func estimateTokens(s string) int {
	if s == "" {
		return 0
	}
	return (utf8.RuneCountInString(s) + 3) / 4
}

// splitRunes splits s into pieces of at most n runes. It returns nil for an
// empty string.
func splitRunes(s string, n int) []string {
	if s == "" {
		return nil
	}
	out := make([]string, 0, utf8.RuneCountInString(s)/n+1)
	for s != "" {
		i, count := 0, 0
		for i < len(s) && count < n {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			count++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}
