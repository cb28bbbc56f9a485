package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/metaclaw/metaclaw/app/learner/toolloop"
	"github.com/metaclaw/metaclaw/store"
)

// Agent kinds.
const (
	AgentBuiltin  = "builtin"
	AgentOpenClaw = "openclaw"
)

// BenchHeader marks the agent's own requests, so that the counting relay
// tells them from MetaClaw's learning calls; the relay removes it.
const BenchHeader = "X-Metaclaw-Bench"

// Endpoint is where an agent sends its model calls.
type Endpoint struct {
	BaseURL, APIKey, Model string
}

// DaySpec is what an agent gets for one arm's day.
type DaySpec struct {
	Workspace  string
	Seed       []SeedMessage // the day's session seed (built-in agent)
	SeedFile   string        // the seed transcript (OpenClaw)
	AgentID    string        // OpenClaw's agent id of the day
	SessionID  string        // the session MetaClaw records the day under
	Endpoint   Endpoint
	Headers    map[string]string // sent with every call
	StateDir   string            // where the agent keeps the day's conversation, to resume it
	Done       int               // messages of the day already sent and scored: the conversation restarts after them
	Shell      toolloop.Shell
	MaxSteps   int // model calls per message (built-in agent)
	MsgTimeout int // seconds per message (OpenClaw)
}

// Answer is an agent's final answer to one message.
type Answer struct {
	Text  string
	Usage store.BenchUsage // counted by the agent (zero when it cannot count)
}

// Agent plays one arm's day: one message at a time, in one conversation.
type Agent interface {
	// Send sends a message and returns the final answer. final asks for an
	// answer without tool calls (the feedback that closes a group), and
	// end also marks the call that ends MetaClaw's session of the day.
	Send(ctx context.Context, msg string, final, end bool) (Answer, error)
	Close() error
}

// ErrProvider marks an error of the provider that every later call would
// repeat (a bad key, an unknown model): the run stops instead of scoring
// every round as failed.
var ErrProvider = errors.New("the provider refuses the calls")

// systemPreamble opens the built-in agent's system prompt; the workspace's
// own root Markdown files (AGENTS.md, IDENTITY.md, SOUL.md, TOOLS.md,
// USER.md in the reference's workspace, which OpenClaw puts in its system
// prompt) follow it.
const systemPreamble = `You are an agent working in a workspace folder, with four tools: read and write files, list folders, and exec to run shell commands (in the workspace root, without network). Paths are relative to the workspace root. Do the task you are given with the tools, then answer. When asked a multiple-choice question, answer with the letters of every correct option in \bbox{}, e.g. \bbox{A} or \bbox{A,C}.`

// SystemPrompt builds the built-in agent's system prompt from a
// workspace: the preamble, then each Markdown file at the workspace's root
// by name.
func SystemPrompt(workspace string) (string, error) {
	entries, err := os.ReadDir(workspace)
	if err != nil {
		return "", fmt.Errorf("system prompt: %w", err)
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.EqualFold(filepath.Ext(e.Name()), ".md") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString(systemPreamble)
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(workspace, n))
		if err != nil {
			return "", fmt.Errorf("system prompt: %w", err)
		}
		fmt.Fprintf(&b, "\n\n## %s\n\n%s", n, strings.TrimSpace(string(data)))
	}
	return b.String(), nil
}

// writeJSON writes v to path through a temporary file, so that a crash
// leaves the old or the new content.
func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
