package rollout

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/toolloop"
)

// loopSystem is the built-in loop's system prompt, after the reference's
// openclaw_env_rollout.py SYSTEM_PROMPT, for toolloop's tools.
const loopSystem = `You are an expert CLI agent. Complete the given task with the tools: read, write and list files of your working folder, and exec to run a shell command in it (no network).
- Run ONE command at a time and read its output before the next.
- Inspect state before changing it; if a command fails, find out why from its output and try differently.
- When the task is fully complete, answer with a short summary and no tool call.
- Do not ask clarifying questions: act on the task description alone.`

// Loop is the built-in tool loop used when no agent is configured
// (claw_type none): toolloop's loop, talking to the proxy as an agent
// would, with the tools over the task's working folder and commands
// denied the network; it ends the session with X-Session-Done, as the
// reference's run_task_episode does.
type Loop struct {
	ProxyURL string // http://127.0.0.1:PORT
	APIKey   string // proxy.api_key, when set
	Model    string
	MaxSteps int
	WorkDir  func(Task) string // the folder the tools work in
	// CallTimeout bounds one model call.
	CallTimeout time.Duration
	// CommandTimeout bounds one command (the reference's 30 s).
	CommandTimeout time.Duration
}

// Run runs one episode of a task: the loop until the model answers
// without a tool call (or MaxSteps calls), then a closing turn that ends
// the session.
func (l *Loop) Run(ctx context.Context, t Task, session string) (int, error) {
	if err := toolloop.ProbeIsolation(ctx); err != nil {
		return 0, fmt.Errorf("the built-in tool loop runs commands without network, which is impossible here: %w", err)
	}
	dir := l.WorkDir(t)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, err
	}
	tools, err := toolloop.OpenTools(dir, toolloop.Shell{Isolated: true, Timeout: l.CommandTimeout})
	if err != nil {
		return 0, err
	}
	defer tools.Close()
	loop := toolloop.Loop{Client: toolloop.NewClient(l.ProxyURL+"/v1", l.APIKey, l.CallTimeout), Model: l.Model,
		Tools: tools, MaxSteps: max(l.MaxSteps, 1)}
	headers := map[string]string{"X-Session-Id": session, "X-Turn-Type": "main"}
	msgs := []toolloop.Message{{Role: "system", Content: loopSystem}, {Role: "user", Content: t.Instruction}}
	res, err := loop.Run(ctx, msgs, toolloop.Turn{Headers: headers})
	if err != nil && !errors.Is(err, toolloop.ErrNoFinalAnswer) {
		return res.Steps, fmt.Errorf("proxy: %w", err)
	}
	steps := res.Steps
	headers["X-Session-Done"] = "true"
	closing := append(res.Messages, toolloop.Message{Role: "user", Content: "Task complete."})
	_, err = loop.Run(ctx, closing, toolloop.Turn{Final: true, Headers: headers})
	if err != nil {
		return steps, fmt.Errorf("proxy: %w", err)
	}
	return steps, nil
}
