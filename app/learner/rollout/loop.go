package rollout

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"time"
)

// loopSystem is the built-in loop's system prompt, after the reference's
// openclaw_env_rollout.py SYSTEM_PROMPT.
const loopSystem = `You are an expert CLI agent. Complete the given task by issuing shell commands through the run_command tool.
- Issue ONE command at a time and read its output before the next.
- Inspect state before changing it; if a command fails, find out why from its output and try differently.
- When the task is fully complete, call run_command with command "done".
- Do not ask clarifying questions: act on the task description alone.`

// loopTools is the one tool of the built-in loop (the reference's TOOLS).
var loopTools = json.RawMessage(`[{"type":"function","function":{"name":"run_command","description":"Execute a shell command and observe its output. When the task is fully complete, call run_command with command=\"done\".","parameters":{"type":"object","properties":{"command":{"type":"string","description":"The exact command to run, or done"}},"required":["command"]}}}]`)

// Loop is the built-in tool loop used when no agent is configured
// (claw_type none): it talks to the proxy as an agent would, one
// run_command tool whose commands run in a shell in the task's working
// directory, and ends the session with X-Session-Done, as the reference's
// run_task_episode does.
type Loop struct {
	ProxyURL string // http://127.0.0.1:PORT
	APIKey   string // proxy.api_key, when set
	Model    string
	MaxSteps int
	WorkDir  func(Task) string // the directory commands run in
	Client   *http.Client
	// CommandTimeout bounds one command (the reference's 30 s).
	CommandTimeout time.Duration
}

type chatMessage struct {
	Role       string          `json:"role"`
	Content    string          `json:"content"`
	ToolCalls  json.RawMessage `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

// Run runs one episode of a task.
func (l *Loop) Run(ctx context.Context, t Task, session string) (int, error) {
	dir := l.WorkDir(t)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, err
	}
	msgs := []chatMessage{{Role: "system", Content: loopSystem}, {Role: "user", Content: t.Instruction}}
	steps := 0
	for ; steps < l.MaxSteps; steps++ {
		msg, err := l.chat(ctx, session, msgs, false)
		if err != nil {
			return steps, err
		}
		id, cmd := commandOf(msg)
		msgs = append(msgs, chatMessage{Role: "assistant", Content: msg.Content, ToolCalls: msg.ToolCalls})
		if cmd == "" || strings.EqualFold(strings.TrimSpace(cmd), "done") {
			break
		}
		out := l.exec(ctx, dir, cmd)
		if id != "" {
			msgs = append(msgs, chatMessage{Role: "tool", ToolCallID: id, Content: out})
		} else {
			msgs = append(msgs, chatMessage{Role: "user", Content: "Output:\n" + out})
		}
	}
	_, err := l.chat(ctx, session, append(msgs, chatMessage{Role: "user", Content: "Task complete."}), true)
	return steps, err
}

// chat sends one turn through the proxy and returns the assistant message.
func (l *Loop) chat(ctx context.Context, session string, msgs []chatMessage, done bool) (chatMessage, error) {
	body, _ := json.Marshal(map[string]any{"model": l.Model, "messages": msgs, "tools": loopTools})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.ProxyURL+"/v1/chat/completions", bytes.NewReader(body))
	if err != nil {
		return chatMessage{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Session-Id", session)
	req.Header.Set("X-Turn-Type", "main")
	if done {
		req.Header.Set("X-Session-Done", "true")
	}
	if l.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+l.APIKey)
	}
	resp, err := l.Client.Do(req)
	if err != nil {
		return chatMessage{}, fmt.Errorf("proxy: %w", err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if resp.StatusCode != http.StatusOK {
		return chatMessage{}, fmt.Errorf("proxy answered %s: %s", resp.Status, bytes.TrimSpace(data[:min(len(data), 300)]))
	}
	var out struct {
		Choices []struct {
			Message chatMessage `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(data, &out); err != nil || len(out.Choices) == 0 {
		return chatMessage{}, fmt.Errorf("proxy answer is not a chat completion")
	}
	return out.Choices[0].Message, nil
}

var toolCallRE = regexp.MustCompile(`(?s)<tool_call>\s*(.*?)\s*</tool_call>`)

// commandOf returns the run_command call of a message: an OpenAI tool call,
// or a <tool_call> block in the text (Qwen's format, which the reference
// parses).
func commandOf(m chatMessage) (id, command string) {
	var calls []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	var args struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(m.ToolCalls, &calls) == nil && len(calls) > 0 {
		if json.Unmarshal([]byte(calls[0].Function.Arguments), &args) == nil && args.Command != "" {
			return calls[0].ID, args.Command
		}
	}
	if sub := toolCallRE.FindStringSubmatch(m.Content); sub != nil {
		var call struct {
			Arguments struct {
				Command string `json:"command"`
			} `json:"arguments"`
		}
		if json.Unmarshal([]byte(sub[1]), &call) == nil {
			return "", call.Arguments.Command
		}
	}
	return "", ""
}

// maxOutput bounds the command output given back to the model.
const maxOutput = 16 << 10

func (l *Loop) exec(ctx context.Context, dir, command string) string {
	ctx, cancel := context.WithTimeout(ctx, l.CommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	if runtime.GOOS == "windows" {
		cmd = exec.CommandContext(ctx, "cmd", "/C", command)
	}
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	s := strings.TrimSpace(string(out))
	if len(s) > maxOutput {
		s = s[:maxOutput] + "\n…(output cut)"
	}
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return fmt.Sprintf("Error: command timed out after %s", l.CommandTimeout)
	case err != nil && s == "":
		return "Error: " + err.Error()
	case s == "":
		return "(no output)"
	}
	return s
}
