package toolloop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// Message is one message of a conversation; its JSON is how callers keep
// a transcript.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content,omitempty"`
	Reasoning  string     `json:"reasoning_content,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// ToolCall is one tool call of an assistant message.
type ToolCall struct {
	ID, Name, Arguments string
}

// Usage is what the model calls of a run cost.
type Usage struct {
	Calls, PromptTokens, CompletionTokens int64
}

// NewClient returns a client of the OpenAI-compatible endpoint at baseURL
// (…/v1) for a Loop: two retries, timeout per call. Without an API key it
// sends no Authorization header (never the environment's OPENAI_API_KEY).
func NewClient(baseURL, apiKey string, timeout time.Duration) openai.Client {
	opts := []option.RequestOption{option.WithBaseURL(baseURL), option.WithMaxRetries(2), option.WithRequestTimeout(timeout)}
	if apiKey != "" {
		opts = append(opts, option.WithAPIKey(apiKey))
	} else {
		opts = append(opts, option.WithAPIKey(""), option.WithHeaderDel("Authorization"))
	}
	return openai.NewClient(opts...)
}

// Loop runs the model and the tools: model call, tool calls, model call…
type Loop struct {
	Client   openai.Client
	Model    string
	Tools    *Tools
	MaxSteps int // model calls per Run
}

// Turn is how one Run calls the model.
type Turn struct {
	// Final asks for an answer without tool calls (tool_choice none).
	Final bool
	// Headers go with every model call of the run.
	Headers map[string]string
}

// Result is what a Run did.
type Result struct {
	Messages []Message // the conversation given, with what the run added
	Text     string    // the last answer's text
	Steps    int       // model calls made
	Usage    Usage
}

// ErrNoFinalAnswer is returned when the model still called tools after
// MaxSteps calls.
var ErrNoFinalAnswer = errors.New("no final answer")

// Run continues the conversation until the model answers without calling
// a tool, or MaxSteps calls were made (the last text is the answer then,
// with ErrNoFinalAnswer). On an error the messages so far are returned.
func (l *Loop) Run(ctx context.Context, msgs []Message, turn Turn) (Result, error) {
	res := Result{Messages: msgs}
	maxSteps := max(l.MaxSteps, 1)
	for res.Steps < maxSteps {
		reply, err := l.call(ctx, res.Messages, turn, &res.Usage)
		res.Steps++
		if err != nil {
			return res, err
		}
		res.Messages = append(res.Messages, reply)
		res.Text = reply.Content
		if len(reply.ToolCalls) == 0 {
			return res, nil
		}
		for _, tc := range reply.ToolCalls {
			out := l.Tools.Call(ctx, tc.Name, tc.Arguments)
			res.Messages = append(res.Messages, Message{Role: "tool", Content: out, ToolCallID: tc.ID})
		}
	}
	return res, fmt.Errorf("%w after %d model calls", ErrNoFinalAnswer, maxSteps)
}

// call makes one streaming model call and returns the assistant message.
func (l *Loop) call(ctx context.Context, msgs []Message, turn Turn, usage *Usage) (Message, error) {
	p := openai.ChatCompletionNewParams{Model: shared.ChatModel(l.Model), Messages: params(msgs),
		Tools: l.Tools.Definitions(), StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}}
	if turn.Final {
		p.ToolChoice = openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("none")}
	}
	var opts []option.RequestOption
	for k, v := range turn.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	st := l.Client.Chat.Completions.NewStreaming(ctx, p, opts...)
	defer st.Close()
	var acc openai.ChatCompletionAccumulator
	var reasoning strings.Builder
	for st.Next() {
		ch := st.Current()
		acc.AddChunk(ch)
		for _, c := range ch.Choices {
			if f, ok := c.Delta.JSON.ExtraFields["reasoning_content"]; ok {
				var s string
				if json.Unmarshal([]byte(f.Raw()), &s) == nil {
					reasoning.WriteString(s)
				}
			}
		}
	}
	usage.Calls++
	if err := st.Err(); err != nil {
		return Message{}, err
	}
	usage.PromptTokens += acc.Usage.PromptTokens
	usage.CompletionTokens += acc.Usage.CompletionTokens
	if len(acc.Choices) == 0 {
		return Message{}, errors.New("the model's answer has no choice")
	}
	m := acc.Choices[0].Message
	out := Message{Role: "assistant", Content: m.Content, Reasoning: reasoning.String()}
	for _, tc := range m.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	if len(out.ToolCalls) == 0 && !turn.Final {
		out.ToolCalls = textToolCalls(m.Content)
	}
	return out, nil
}

var toolCallRE = regexp.MustCompile(`(?s)<tool_call>\s*(.*?)\s*</tool_call>`)

// textToolCalls reads the tool calls a model wrote into its text as
// <tool_call>{"name": …, "arguments": {…}}</tool_call> blocks (Qwen's
// format, which the reference's rollout parses), for endpoints that do not
// turn them into tool_calls. Each gets an id of its own.
func textToolCalls(content string) []ToolCall {
	var out []ToolCall
	for i, sub := range toolCallRE.FindAllStringSubmatch(content, -1) {
		var call struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if json.Unmarshal([]byte(sub[1]), &call) != nil || call.Name == "" {
			continue
		}
		args := string(call.Arguments)
		var s string
		if json.Unmarshal(call.Arguments, &s) == nil {
			args = s // arguments given as a JSON string
		}
		out = append(out, ToolCall{ID: fmt.Sprintf("call_text_%d", i), Name: call.Name, Arguments: args})
	}
	return out
}

// params converts the conversation to the API's messages.
func params(msgs []Message) []openai.ChatCompletionMessageParamUnion {
	out := make([]openai.ChatCompletionMessageParamUnion, 0, len(msgs))
	for _, m := range msgs {
		switch m.Role {
		case "system":
			out = append(out, openai.SystemMessage(m.Content))
		case "user":
			out = append(out, openai.UserMessage(m.Content))
		case "tool":
			out = append(out, openai.ToolMessage(m.Content, m.ToolCallID))
		case "assistant":
			out = append(out, assistantParam(m))
		}
	}
	return out
}

func assistantParam(m Message) openai.ChatCompletionMessageParamUnion {
	var p openai.ChatCompletionAssistantMessageParam
	if m.Content != "" || len(m.ToolCalls) == 0 {
		p.Content.OfString = openai.String(m.Content)
	}
	for _, tc := range m.ToolCalls {
		p.ToolCalls = append(p.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
			OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{ID: tc.ID,
				Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: tc.Arguments}}})
	}
	if m.Reasoning != "" {
		// Thinking models (Kimi, DeepSeek) want their reasoning back with
		// the tool calls it led to.
		p.SetExtraFields(map[string]any{"reasoning_content": m.Reasoning})
	}
	return openai.ChatCompletionMessageParamUnion{OfAssistant: &p}
}
