package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// DefaultOpenClawTimeout bounds one OpenClaw turn, in seconds.
const DefaultOpenClawTimeout = 900

// openclawCLITimeout bounds the OpenClaw commands that are not turns
// (--version, the seed's import).
const openclawCLITimeout = 5 * time.Minute

// openclawAgent drives OpenClaw non-interactively, one `openclaw agent
// --local --json` run per message, as app/cmd/metaclaw/openclaw_e2e_test.go
// does (and reference/openclaw-client.md records). Each day gets a state
// folder of its own (OPENCLAW_STATE_DIR) holding the day's session seed,
// as the reference's harness gives each test a fresh copy of
// openclaw_state, and a configuration (OPENCLAW_CONFIG_PATH) with one
// provider (the arm's endpoint, with the headers that name MetaClaw's
// session and mark the calls as the agent's) and one agent working in the
// day's workspace. Its tools, their sandbox included, are OpenClaw's.
//
// Facts it relies on (openclaw@2026.9.6; its docs/cli/agent.md,
// docs/reference/session-management-compaction/*.md and
// docs/gateway/config-tools/tool-policy.md, and runs against
// proxy/fakeupstream): sessions and transcripts live in SQLite under the
// state folder, and a JSONL transcript enters it only through `openclaw
// doctor --session-sqlite import`, which reads sessions/sessions.json
// (session key → {sessionId, sessionFile}); `--agent A --session-key K`
// continues the session agent:A:K; models.providers.<id>.headers are sent
// with every model call; agents.entries.<id>.workspace is where the file
// tools work; tools.deny ["*"] sends a request without tools.
type openclawAgent struct {
	bin   string
	spec  DaySpec
	state string // OPENCLAW_STATE_DIR
	key   string // the session key, below the agent
	sent  int    // messages of the day sent, as far as OpenClaw's state goes
}

// NewOpenClaw starts OpenClaw's day: on a fresh day it writes the state
// folder and imports the day's session seed; on a resumed one it puts the
// state back as it was after spec.Done messages. bin is the openclaw
// command.
func NewOpenClaw(bin string, spec DaySpec) (Agent, error) {
	if spec.AgentID == "" {
		spec.AgentID = "metaclaw_agent"
	}
	if spec.MsgTimeout <= 0 {
		spec.MsgTimeout = DefaultOpenClawTimeout
	}
	a := &openclawAgent{bin: bin, spec: spec, state: filepath.Join(spec.StateDir, "openclaw"),
		key: strings.ToLower(spec.SessionID)}
	if err := a.restore(); err != nil {
		return nil, err
	}
	return a, nil
}

func (a *openclawAgent) configPath() string { return filepath.Join(a.state, "openclaw.json") }

