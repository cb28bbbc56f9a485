package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const testProxyKey = "sk-proxy-secret-9876"

// fakeOpenClaw is a stand-in for the openclaw CLI: a shell script that logs
// its arguments and the content of batch files, answers `config get PATH`
// from dir/get/PATH.json (unset when there is no such file), and fails one
// `config unset PATH` with OpenClaw's size-drop refusal when dir/fail-unset-PATH
// exists.
type fakeOpenClaw struct {
	dir, bin string
}

const fakeOpenClawScript = `#!/bin/sh
d='DIR'
printf '%s\n' "$*" >> "$d/log"
case "$1 $2" in
"config set")
	if [ "$3" = --batch-file ]; then tr -d '\n' < "$4" >> "$d/log"; echo >> "$d/log"; fi ;;
"config get")
	if [ -f "$d/get/$3.json" ]; then cat "$d/get/$3.json"; exit 0; fi
	echo '{"ok":false,"error":{"type":"cli_error","message":"Config path is valid but unset: '"$3"'."}}'
	exit 1 ;;
"config file")
	echo "$d/openclaw.json" ;;
"plugins list")
	if [ -f "$d/plugins.json" ]; then cat "$d/plugins.json"; else echo '{"plugins":[{"id":"a2a","enabled":false}]}'; fi ;;
"config unset")
	if [ -f "$d/fail-unset-$3" ]; then
		rm "$d/fail-unset-$3"
		echo "Config write rejected: $d/openclaw.json (size-drop:1208->534)." >&2
		exit 1
	fi ;;
esac
exit 0
`

func newFakeOpenClaw(t *testing.T) *fakeOpenClaw {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake openclaw is a shell script")
	}
	f := &fakeOpenClaw{dir: t.TempDir()}
	f.bin = filepath.Join(f.dir, "openclaw")
	script := strings.ReplaceAll(fakeOpenClawScript, "DIR", f.dir)
	if err := os.WriteFile(f.bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(f.dir, "get"), 0o755); err != nil {
		t.Fatal(err)
	}
	return f
}

