package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/store"
)

// openclawVersion is the OpenClaw release the end-to-end test runs
// (reference/openclaw-client.md records what it sends).
const openclawVersion = "2026.9.6"

// e2eMagic is the content of the workspace file OpenClaw's read tool
// returns; seeing it in the second upstream request proves the tool ran.
const e2eMagic = "MAGIC-WORD-4217"

// e2eFinal is the fake model's final answer.
const e2eFinal = "The file says " + e2eMagic + "."

// TestOpenClawThroughProxy installs the real OpenClaw (cached between runs),
// connects it to a running MetaClaw with `metaclaw connect openclaw`, and
// runs one agent turn with a tool call against a fake provider behind the
// proxy. It runs only with METACLAW_E2E=1: the install is about 650 MB.
func TestOpenClawThroughProxy(t *testing.T) {
	t.Parallel() // OpenClaw is one node process: it leaves the other core to the rest
	if os.Getenv("METACLAW_E2E") != "1" {
		t.Skip("set METACLAW_E2E=1 to run (installs Node 24 and OpenClaw from npm, ~650 MB, cached)")
	}
	nodeBin, ocBin := installOpenClaw(t)
	up := fakeupstream.New()
	base, err := up.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	up.Enqueue(fakeupstream.Reply{ToolCalls: []fakeupstream.ToolCall{{Name: "read", Arguments: `{"path":"notes.txt"}`}}})
	up.Enqueue(fakeupstream.Reply{Text: e2eFinal})

	in := newInstance(t)
	in.must("config", "set", "llm.provider", "custom", "llm.api_base", base+"/v1", "llm.api_key", "sk-fake",
		"llm.model_id", "fake-model", "mode", "skills_only", "proxy.port", strconv.Itoa(in.port))
	in.must("start", "--daemon")
	defer in.run("stop")

	oc := newOpenClawHome(t, in, nodeBin, ocBin)
	oc.quietConfig()
	oc.metaclaw("connect", "openclaw", "--openclaw", ocBin)
	out := oc.run(4*time.Minute, "agent", "--local", "--json", "--session-id", "metaclaw-e2e",
		"--message", "Read notes.txt and tell me what it says.", "--timeout", "120")
	checkAgentOutput(t, out)
	checkUpstream(t, up.Requests())

	in.must("stop")
	checkRecorded(t, in.home, "read")
	oc.metaclaw("connect", "openclaw", "--undo", "--openclaw", ocBin)
	if data, _ := os.ReadFile(filepath.Join(oc.home, ".openclaw", "openclaw.json")); bytes.Contains(data, []byte("metaclaw")) {
		t.Errorf("OpenClaw's config still names metaclaw after --undo:\n%s", data)
	}
}

// e2eCache is where Node and OpenClaw are installed once per machine.
func e2eCache(t *testing.T) string {
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "metaclaw-e2e")
	}
	h, err := os.UserHomeDir()
	if err != nil {
		t.Fatalf("find the cache directory: %v", err)
	}
	return filepath.Join(h, ".cache", "metaclaw-e2e")
}

// installOpenClaw installs Node 24 and OpenClaw into the cache unless they
// are there, and returns Node's bin directory and the openclaw command.
func installOpenClaw(t *testing.T) (nodeBin, ocBin string) {
	t.Helper()
	nodeBin, cache := installNode(t)
	ocDir := filepath.Join(cache, "openclaw-"+openclawVersion)
	ocBin = filepath.Join(ocDir, "node_modules", ".bin", "openclaw")
	npmInstall(t, ocDir, ocBin, nodeBin, "openclaw@"+openclawVersion)
	return nodeBin, ocBin
}

// installNode installs Node 24 from npm into the cache unless it is there,
// and returns its bin directory and the cache.
func installNode(t *testing.T) (nodeBin, cache string) {
	t.Helper()
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	if (runtime.GOOS != "linux" && runtime.GOOS != "darwin") || arch == "" {
		t.Skipf("no Node 24 package for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	for _, tool := range []string{"npm", "node"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("METACLAW_E2E=1 needs %s on PATH (to install Node 24 and the agents): %v", tool, err)
		}
	}
	cache = e2eCache(t)
	nodePkg := "node-" + runtime.GOOS + "-" + arch
	nodeDir := filepath.Join(cache, "node24")
	nodeBin = filepath.Join(nodeDir, "node_modules", nodePkg, "bin")
	npmInstall(t, nodeDir, filepath.Join(nodeBin, "node"), "", "--no-save", nodePkg+"@24")
	return nodeBin, cache
}

// npmMu serialises npmInstall: the agent tests run in parallel and share
// the cache, and two installs into one directory would collide.
var npmMu sync.Mutex

