package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
)

// claudeCodeVersion is the Claude Code release the end-to-end test runs.
const claudeCodeVersion = "2.1.332"

// TestClaudeCodeThroughProxy installs the real Claude Code from npm
// (cached), connects it to a running MetaClaw with `metaclaw connect
// claude-code` (which writes ANTHROPIC_BASE_URL into its settings), and
// runs one headless turn with a Read tool call: Claude Code speaks the
// Anthropic Messages API, which the proxy translates for an
// OpenAI-compatible fake provider. It runs only with METACLAW_E2E=1.
func TestClaudeCodeThroughProxy(t *testing.T) {
	t.Parallel() // the agent is one node process: it leaves the other core to the rest
	if os.Getenv("METACLAW_E2E") != "1" {
		t.Skip("set METACLAW_E2E=1 to run (installs Claude Code from npm, ~400 MB, cached)")
	}
	nodeBin, _ := installNode(t)
	dir := filepath.Join(e2eCache(t), "claude-code-"+claudeCodeVersion)
	claude := filepath.Join(dir, "node_modules", ".bin", "claude")
	npmInstall(t, dir, claude, nodeBin, "@anthropic-ai/claude-code@"+claudeCodeVersion)

	work := t.TempDir()
	notes := filepath.Join(work, "notes.txt")
	if err := os.WriteFile(notes, []byte(e2eMagic+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	up := fakeupstream.New()
	base, err := up.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	up.SetDefault(fakeupstream.Reply{Text: e2eFinal})
	args, _ := json.Marshal(map[string]string{"file_path": notes})
	up.Enqueue(fakeupstream.Reply{ToolCalls: []fakeupstream.ToolCall{{Name: "Read", Arguments: string(args)}}})

	in := newInstance(t)
	in.must("config", "set", "llm.provider", "custom", "llm.api_base", base+"/v1", "llm.api_key", "sk-fake",
		"llm.model_id", "fake-model", "mode", "skills_only", "proxy.port", strconv.Itoa(in.port), "proxy.api_key", "sk-proxy-e2e",
		"claw_type", "claude-code")

	// `metaclaw start` itself points the chosen agent at the proxy.
	home := t.TempDir()
	path := filepath.Dir(claude) + string(os.PathListSeparator) + nodeBin + string(os.PathListSeparator) + os.Getenv("PATH")
	var env []string
	for _, kv := range in.env {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "ANTHROPIC_") && !strings.HasPrefix(kv, "CLAUDE_") {
			env = append(env, kv)
		}
	}
	env = append(env, "HOME="+home, "PATH="+path, "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "NO_COLOR=1")
	if out := runIn(t, env, work, time.Minute, binary, "start", "--daemon"); !strings.Contains(out, "Changed "+filepath.Join(home, ".claude", "settings.json")) {
		t.Errorf("start did not connect Claude Code:\n%s", out)
	}
	defer in.run("stop")
	out := runIn(t, env, work, 4*time.Minute, claude, "-p", "Read notes.txt and tell me what it says.",
		"--output-format", "json", "--allowedTools", "Read")
	var res struct {
		Result  string `json:"result"`
		IsError bool   `json:"is_error"`
	}
	if err := json.Unmarshal([]byte(lastJSONLine(out)), &res); err != nil || res.IsError || !strings.Contains(res.Result, e2eMagic) {
		t.Errorf("Claude Code's answer (%v): %s", err, tailOf(out, 2000))
	}
	checkClaudeUpstream(t, up.Requests())
	in.must("stop")
	checkRecorded(t, in.home, "Read")

	runIn(t, env, work, time.Minute, binary, "connect", "claude-code", "--undo")
	if data, err := os.ReadFile(filepath.Join(home, ".claude", "settings.json")); err == nil && bytes.Contains(data, []byte("ANTHROPIC_BASE_URL")) {
		t.Errorf("settings still point at MetaClaw after --undo:\n%s", data)
	}
}

// checkClaudeUpstream checks that the provider got chat requests with
// MetaClaw's key, one carrying the file's content as a tool result.
func checkClaudeUpstream(t *testing.T, reqs []fakeupstream.Recorded) {
	t.Helper()
	sawTool := false
	for _, r := range reqs {
		if r.Path != "/v1/chat/completions" {
			continue
		}
		if got := r.Header.Get("Authorization"); got != "Bearer sk-fake" {
			t.Errorf("a request reached the provider with Authorization %q", got)
		}
		sawTool = sawTool || bytes.Contains(r.Body, []byte(`"role":"tool"`)) && bytes.Contains(r.Body, []byte(e2eMagic))
	}
	if !sawTool {
		t.Errorf("no request carried the Read result; %d requests", len(reqs))
	}
}

// lastJSONLine is the last line of out that starts with {.
func lastJSONLine(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(strings.TrimSpace(lines[i]), "{") {
			return lines[i]
		}
	}
	return out
}

// runIn runs bin in dir with env and returns its standard output; a failure
// fails the test with the tails of both outputs.
func runIn(t *testing.T, env []string, dir string, timeout time.Duration, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env, cmd.Dir = env, dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("%s %s: %v (%.1fs)", filepath.Base(bin), strings.Join(args[:min(2, len(args))], " "), err, time.Since(start).Seconds())
	if err != nil {
		t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", filepath.Base(bin), strings.Join(args, " "), err, tailOf(stdout.String(), 2000), tailOf(stderr.String(), 3000))
	}
	return stdout.String()
}