// answer makes `config get path` print value (or report it unset when
// value is "").
func (f *fakeOpenClaw) answer(t *testing.T, path, value string) {
	t.Helper()
	p := filepath.Join(f.dir, "get", path+".json")
	if value == "" {
		os.Remove(p)
		return
	}
	if err := os.WriteFile(p, []byte(value+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// takeLog returns what the fake logged since the last call.
func (f *fakeOpenClaw) takeLog(t *testing.T) string {
	t.Helper()
	data, _ := os.ReadFile(filepath.Join(f.dir, "log"))
	os.Remove(filepath.Join(f.dir, "log"))
	return string(data)
}

// batches returns the batch files in a log (one line each), parsed.
func batches(t *testing.T, log string) [][]map[string]any {
	t.Helper()
	var out [][]map[string]any
	for _, line := range strings.Split(log, "\n") {
		if strings.HasPrefix(line, "[") {
			var ops []map[string]any
			if err := json.Unmarshal([]byte(line), &ops); err != nil {
				t.Fatalf("batch %q: %v", line, err)
			}
			out = append(out, ops)
		}
	}
	return out
}

// connectEnv is a MetaClaw data directory with a configuration, and the
// environment the commands run in.
type connectEnv struct {
	home, userHome string
	path           string
	stdout, stderr bytes.Buffer
}

func newConnectEnv(t *testing.T, settings ...string) *connectEnv {
	t.Helper()
	c := &connectEnv{home: t.TempDir(), userHome: t.TempDir(), path: t.TempDir()}
	t.Setenv("METACLAW_HOME", c.home)
	args := append([]string{"config", "set", "proxy.port", "31234", "llm.model_id", "m1", "mode", "skills_only"}, settings...)
	if code := c.run(args...); code != 0 {
		t.Fatalf("config set: exit %d: %s", code, c.stderr.String())
	}
	return c
}

func (c *connectEnv) run(args ...string) int {
	c.stdout.Reset()
	c.stderr.Reset()
	env := &Env{Stdin: strings.NewReader(""), Stdout: &c.stdout, Stderr: &c.stderr, Version: "test",
		Getenv: func(k string) string {
			switch k {
			case "HOME":
				return c.userHome
			case "PATH":
				return c.path
			}
			return ""
		}}
	return Main(args, env)
}

func (c *connectEnv) must(t *testing.T, args ...string) string {
	t.Helper()
	if code := c.run(args...); code != 0 {
		t.Fatalf("metaclaw %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, c.stdout.String(), c.stderr.String())
	}
	if out := c.stdout.String() + c.stderr.String(); strings.Contains(out, testProxyKey) {
		t.Fatalf("metaclaw %s printed the proxy key:\n%s", strings.Join(args, " "), out)
	}
	return c.stdout.String()
}

func readUndo(t *testing.T, path string) ([]byte, openclawUndo) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("undo file: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("undo file mode = %v, want 0600", fi.Mode().Perm())
	}
	data, _ := os.ReadFile(path)
	var u openclawUndo
	if err := json.Unmarshal(data, &u); err != nil {
		t.Fatal(err)
	}
	return data, u
}

func TestConnectOpenClaw(t *testing.T) {
	c := newConnectEnv(t, "proxy.api_key", testProxyKey)
	oc := newFakeOpenClaw(t)
	oc.answer(t, "agents.defaults.model", `{"primary": "openai/gpt-5", "fallbacks": ["kimi/k2"]}`)
	out := c.must(t, "connect", "openclaw", "--openclaw", oc.bin)
	if !strings.Contains(out, "metaclaw/m1") || !strings.Contains(out, "--undo") {
		t.Errorf("connect output: %q", out)
	}
	log := oc.takeLog(t)
	for _, want := range []string{"config get models.providers.metaclaw --json", "config get agents.defaults.model --json", "config set --batch-file "} {
		if !strings.Contains(log, want) {
			t.Errorf("openclaw was not run with %q; log:\n%s", want, log)
		}
	}
	got := batches(t, log)
	want := [][]map[string]any{{
		{"path": "models.providers.metaclaw", "value": map[string]any{
			"api": "openai-completions", "baseUrl": "http://127.0.0.1:31234/v1", "apiKey": testProxyKey,
			"models": []any{map[string]any{"id": "m1", "name": "m1 via MetaClaw", "reasoning": false, "input": []any{"text"},
				"cost":          map[string]any{"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0},
				"contextWindow": 200000.0, "maxTokens": 8192.0}}}},
		{"path": "agents.defaults.model.primary", "value": "metaclaw/m1"},
	}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("batch (-want +got):\n%s", d)
	}
	undoFile := filepath.Join(c.home, "connect", "openclaw-undo.json")
	first, u := readUndo(t, undoFile)
	var saved any
	json.Unmarshal(u.Keys[1].Value, &saved)
	wantSaved := map[string]any{"primary": "openai/gpt-5", "fallbacks": []any{"kimi/k2"}}
	if len(u.Keys) != 2 || u.Keys[0].Path != "models.providers.metaclaw" || u.Keys[0].Present || u.Keys[1].Path != "agents.defaults.model" ||
		!u.Keys[1].Present || !cmp.Equal(wantSaved, saved) {
		t.Errorf("saved keys: %+v", u.Keys)
	}
	if _, err := os.Stat(filepath.Join(c.home, "connect", "openclaw-batch.json")); !os.IsNotExist(err) {
		t.Error("the batch file (it holds the proxy key) was left behind")
	}

	// A second connect sees MetaClaw's own values and must not save them.
	oc.answer(t, "agents.defaults.model", `{"primary": "metaclaw/m1"}`)
	oc.answer(t, "models.providers.metaclaw", `{"baseUrl": "http://127.0.0.1:31234/v1"}`)
	c.must(t, "connect", "openclaw", "--openclaw", oc.bin)
	if again, _ := readUndo(t, undoFile); !bytes.Equal(again, first) {
		t.Errorf("second connect changed the saved original:\n%s\nwas:\n%s", again, first)
	}
	if log := oc.takeLog(t); len(batches(t, log)) != 1 || !strings.Contains(log, "gateway restart") {
		t.Errorf("second connect should apply the batch and restart the gateway; log:\n%s", log)
	}

	// A third connect finds OpenClaw as connect left it: nothing to do.
	for _, op := range openclawBatch(target{hostPort: "127.0.0.1:31234", apiKey: testProxyKey, model: "m1", contextWindow: 200000}, false) {
		v, _ := json.Marshal(op.Value)
		oc.answer(t, op.Path, string(v))
	}
	if out := c.must(t, "connect", "openclaw", "--openclaw", oc.bin); !strings.Contains(out, "already goes through MetaClaw") {
		t.Errorf("third connect: %q", out)
	}
	if log := oc.takeLog(t); strings.Contains(log, "config set") || strings.Contains(log, "gateway restart") {
		t.Errorf("third connect changed OpenClaw; log:\n%s", log)
	}

	out = c.must(t, "connect", "openclaw", "--undo", "--dry-run")
	if want := "Would restore agents.defaults.model to its value from before connect.\n" +
		"Would remove models.providers.metaclaw (it was not set before connect).\n"; out != want {
		t.Errorf("undo dry run:\n%s\nwant:\n%s", out, want)
	}
	if log := oc.takeLog(t); log != "" {
		t.Errorf("undo dry run ran openclaw:\n%s", log)
	}

	out = c.must(t, "connect", "openclaw", "--undo", "--openclaw", oc.bin)
	log = oc.takeLog(t)
	restore := []map[string]any{{"path": "agents.defaults.model", "value": map[string]any{"primary": "openai/gpt-5", "fallbacks": []any{"kimi/k2"}}}}
	if d := cmp.Diff([][]map[string]any{restore}, batches(t, log)); d != "" {
		t.Errorf("undo batch (-want +got):\n%s", d)
	}
	if iUnset := strings.Index(log, "config unset models.providers.metaclaw"); iUnset < strings.Index(log, "config set") {
		t.Errorf("undo should restore the model, then remove the provider; log:\n%s", log)
	}
	if !strings.Contains(out, "no longer goes through MetaClaw") {
		t.Errorf("undo output: %q", out)
	}
	if _, err := os.Stat(undoFile); !os.IsNotExist(err) {
		t.Error("the undo file is still there after --undo")
	}
	if code := c.run("connect", "openclaw", "--undo", "--openclaw", oc.bin); code != 1 || !strings.Contains(c.stderr.String(), "nothing to undo") {
		t.Errorf("a second --undo: exit %d, %q", code, c.stderr.String())
	}
}

func TestConnectOpenClawKeepsHiddenSecretAndShrinksBeforeRemoving(t *testing.T) {
	c := newConnectEnv(t)
	oc := newFakeOpenClaw(t)
	// `config get` hides the key of an existing metaclaw provider; the file
	// has it.
	oc.answer(t, "models.providers.metaclaw", `{"baseUrl": "http://old/v1", "apiKey": "__OPENCLAW_REDACTED__"}`)
	os.WriteFile(filepath.Join(oc.dir, "openclaw.json"), []byte(`{"models": {"providers": {"metaclaw": {"baseUrl": "http://old/v1", "apiKey": "sk-old"}}}}`), 0o600)
	c.must(t, "connect", "openclaw", "--openclaw", oc.bin)
	if b := batches(t, oc.takeLog(t)); len(b) != 1 || b[0][0]["value"].(map[string]any)["apiKey"] != placeholderKey {
		t.Errorf("without proxy.api_key the provider key should be %q: %v", placeholderKey, b)
	}
	_, u := readUndo(t, filepath.Join(c.home, "connect", "openclaw-undo.json"))
	if got := string(u.Keys[0].Value); !strings.Contains(got, "sk-old") {
		t.Errorf("saved provider %s lacks the hidden key", got)
	}

	// Undo of a provider that was absent, where OpenClaw refuses the unset
	// as too big a size drop: empty the model list, then unset.
	c2 := newConnectEnv(t)
	oc2 := newFakeOpenClaw(t)
	c2.must(t, "connect", "openclaw", "--openclaw", oc2.bin)
	oc2.takeLog(t)
	os.WriteFile(filepath.Join(oc2.dir, "fail-unset-models.providers.metaclaw"), nil, 0o644)
	c2.must(t, "connect", "openclaw", "--undo", "--openclaw", oc2.bin)
	log := oc2.takeLog(t)
	shrink := [][]map[string]any{{{"path": "models.providers.metaclaw.models", "value": []any{}}}}
	if strings.Count(log, "config unset models.providers.metaclaw") != 2 || !cmp.Equal(shrink, batches(t, log)) {
		t.Errorf("size-drop fallback not taken; log:\n%s", log)
	}
}

func TestConnectOpenClawRefusals(t *testing.T) {
	c := newConnectEnv(t, "proxy.api_key", testProxyKey)
	if code := c.run("connect", "openclaw"); code != 1 || !strings.Contains(c.stderr.String(), "openclaw command is not on PATH") ||
		!strings.Contains(c.stderr.String(), "npm install -g openclaw") {
		t.Errorf("no openclaw: exit %d, %q", code, c.stderr.String())
	}
	out := c.must(t, "connect", "openclaw", "--dry-run")
	if !strings.Contains(out, `"apiKey": "********"`) || !strings.Contains(out, `"baseUrl": "http://127.0.0.1:31234/v1"`) ||
		!strings.Contains(out, `"value": "metaclaw/m1"`) {
		t.Errorf("dry run:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(c.home, "connect")); !os.IsNotExist(err) {
		t.Error("a dry run wrote files")
	}
	for _, args := range [][]string{{"connect"}, {"connect", "acmeclaw"}, {"connect", "openclaw", "extra"}} {
		if code := c.run(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	// Found on PATH.
	oc := newFakeOpenClaw(t)
	c.path = oc.dir
	c.must(t, "connect", "openclaw")
	if !strings.Contains(oc.takeLog(t), "config set --batch-file") {
		t.Error("openclaw on PATH was not used")
	}
}

func readSettingsFile(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, data)
	}
	return m
}

func TestConnectClaudeCode(t *testing.T) {
	c := newConnectEnv(t, "proxy.api_key", testProxyKey)
	settings := filepath.Join(c.userHome, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o700)
	original := `{"model": "opus", "env": {"FOO": "1", "ANTHROPIC_BASE_URL": "https://old.example"}}`
	os.WriteFile(settings, []byte(original), 0o644)

	out := c.must(t, "connect", "claude-code", "--print")
	if !strings.Contains(out, "export ANTHROPIC_BASE_URL=http://127.0.0.1:31234\n") || !strings.Contains(out, "the value of proxy.api_key") {
		t.Errorf("--print output:\n%s", out)
	}
	if data, _ := os.ReadFile(settings); string(data) != original {
		t.Error("--print changed the settings")
	}

	c.must(t, "connect", "claude-code")
	want := map[string]any{"model": "opus", "env": map[string]any{"FOO": "1",
		"ANTHROPIC_BASE_URL": "http://127.0.0.1:31234", "ANTHROPIC_AUTH_TOKEN": testProxyKey}}
	if d := cmp.Diff(want, readSettingsFile(t, settings)); d != "" {
		t.Errorf("merged settings (-want +got):\n%s", d)
	}
	if fi, _ := os.Stat(settings); fi.Mode().Perm() != 0o600 {
		t.Errorf("settings hold the proxy key with mode %v, want 0600", fi.Mode().Perm())
	}
	if data, _ := os.ReadFile(filepath.Join(c.home, "connect", "claude-code-0-settings.json.orig")); string(data) != original {
		t.Errorf("backup = %q", data)
	}
	c.must(t, "connect", "claude-code") // keeps the first saved values
	c.must(t, "connect", "claude-code", "--undo")
	want = map[string]any{"model": "opus", "env": map[string]any{"FOO": "1", "ANTHROPIC_BASE_URL": "https://old.example"}}
	if d := cmp.Diff(want, readSettingsFile(t, settings)); d != "" {
		t.Errorf("settings after undo (-want +got):\n%s", d)
	}
	if code := c.run("connect", "claude-code", "--undo"); code != 1 || !strings.Contains(c.stderr.String(), "nothing to undo") {
		t.Errorf("second undo: exit %d %q", code, c.stderr.String())
	}
}

func TestConnectClaudeCodeNewFile(t *testing.T) {
	c := newConnectEnv(t)
	settings := filepath.Join(c.userHome, ".claude", "settings.json")
	c.must(t, "connect", "claude-code")
	want := map[string]any{"env": map[string]any{"ANTHROPIC_BASE_URL": "http://127.0.0.1:31234"}}
	if d := cmp.Diff(want, readSettingsFile(t, settings)); d != "" {
		t.Errorf("new settings (-want +got):\n%s", d)
	}
	if fi, _ := os.Stat(settings); fi.Mode().Perm() != 0o600 {
		t.Errorf("new settings mode %v", fi.Mode().Perm())
	}
	// A proxy key set later is written by the next connect, and undone too.
	c.must(t, "config", "set", "proxy.api_key", testProxyKey)
	c.must(t, "connect", "claude-code")
	if env := readSettingsFile(t, settings)["env"].(map[string]any); env["ANTHROPIC_AUTH_TOKEN"] != testProxyKey {
		t.Errorf("env after the second connect: %v", env)
	}
	c.must(t, "connect", "claude-code", "--undo")
	if _, err := os.Stat(settings); !os.IsNotExist(err) {
		t.Error("undo left a settings file that did not exist before")
	}
	os.WriteFile(settings, []byte("{not json"), 0o600)
	if code := c.run("connect", "claude-code"); code != 1 || !strings.Contains(c.stderr.String(), "not a JSON object") {
		t.Errorf("broken settings: exit %d %q", code, c.stderr.String())
	}
}

func TestConnectPrint(t *testing.T) {
	tests := []struct {
		name     string
		settings []string
		want     []string
	}{
		{"no proxy key", nil, []string{"any value, e.g. metaclaw"}},
		{"proxy key", []string{"proxy.api_key", testProxyKey}, []string{"the value of proxy.api_key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newConnectEnv(t, tt.settings...)
			out := c.must(t, "connect", "print")
			want := append([]string{"base URL http://127.0.0.1:31234/v1 ", "base URL http://127.0.0.1:31234 ", "m1",
				"X-Session-Id", "X-Turn-Type: main|side", "X-Session-Done", "X-User-Id", "X-Workspace-Id", "X-Memory-Scope"}, tt.want...)
			for _, w := range want {
				if !strings.Contains(out, w) {
					t.Errorf("print lacks %q:\n%s", w, out)
				}
			}
			out = c.must(t, "connect", "claude-code", "--print")
			if !strings.Contains(out, "export ANTHROPIC_BASE_URL=http://127.0.0.1:31234\n") {
				t.Errorf("claude-code --print:\n%s", out)
			}
			if out = c.must(t, "connect", "nanoclaw", "--print"); !strings.Contains(out, "ANTHROPIC_BASE_URL=http://host.docker.internal:31234\n") {
				t.Errorf("nanoclaw --print:\n%s", out)
			}
		})
	}
}
