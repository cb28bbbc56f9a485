package openai

import "encoding/json"

// ChatCompletion is a non-streamed Chat Completions response.
type ChatCompletion struct {
	ID                string   `json:"id"`
	Object            string   `json:"object"` // "chat.completion"
	Created           int64    `json:"created"`
	Model             string   `json:"model"`
	Choices           []Choice `json:"choices"`
	Usage             *Usage   `json:"usage,omitempty"`
	SystemFingerprint string   `json:"system_fingerprint,omitempty"`
}

// Choice is one completion choice.
type Choice struct {
	Index        int             `json:"index"`
	Message      ResponseMessage `json:"message"`
	FinishReason string          `json:"finish_reason"`
	// StopReason is a vLLM extension: the matched stop string (or token
	// id) when FinishReason is "stop". Absent from OpenAI responses.
	StopReason json.RawMessage `json:"stop_reason,omitempty"`
}

// ResponseMessage is the assistant message of a choice. Content is null
// when the model only called tools.
type ResponseMessage struct {
	Role             string     `json:"role"`
	Content          *string    `json:"content"`
	Refusal          *string    `json:"refusal,omitempty"`
	ReasoningContent string     `json:"reasoning_content,omitempty"`
	Reasoning        string     `json:"reasoning,omitempty"` // alternative name used by some providers
	ToolCalls        []ToolCall `json:"tool_calls,omitempty"`
}

// ReasoningText returns the reasoning, whichever member carried it.
func (m ResponseMessage) ReasoningText() string {
	if m.ReasoningContent != "" {
		return m.ReasoningContent
	}
	return m.Reasoning
}

// Usage is token usage.
type Usage struct {
	PromptTokens            int                      `json:"prompt_tokens"`
	CompletionTokens        int                      `json:"completion_tokens"`
	TotalTokens             int                      `json:"total_tokens"`
	PromptTokensDetails     *PromptTokensDetails     `json:"prompt_tokens_details,omitempty"`
	CompletionTokensDetails *CompletionTokensDetails `json:"completion_tokens_details,omitempty"`
}

// PromptTokensDetails breaks down prompt tokens.
type PromptTokensDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

// CompletionTokensDetails breaks down completion tokens.
type CompletionTokensDetails struct {
	ReasoningTokens int `json:"reasoning_tokens"`
}

// CachedTokens returns prompt_tokens_details.cached_tokens, or 0.
func (u *Usage) CachedTokens() int {
	if u == nil || u.PromptTokensDetails == nil {
		return 0
	}
	return u.PromptTokensDetails.CachedTokens
}

// ChatCompletionChunk is one streamed chunk. With include_usage the last
// chunk before [DONE] has empty Choices and a Usage.
type ChatCompletionChunk struct {
	ID                string        `json:"id"`
	Object            string        `json:"object"` // "chat.completion.chunk"
	Created           int64         `json:"created"`
	Model             string        `json:"model"`
	SystemFingerprint string        `json:"system_fingerprint,omitempty"`
	Choices           []ChunkChoice `json:"choices"`
	Usage             *Usage        `json:"usage,omitempty"`
}

// ChunkChoice is the per-choice part of a chunk. FinishReason is null
// until the last content chunk.
type ChunkChoice struct {
	Index        int     `json:"index"`
	Delta        Delta   `json:"delta"`
	FinishReason *string `json:"finish_reason"`
	// StopReason is the vLLM extension described on Choice.
	StopReason json.RawMessage `json:"stop_reason,omitempty"`
}

// Delta is the incremental message content of a chunk.
type Delta struct {
	Role             string          `json:"role,omitempty"`
	Content          *string         `json:"content,omitempty"`
	Refusal          *string         `json:"refusal,omitempty"`
	ReasoningContent *string         `json:"reasoning_content,omitempty"`
	Reasoning        *string         `json:"reasoning,omitempty"` // alternative name used by some providers
	ToolCalls        []ToolCallDelta `json:"tool_calls,omitempty"`
}

// ReasoningText returns the reasoning fragment, whichever member carried it.
func (d Delta) ReasoningText() string {
	if d.ReasoningContent != nil && *d.ReasoningContent != "" {
		return *d.ReasoningContent
	}
	if d.Reasoning != nil {
		return *d.Reasoning
	}
	return ""
}

// ToolCallDelta is a fragment of a tool call. The first fragment of a call
// carries ID, Type and Function.Name; later ones only Index and arguments.
type ToolCallDelta struct {
	Index    int                `json:"index"`
	ID       string             `json:"id,omitempty"`
	Type     string             `json:"type,omitempty"`
	Function *FunctionCallDelta `json:"function,omitempty"`
}

// FunctionCallDelta is a fragment of a function call.
type FunctionCallDelta struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

// StringPtr returns a pointer to s; handy for the optional fields above.
func StringPtr(s string) *string { return &s }
