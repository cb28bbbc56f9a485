package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/metaclaw/metaclaw/app/learner/toolloop"
	"github.com/metaclaw/metaclaw/store"
)

// DefaultMaxSteps bounds the built-in agent's model calls for one message.
const DefaultMaxSteps = 30

// callTimeout bounds one model call of the built-in agent.
const callTimeout = 10 * time.Minute

// builtin is the built-in agent: toolloop's loop (streaming, as OpenClaw
// calls the API) with its workspace tools.
type builtin struct {
	loop toolloop.Loop
	spec DaySpec
	conv conversation
}

// conversation is the built-in agent's transcript of a day, kept in
// StateDir so that an interrupted run resumes it.
type conversation struct {
	Messages []toolloop.Message `json:"messages"`
	// Sends[i] is the number of messages after i messages of the day were
	// sent and answered (Sends[0]: the system prompt and the seed).
	Sends []int `json:"sends"`
}

// NewBuiltin starts the built-in agent's day: it opens the workspace
// tools and restores the conversation (the system prompt and the seed on
// a fresh day, the transcript up to spec.Done messages on a resumed one).
func NewBuiltin(spec DaySpec) (Agent, error) {
	tools, err := toolloop.OpenTools(spec.Workspace, spec.Shell)
	if err != nil {
		return nil, err
	}
	if spec.MaxSteps <= 0 {
		spec.MaxSteps = DefaultMaxSteps
	}
	a := &builtin{spec: spec, loop: toolloop.Loop{Client: toolloop.NewClient(spec.Endpoint.BaseURL, spec.Endpoint.APIKey, callTimeout),
		Model: spec.Endpoint.Model, Tools: tools, MaxSteps: spec.MaxSteps}}
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
	a.conv.Messages = []toolloop.Message{{Role: "system", Content: system}}
	for _, m := range a.spec.Seed {
		a.conv.Messages = append(a.conv.Messages, toolloop.Message{Role: m.Role, Content: m.Text})
	}
	a.conv.Sends = []int{len(a.conv.Messages)}
	return writeJSON(a.transcriptPath(), a.conv)
}

func (a *builtin) Close() error { return a.loop.Tools.Close() }

// Send runs the tool loop for one message: model call, tool calls, model
// call… until the model answers without calling a tool, or MaxSteps
// calls were made (the last text is the answer then).
func (a *builtin) Send(ctx context.Context, msg string, final, end bool) (Answer, error) {
	headers := a.spec.Headers
	if end {
		headers = maps.Clone(a.spec.Headers)
		if headers == nil {
			headers = map[string]string{}
		}
		headers["X-Session-Done"] = "true"
	}
	msgs := append(a.conv.Messages, toolloop.Message{Role: "user", Content: msg})
	res, err := a.loop.Run(ctx, msgs, toolloop.Turn{Final: final, Headers: headers})
	a.conv.Messages = res.Messages
	ans := Answer{Text: res.Text, Usage: store.BenchUsage{Calls: res.Usage.Calls, PromptTokens: res.Usage.PromptTokens,
		CompletionTokens: res.Usage.CompletionTokens}}
	a.conv.Sends = append(a.conv.Sends, len(a.conv.Messages))
	if werr := writeJSON(a.transcriptPath(), a.conv); werr != nil {
		return ans, werr
	}
	return ans, providerError(err)
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
