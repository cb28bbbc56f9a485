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

// openclawAgent drives OpenClaw non-interactively, one `openclaw agent
// --local --json` run per message, as app/cmd/metaclaw/openclaw_e2e_test.go
// does (and reference/openclaw-client.md records). Each day gets a state
// folder of its own with the day's session seed, as the reference's
// harness gives each test a fresh copy of openclaw_state; the provider is
// configured with the headers that name MetaClaw's session and mark the
// calls as the agent's. Its tools, their sandbox included, are OpenClaw's.
type openclawAgent struct {
	bin     string
	spec    DaySpec
	state   string // OPENCLAW_STATE_DIR
	config  string // OPENCLAW_CONFIG_PATH
	session string // the transcript OpenClaw appends to
	sends   []int  // transcript sizes (bytes) after each message, as for the built-in agent
}

// NewOpenClaw starts OpenClaw's day; bin is the openclaw command.
func NewOpenClaw(bin string, spec DaySpec) (Agent, error) {
	if spec.AgentID == "" {
		spec.AgentID = "metaclaw_agent"
	}
	if spec.MsgTimeout <= 0 {
		spec.MsgTimeout = DefaultOpenClawTimeout
	}
	a := &openclawAgent{bin: bin, spec: spec, state: filepath.Join(spec.StateDir, "openclaw")}
	a.config = filepath.Join(a.state, "openclaw.json")
	a.session = filepath.Join(a.state, "agents", spec.AgentID, "sessions", spec.SessionID+".jsonl")
	if err := a.restore(); err != nil {
		return nil, err
	}
	return a, nil
}

func (a *openclawAgent) sendsPath() string {
	return filepath.Join(a.spec.StateDir, "openclaw-sends.json")
}

// restore prepares the state folder on a fresh day, or cuts the
// transcript back to spec.Done messages on a resumed one.
func (a *openclawAgent) restore() error {
	data, err := os.ReadFile(a.sendsPath())
	if err == nil {
		if err := json.Unmarshal(data, &a.sends); err != nil || a.spec.Done >= len(a.sends) {
			return fmt.Errorf("resume OpenClaw's day: the transcript record does not match the run")
		}
		a.sends = a.sends[:a.spec.Done+1]
		return os.Truncate(a.session, int64(a.sends[a.spec.Done]))
	}
	if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(a.session), 0o700); err != nil {
		return err
	}
	var seed []byte
	if a.spec.SeedFile != "" {
		if seed, err = os.ReadFile(a.spec.SeedFile); err != nil {
			return fmt.Errorf("OpenClaw session seed: %w", err)
		}
	}
	if err := os.WriteFile(a.session, seed, 0o600); err != nil {
		return err
	}
	if err := a.writeConfig(false); err != nil {
		return err
	}
	a.sends = []int{len(seed)}
	return writeJSON(a.sendsPath(), a.sends)
}

// writeConfig writes OpenClaw's configuration: one provider (the arm's
// endpoint, with the bench's headers), one agent working in the day's
// workspace, and no update check or catalog refresh (they would reach the
// network). end adds X-Session-Done to the headers.
func (a *openclawAgent) writeConfig(end bool) error {
	headers := map[string]string{}
	for k, v := range a.spec.Headers {
		headers[k] = v
	}
	if end {
		headers["X-Session-Done"] = "true"
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
			"list":     []any{map[string]any{"id": a.spec.AgentID, "name": a.spec.AgentID, "workspace": a.spec.Workspace}},
		},
		"update": map[string]any{"checkOnStart": false},
		"tools":  map[string]any{"profile": "coding", "deny": []string{"group:memory"}}, // as the reference's openclaw_cfg
	}
	return writeJSON(a.config, cfg)
}

func (a *openclawAgent) Close() error { return nil }

// Send runs one OpenClaw turn. OpenClaw offers no way to forbid tool
// calls, so final only matters through end: the turn's calls then carry
// X-Session-Done.
func (a *openclawAgent) Send(ctx context.Context, msg string, _, end bool) (Answer, error) {
	if err := a.writeConfig(end); err != nil {
		return Answer{}, err
	}
	if end {
		defer a.writeConfig(false) //nolint:errcheck // rewritten before the next turn anyway
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(a.spec.MsgTimeout+60)*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, a.bin, "agent", "--local", "--json", "--agent", a.spec.AgentID,
		"--session-id", a.spec.SessionID, "--message", msg, "--timeout", fmt.Sprint(a.spec.MsgTimeout))
	cmd.Dir = a.spec.Workspace
	cmd.Env = append(os.Environ(), "OPENCLAW_STATE_DIR="+a.state, "OPENCLAW_CONFIG_PATH="+a.config,
		"OPENCLAW_NO_AUTO_UPDATE=1", "OPENCLAW_DISABLE_BONJOUR=1", "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	if st, err := os.Stat(a.session); err == nil {
		a.sends = append(a.sends, int(st.Size()))
	} else {
		a.sends = append(a.sends, a.sends[len(a.sends)-1])
	}
	if err := writeJSON(a.sendsPath(), a.sends); err != nil {
		return Answer{}, err
	}
	text, perr := openclawText(stdout.Bytes())
	if runErr != nil && perr != nil {
		return Answer{}, fmt.Errorf("openclaw agent: %v: %s", runErr, tail(stderr.String(), 500))
	}
	return Answer{Text: text}, perr
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
