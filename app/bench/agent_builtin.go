package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/metaclaw/metaclaw/store"
)

// DefaultMaxSteps bounds the built-in agent's model calls for one message.
const DefaultMaxSteps = 30

// callTimeout bounds one model call of the built-in agent.
const callTimeout = 10 * time.Minute

// builtin is the built-in agent: a tool loop over the OpenAI chat
// completions API (streaming, as OpenClaw calls it), with the workspace
// tools.
type builtin struct {
	client openai.Client
	spec   DaySpec
	tools  *Tools
	conv   conversation
}

// conversation is the built-in agent's transcript of a day, kept in
// StateDir so that an interrupted run resumes it.
type conversation struct {
	Messages []tmsg `json:"messages"`
	// Sends[i] is the number of messages after i messages of the day were
	// sent and answered (Sends[0]: the system prompt and the seed).
	Sends []int `json:"sends"`
}

// tmsg is one message of the transcript.
type tmsg struct {
	Role       string  `json:"role"`
	Content    string  `json:"content,omitempty"`
	Reasoning  string  `json:"reasoning_content,omitempty"`
	ToolCalls  []tcall `json:"tool_calls,omitempty"`
	ToolCallID string  `json:"tool_call_id,omitempty"`
}

type tcall struct {
	ID, Name, Arguments string
}

// NewBuiltin starts the built-in agent's day: it opens the workspace
// tools and restores the conversation (the system prompt and the seed on
// a fresh day, the transcript up to spec.Done messages on a resumed one).
func NewBuiltin(spec DaySpec) (Agent, error) {
	tools, err := OpenTools(spec.Workspace, spec.Shell)
	if err != nil {
		return nil, err
	}
	if spec.MaxSteps <= 0 {
		spec.MaxSteps = DefaultMaxSteps
	}
	a := &builtin{spec: spec, tools: tools, client: openai.NewClient(option.WithBaseURL(spec.Endpoint.BaseURL),
		option.WithAPIKey(spec.Endpoint.APIKey), option.WithMaxRetries(2), option.WithRequestTimeout(callTimeout))}
	if err := a.restore(); err != nil {
		tools.Close()
		return nil, err
	}
	return a, nil
}

func (a *builtin) transcriptPath() string { return filepath.Join(a.spec.StateDir, "transcript.json") }

func (a *builtin) restore() error {
	data, err := os.ReadFile(a.transcriptPath())
	switch {
	case err == nil:
		if err := json.Unmarshal(data, &a.conv); err != nil {
			return fmt.Errorf("resume the day's conversation: %w", err)
		}
		if a.spec.Done >= len(a.conv.Sends) {
			return fmt.Errorf("resume the day's conversation: it has %d messages, the run %d", len(a.conv.Sends)-1, a.spec.Done)
		}
		a.conv.Messages = a.conv.Messages[:a.conv.Sends[a.spec.Done]]
		a.conv.Sends = a.conv.Sends[:a.spec.Done+1]
		return nil
	case !errors.Is(err, os.ErrNotExist):
		return err
	case a.spec.Done > 0:
		return errors.New("resume the day's conversation: its transcript is gone")
	}
	system, err := SystemPrompt(a.spec.Workspace)
	if err != nil {
		return err
	}
	a.conv.Messages = []tmsg{{Role: "system", Content: system}}
	for _, m := range a.spec.Seed {
		a.conv.Messages = append(a.conv.Messages, tmsg{Role: m.Role, Content: m.Text})
	}
	a.conv.Sends = []int{len(a.conv.Messages)}
	return writeJSON(a.transcriptPath(), a.conv)
}

func (a *builtin) Close() error { return a.tools.Close() }

// Send runs the tool loop for one message: model call, tool calls, model
// call… until the model answers without calling a tool, or MaxSteps
// calls were made (the last text is the answer then).
func (a *builtin) Send(ctx context.Context, msg string, final, end bool) (Answer, error) {
	var ans Answer
	a.conv.Messages = append(a.conv.Messages, tmsg{Role: "user", Content: msg})
	var err error
	for step := 0; step < a.spec.MaxSteps; step++ {
		var reply tmsg
		reply, err = a.call(ctx, final, end, &ans.Usage)
		if err != nil {
			break
		}
		a.conv.Messages = append(a.conv.Messages, reply)
		ans.Text = reply.Content
		if len(reply.ToolCalls) == 0 {
			break
		}
		for _, tc := range reply.ToolCalls {
			out := a.tools.Call(ctx, tc.Name, tc.Arguments)
			a.conv.Messages = append(a.conv.Messages, tmsg{Role: "tool", Content: out, ToolCallID: tc.ID})
		}
		if step == a.spec.MaxSteps-1 {
			err = fmt.Errorf("no final answer after %d model calls", a.spec.MaxSteps)
		}
	}
	a.conv.Sends = append(a.conv.Sends, len(a.conv.Messages))
	if werr := writeJSON(a.transcriptPath(), a.conv); werr != nil {
		return ans, werr
	}
	return ans, err
}

// call makes one streaming model call and returns the assistant message.
func (a *builtin) call(ctx context.Context, final, end bool, usage *store.BenchUsage) (tmsg, error) {
	p := openai.ChatCompletionNewParams{Model: shared.ChatModel(a.spec.Endpoint.Model), Messages: a.params(),
		Tools: a.tools.Definitions(), StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}}
	if final {
		p.ToolChoice = openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("none")}
	}
	var opts []option.RequestOption
	for k, v := range a.spec.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	if end {
		opts = append(opts, option.WithHeader("X-Session-Done", "true"))
	}
	st := a.client.Chat.Completions.NewStreaming(ctx, p, opts...)
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
		return tmsg{}, providerError(err)
	}
	usage.PromptTokens += acc.Usage.PromptTokens
	usage.CompletionTokens += acc.Usage.CompletionTokens
	if len(acc.Choices) == 0 {
		return tmsg{}, errors.New("the model's answer has no choice")
	}
	m := acc.Choices[0].Message
	out := tmsg{Role: "assistant", Content: m.Content, Reasoning: reasoning.String()}
	for _, tc := range m.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, tcall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return out, nil
}

// providerError marks the errors every later call would repeat.
func providerError(err error) error {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		switch apiErr.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
			return fmt.Errorf("%w: %v", ErrProvider, err)
		}
	}
	return err
}

// params converts the transcript to the API's messages.
func (a *builtin) params() []openai.ChatCompletionMessageParamUnion {
	out := make([]openai.ChatCompletionMessageParamUnion, 0, len(a.conv.Messages))
	for _, m := range a.conv.Messages {
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

func assistantParam(m tmsg) openai.ChatCompletionMessageParamUnion {
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