// writeConfig writes OpenClaw's configuration: one provider (the arm's
// endpoint, with the bench's headers), one agent working in the day's
// workspace, the reference's tools (coding, without OpenClaw's own
// memory) or none with final, and no update check or catalog refresh
// (they would reach the network). end adds X-Session-Done to the headers.
func (a *openclawAgent) writeConfig(final, end bool) error {
	headers := map[string]string{}
	for k, v := range a.spec.Headers {
		headers[k] = v
	}
	if end {
		headers["X-Session-Done"] = "true"
	}
	tools := map[string]any{"profile": "coding", "deny": []string{"group:memory"}} // the reference's openclaw_cfg
	if final {
		tools = map[string]any{"deny": []string{"*"}}
	}
	model := a.spec.Endpoint.Model
	cfg := map[string]any{
		"models": map[string]any{"providers": map[string]any{"bench": map[string]any{
			"baseUrl": a.spec.Endpoint.BaseURL, "apiKey": a.spec.Endpoint.APIKey, "api": "openai-completions", "headers": headers,
			"models": []any{map[string]any{"id": model, "name": model, "reasoning": false, "input": []string{"text"},
				"cost":          map[string]int{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
				"contextWindow": 65536, "maxTokens": 16384}},
		}}, "catalogRefresh": map[string]any{"enabled": false}},
		"agents": map[string]any{
			"defaults": map[string]any{"model": map[string]any{"primary": "bench/" + model}, "timeoutSeconds": a.spec.MsgTimeout},
			"entries":  map[string]any{a.spec.AgentID: map[string]any{"name": a.spec.AgentID, "workspace": a.spec.Workspace}},
		},
		"update": map[string]any{"checkOnStart": false},
		"tools":  tools,
	}
	return writeJSON(a.configPath(), cfg)
}

func (a *openclawAgent) Close() error { return nil }

// Send runs one OpenClaw turn. final sends it without tools (OpenClaw then
// offers the model none, so the turn is one model call), and end has
// that call carry X-Session-Done: MetaClaw's session ends once, on the
// day's last call.
func (a *openclawAgent) Send(ctx context.Context, msg string, final, end bool) (Answer, error) {
	if err := a.writeConfig(final, end); err != nil {
		return Answer{}, err
	}
	if err := a.snapshot(); err != nil {
		return Answer{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(a.spec.MsgTimeout+60)*time.Second)
	defer cancel()
	stdout, stderr, runErr := a.run(ctx, "agent", "--local", "--json", "--agent", a.spec.AgentID,
		"--session-key", a.key, "--message", msg, "--timeout", fmt.Sprint(a.spec.MsgTimeout))
	a.sent++
	if err := a.saveRecord(); err != nil {
		return Answer{}, err
	}
	text, perr := openclawText(stdout)
	switch {
	case runErr != nil && perr != nil:
		return Answer{}, fmt.Errorf("openclaw agent: %v: %s", runErr, tail(string(stderr), 500))
	case runErr != nil:
		return Answer{Text: text}, fmt.Errorf("openclaw agent: %v: %s", runErr, tail(text, 300))
	}
	return Answer{Text: text}, perr
}

// run runs openclaw in the day's workspace with the day's state folder
// and configuration; of the caller's environment, OPENCLAW_* variables
// (another profile, another state folder) are left out.
func (a *openclawAgent) run(ctx context.Context, args ...string) (stdout, stderr []byte, err error) {
	cmd := exec.CommandContext(ctx, a.bin, args...)
	cmd.Dir = a.spec.Workspace
	cmd.Env = openclawEnv("OPENCLAW_STATE_DIR="+a.state, "OPENCLAW_CONFIG_PATH="+a.configPath())
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.WaitDelay = 10 * time.Second
	err = cmd.Run()
	return out.Bytes(), errOut.Bytes(), err
}

// openclawEnv is the process's environment without OPENCLAW_* variables,
// with extra and the switches that keep OpenClaw off the network (update
// checks, Bonjour) added.
func openclawEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OPENCLAW_") {
			env = append(env, kv)
		}
	}
	return append(append(env, "OPENCLAW_NO_AUTO_UPDATE=1", "OPENCLAW_DISABLE_BONJOUR=1", "NO_COLOR=1"), extra...)
}

// ProbeOpenClaw checks that the openclaw command runs here (it needs
// Node.js 24 or newer), by running `openclaw --version`.
func ProbeOpenClaw(ctx context.Context, bin string) error {
	ctx, cancel := context.WithTimeout(ctx, openclawCLITimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Env = openclawEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("--agent openclaw: %s --version failed (%v): %s; OpenClaw needs Node.js 24 or newer on PATH",
			bin, err, tail(string(out), 300))
	}
	return nil
}

// openclawText joins the payload texts of `openclaw agent --json`.
func openclawText(out []byte) (string, error) {
	var res struct {
		Payloads []struct {
			Text string `json:"text"`
		} `json:"payloads"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return "", fmt.Errorf("openclaw agent printed no JSON: %s", tail(string(out), 300))
	}
	var texts []string
	for _, p := range res.Payloads {
		texts = append(texts, p.Text)
	}
	return strings.Join(texts, "\n"), nil
}

func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// errOpenClawState says that a resumed day's OpenClaw state does not match
// the run's record.
var errOpenClawState = errors.New("resume OpenClaw's day: its state does not match the run")