// npmInstall runs `npm install --prefix dir args...` with nodeBin first on
// PATH, unless an earlier run completed it (marked by dir/.installed and
// the file want).
func npmInstall(t *testing.T, dir, want, nodeBin string, args ...string) {
	t.Helper()
	npmMu.Lock()
	defer npmMu.Unlock()
	marker := filepath.Join(dir, ".installed")
	if _, err := os.Stat(marker); err == nil {
		if _, err := os.Stat(want); err == nil {
			return
		}
	}
	t.Logf("installing %s into %s", args[len(args)-1], dir)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", append([]string{"install", "--prefix", dir, "--no-audit", "--no-fund"}, args...)...)
	if nodeBin != "" {
		cmd.Env = append(os.Environ(), "PATH="+nodeBin+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("npm install %s: %v\n%s", strings.Join(args, " "), err, tailOf(string(out), 3000))
	}
	if _, err := os.Stat(want); err != nil {
		t.Fatalf("npm install %s did not produce %s", strings.Join(args, " "), want)
	}
	if err := os.WriteFile(marker, []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// openclawHome is a private HOME for OpenClaw and the environment that runs
// it (and metaclaw, whose connect runs it in turn).
type openclawHome struct {
	t    *testing.T
	home string
	bin  string
	env  []string
}

func newOpenClawHome(t *testing.T, in *instance, nodeBin, ocBin string) *openclawHome {
	t.Helper()
	h := &openclawHome{t: t, home: t.TempDir(), bin: ocBin}
	path := nodeBin + string(os.PathListSeparator) + filepath.Dir(ocBin) + string(os.PathListSeparator) + os.Getenv("PATH")
	for _, kv := range in.env {
		if !strings.HasPrefix(kv, "OPENCLAW_") { // nothing of the machine's own OpenClaw
			h.env = append(h.env, kv)
		}
	}
	h.env = append(h.env, "HOME="+h.home, "PATH="+path, "OPENCLAW_NO_AUTO_UPDATE=1", "OPENCLAW_DISABLE_BONJOUR=1", "NO_COLOR=1")
	ws := filepath.Join(h.home, ".openclaw", "workspace")
	if err := os.MkdirAll(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte(e2eMagic+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return h
}

// quietConfig turns off OpenClaw's update check and model catalog refresh,
// which would reach the network.
func (h *openclawHome) quietConfig() {
	f := filepath.Join(h.home, "quiet.batch.json")
	batch := `[{"path":"update.checkOnStart","value":false},{"path":"models.catalogRefresh.enabled","value":false}]`
	if err := os.WriteFile(f, []byte(batch), 0o600); err != nil {
		h.t.Fatal(err)
	}
	h.run(2*time.Minute, "config", "set", "--batch-file", f)
}

// run runs openclaw and returns its standard output; a failure or a timeout
// fails the test with the tail of its standard error.
func (h *openclawHome) run(timeout time.Duration, args ...string) string {
	h.t.Helper()
	return h.exec(timeout, h.bin, args...)
}

// metaclaw runs the metaclaw binary in OpenClaw's environment.
func (h *openclawHome) metaclaw(args ...string) string {
	h.t.Helper()
	return h.exec(5*time.Minute, binary, args...)
}

func (h *openclawHome) exec(timeout time.Duration, bin string, args ...string) string {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env, cmd.Dir = h.env, h.home
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	h.t.Logf("%s %s: %v (%.1fs)", filepath.Base(bin), strings.Join(args[:min(2, len(args))], " "), err, time.Since(start).Seconds())
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	if err != nil {
		h.t.Fatalf("%s %s: %v\nstdout (tail):\n%s\nstderr (tail):\n%s", filepath.Base(bin), strings.Join(args, " "), err,
			tailOf(stdout.String(), 2000), tailOf(stderr.String(), 4000))
	}
	return stdout.String()
}

// checkAgentOutput checks that OpenClaw's --json output carries the final
// text and shows one read tool call.
func checkAgentOutput(t *testing.T, out string) {
	t.Helper()
	var res struct {
		Payloads []struct {
			Text string `json:"text"`
		} `json:"payloads"`
		Meta struct {
			ToolSummary struct {
				Calls int      `json:"calls"`
				Tools []string `json:"tools"`
			} `json:"toolSummary"`
		} `json:"meta"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("OpenClaw's output is not JSON: %v\n%s", err, tailOf(out, 2000))
	}
	var texts []string
	for _, p := range res.Payloads {
		texts = append(texts, p.Text)
	}
	if !strings.Contains(strings.Join(texts, "\n"), e2eFinal) {
		t.Errorf("OpenClaw's answer %q lacks the final text %q", texts, e2eFinal)
	}
	if res.Meta.ToolSummary.Calls != 1 || strings.Join(res.Meta.ToolSummary.Tools, ",") != "read" {
		t.Errorf("tool summary = %+v, want one read", res.Meta.ToolSummary)
	}
}

// checkUpstream checks that the fake provider got the two chat requests
// through the proxy (with MetaClaw's provider key, not OpenClaw's), the
// second carrying the tool result.
func checkUpstream(t *testing.T, reqs []fakeupstream.Recorded) {
	t.Helper()
	var chats []fakeupstream.Recorded
	for _, r := range reqs {
		if r.Path == "/v1/chat/completions" {
			chats = append(chats, r)
		}
	}
	if len(chats) < 2 {
		t.Fatalf("the provider got %d chat requests, want at least 2", len(chats))
	}
	for i, r := range chats {
		if got := r.Header.Get("Authorization"); got != "Bearer sk-fake" {
			t.Errorf("request %d reached the provider with Authorization %q, not MetaClaw's key", i+1, got)
		}
	}
	var body struct {
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(chats[1].Body, &body); err != nil {
		t.Fatalf("second request: %v", err)
	}
	for _, m := range body.Messages {
		if m.Role == "tool" && bytes.Contains(m.Content, []byte(e2eMagic)) && m.ToolCallID != "" {
			return
		}
	}
	t.Errorf("the second request has no tool message with the file's content:\n%s", tailOf(string(chats[1].Body), 3000))
}

// checkRecorded opens the stopped MetaClaw's database and checks that the
// two turns were recorded, the first with the tool call and the second with
// the final text.
func checkRecorded(t *testing.T, home, tool string) {
	t.Helper()
	db, err := store.Open(filepath.Join(home, "metaclaw.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	sessions, err := db.RecentSessions(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	var turns []store.Turn
	for _, s := range sessions {
		ts, err := db.SessionTurns(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		turns = append(turns, ts...)
	}
	var sawTool, sawFinal bool
	for _, tu := range turns {
		sawTool = sawTool || strings.Contains(tu.ToolCalls, `"`+tool+`"`)
		sawFinal = sawFinal || strings.Contains(tu.ResponseText, e2eFinal)
	}
	if len(turns) < 2 || !sawTool || !sawFinal {
		t.Errorf("MetaClaw recorded %d turns in %d sessions (tool call seen: %v, final text seen: %v)", len(turns), len(sessions), sawTool, sawFinal)
	}
}

// tailOf returns the last n bytes of s.
func tailOf(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// TestOpenClawWeChatThroughStart lets `metaclaw start` set up the real
// OpenClaw (claw_type openclaw, wechat.enabled true): it points OpenClaw at
// the proxy and installs and enables the real WeChat channel plugin from
// npm through `openclaw plugins install`. Without a terminal the QR login
// is explained, not run; a second start installs nothing. METACLAW_E2E=1.
func TestOpenClawWeChatThroughStart(t *testing.T) {
	t.Parallel() // OpenClaw is one node process: it leaves the other core to the rest
	if os.Getenv("METACLAW_E2E") != "1" {
		t.Skip("set METACLAW_E2E=1 to run (installs OpenClaw and its WeChat plugin from npm)")
	}
	nodeBin, ocBin := installOpenClaw(t)
	in := newInstance(t)
	in.must("config", "set", "llm.provider", "custom", "llm.api_base", "http://127.0.0.1:9/v1", "llm.model_id", "fake-model",
		"mode", "skills_only", "proxy.port", strconv.Itoa(in.port), "claw_type", "openclaw", "wechat.enabled", "true")
	oc := newOpenClawHome(t, in, nodeBin, ocBin)
	oc.quietConfig()

	out := oc.exec(15*time.Minute, binary, "start", "--daemon")
	defer oc.exec(time.Minute, binary, "stop")
	for _, want := range []string{"Installing OpenClaw's WeChat plugin", "metaclaw start --wechat-relogin", "OpenClaw now uses MetaClaw"} {
		if !strings.Contains(out, want) {
			t.Errorf("start output lacks %q:\n%s", want, out)
		}
	}
	var list struct {
		Plugins []struct {
			ID      string `json:"id"`
			Enabled bool   `json:"enabled"`
		} `json:"plugins"`
	}
	listed := oc.run(2*time.Minute, "plugins", "list", "--json")
	if err := json.Unmarshal([]byte(listed[strings.IndexByte(listed, '{'):]), &list); err != nil {
		t.Fatalf("plugins list --json: %v", err)
	}
	enabled := false
	for _, p := range list.Plugins {
		enabled = enabled || p.ID == "openclaw-weixin" && p.Enabled
	}
	if !enabled {
		t.Errorf("openclaw-weixin is not installed and enabled:\n%s", tailOf(listed, 2000))
	}

	oc.exec(time.Minute, binary, "stop")
	out = oc.exec(5*time.Minute, binary, "start", "--daemon")
	if strings.Contains(out, "Installing") || !strings.Contains(out, "OpenClaw already goes through MetaClaw") {
		t.Errorf("second start:\n%s", out)
	}
}
