package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// agentCase is one file-based agent: the files it has before connect, and
// a check that reads the files connect wrote the way the agent reads them
// (the keys its own config loader takes; see the connector's comments).
type agentCase struct {
	name   string
	agent  string
	args   []string          // extra connect flags
	files  map[string]string // relative to the person's home; "" = absent
	target string            // the main file, relative to home
	check  func(t *testing.T, home string, data []byte)
}

// The proxy the tests point agents at (newConnectEnv's configuration).
const (
	testBase   = "http://127.0.0.1:31234/v1"
	testWindow = 200000
)

func agentCases() []agentCase {
	return []agentCase{
		{name: "picoclaw new file", agent: "picoclaw", files: map[string]string{".picoclaw/": ""},
			target: ".picoclaw/config.json", check: checkPicoClaw},
		{name: "picoclaw existing", agent: "picoclaw", target: ".picoclaw/config.json", check: checkPicoClaw,
			files: map[string]string{".picoclaw/config.json": `{
  "version": 3,
  "agents": {"defaults": {"model_name": "gpt-5.4", "max_tokens": 8192}},
  "model_list": [{"model_name": "gpt-5.4", "provider": "openai", "model": "gpt-5.4", "api_keys": ["sk-own"]}]
}
`}},
		{name: "copaw", agent: "copaw", target: ".copaw.secret/providers/active_model.json", check: checkCoPaw,
			files: map[string]string{".copaw/": "", ".copaw.secret/providers/active_model.json": `{"provider_id": "openai", "model": "gpt-5"}`}},
		{name: "zeroclaw", agent: "zeroclaw", target: ".zeroclaw/config.toml", check: checkZeroClaw,
			files: map[string]string{".zeroclaw/config.toml": `# ZeroClaw config
schema_version = 3

[providers.models.openai.home]
model = "gpt-5"   # my model
api_key = "sk-own"

[agents.primary]
model_provider = "openai.home"
risk_profile = "default"

[agents."helper"]
model_provider = "openai.home"

[risk_profiles.default]
`}},
		{name: "ironclaw new slot", agent: "ironclaw", target: ".ironclaw/reborn/config.toml", check: checkIronClaw,
			files: map[string]string{".ironclaw/reborn/config.toml": "[boot]\nprofile = \"local-dev\"\n"}},
		{name: "ironclaw existing slot", agent: "ironclaw", target: ".ironclaw/reborn/config.toml", check: checkIronClaw,
			files: map[string]string{".ironclaw/reborn/config.toml": `[llm.default]
provider_id = "anthropic"
model       = "claude-sonnet-4-20250514"
api_key_env = "ANTHROPIC_API_KEY"

[webui]
listen_port = 3000
`}},
		{name: "hermes", agent: "hermes", target: ".hermes/config.yaml", check: checkHermes,
			files: map[string]string{".hermes/config.yaml": `# Hermes settings
model:
  provider: openrouter   # my provider
  default: anthropic/claude-sonnet-4
terminal:
  backend: local
`}},
		{name: "nanoclaw", agent: "nanoclaw", args: []string{"--dir", "{home}/nanoclaw"}, target: "nanoclaw/.env", check: checkNanoClaw,
			files: map[string]string{"nanoclaw/src/providers/claude.ts": "//", "nanoclaw/src/providers/index.ts": "import './claude.js';\n",
				"nanoclaw/.env": "# NanoClaw\nASSISTANT_NAME=Andy\nANTHROPIC_BASE_URL=https://api.example\nONECLI_URL=http://localhost:10254\n"}},
		{name: "claude-code", agent: "claude-code", target: ".claude/settings.json", check: checkClaude,
			files: map[string]string{".claude/settings.json": `{"model": "opus"}`}},
	}
}

func TestConnectFileAgents(t *testing.T) {
	for _, tc := range agentCases() {
		t.Run(tc.name, func(t *testing.T) {
			c := newConnectEnv(t, "proxy.api_key", testProxyKey)
			before := writeHome(t, c.userHome, tc.files)
			args := []string{"connect", tc.agent}
			for _, a := range tc.args {
				args = append(args, strings.ReplaceAll(a, "{home}", c.userHome))
			}
			main := filepath.Join(c.userHome, tc.target)

			dry := c.must(t, append(args, "--dry-run")...)
			if !strings.Contains(dry, "Would change "+main) {
				t.Errorf("dry run does not name %s:\n%s", main, dry)
			}
			if d := cmp.Diff(before, readHome(t, c.userHome)); d != "" {
				t.Errorf("dry run changed files (-before +after):\n%s", d)
			}

			c.must(t, args...)
			data, err := os.ReadFile(main)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, c.userHome, data)
			if fi, _ := os.Stat(main); strings.Contains(string(data), testProxyKey) && fi.Mode().Perm() != 0o600 {
				t.Errorf("%s holds the proxy key with mode %v", tc.target, fi.Mode().Perm())
			}

			connected := readHome(t, c.userHome)
			if out := c.must(t, args...); !strings.Contains(out, "nothing changed") {
				t.Errorf("second connect: %q", out)
			}
			if d := cmp.Diff(connected, readHome(t, c.userHome)); d != "" {
				t.Errorf("second connect changed files:\n%s", d)
			}

			c.must(t, "connect", tc.agent, "--undo", "--dry-run")
			if d := cmp.Diff(connected, readHome(t, c.userHome)); d != "" {
				t.Errorf("undo dry run changed files:\n%s", d)
			}
			c.must(t, "connect", tc.agent, "--undo")
			if d := cmp.Diff(before, readHome(t, c.userHome)); d != "" {
				t.Errorf("undo did not restore the agent's own files (-before +after):\n%s", d)
			}
			if fi, err := os.Stat(main); err == nil && before[tc.target] != "" && fi.Mode().Perm() != 0o644 {
				t.Errorf("undo left %s with mode %v, not its own 0644", tc.target, fi.Mode().Perm())
			}
			if code := c.run("connect", tc.agent, "--undo"); code != 1 || !strings.Contains(c.stderr.String(), "nothing to undo") {
				t.Errorf("second undo: exit %d %q", code, c.stderr.String())
			}
		})
	}
}

// writeHome creates files (a name ending in / is a directory) and returns
// the files as readHome sees them.
func writeHome(t *testing.T, home string, files map[string]string) map[string]string {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(home, name)
		if strings.HasSuffix(name, "/") {
			os.MkdirAll(p, 0o700)
			continue
		}
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return readHome(t, home)
}

// readHome returns every file under home with its content.
func readHome(t *testing.T, home string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.Walk(home, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			data, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(home, p)
			out[rel] = string(data)
		}
		return nil
	})
	return out
}

// checkPicoClaw reads config.json with PicoClaw's field names
// (pkg/config/config.go: Config, AgentDefaults, ModelConfig).
func checkPicoClaw(t *testing.T, _ string, data []byte) {
	var cfg struct {
		Version int `json:"version"`
		Agents  struct {
			Defaults struct {
				ModelName     string `json:"model_name"`
				ContextWindow int    `json:"context_window"`
			} `json:"defaults"`
		} `json:"agents"`
		ModelList []struct {
			ModelName string   `json:"model_name"`
			Provider  string   `json:"provider"`
			Model     string   `json:"model"`
			APIBase   string   `json:"api_base"`
			APIKeys   []string `json:"api_keys"`
			Enabled   bool     `json:"enabled"`
		} `json:"model_list"`
	}
	decodeJSON(t, data, &cfg)
	if cfg.Version != 3 || cfg.Agents.Defaults.ModelName != "metaclaw" || cfg.Agents.Defaults.ContextWindow != testWindow {
		t.Errorf("picoclaw config: %+v", cfg)
	}
	n := 0
	for _, m := range cfg.ModelList {
		if m.ModelName == "metaclaw" {
			n++
			if m.Provider != "openai" || m.Model != "m1" || m.APIBase != testBase || !cmp.Equal(m.APIKeys, []string{testProxyKey}) || !m.Enabled {
				t.Errorf("metaclaw entry: %+v", m)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d metaclaw entries in model_list", n)
	}
}

// checkCoPaw reads the active model slot and the provider file CoPaw's
// ProviderManager loads (ModelSlotConfig, ProviderInfo).
func checkCoPaw(t *testing.T, home string, data []byte) {
	var slot struct {
		ProviderID string `json:"provider_id"`
		Model      string `json:"model"`
	}
	decodeJSON(t, data, &slot)
	if slot.ProviderID != "metaclaw" || slot.Model != "m1" {
		t.Errorf("active model: %+v", slot)
	}
	pdata, err := os.ReadFile(filepath.Join(home, ".copaw.secret", "providers", "custom", "metaclaw.json"))
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		ID, Name, BaseURL, APIKey, ChatModel string
		Models                               []struct {
			ID             string `json:"id"`
			Name           string `json:"name"`
			MaxInputLength int    `json:"max_input_length"`
		} `json:"models"`
		IsCustom bool `json:"is_custom"`
	}
	decodeJSON(t, pdata, &p)
	var raw map[string]any
	decodeJSON(t, pdata, &raw)
	if raw["id"] != "metaclaw" || raw["base_url"] != testBase || raw["api_key"] != testProxyKey || raw["chat_model"] != "OpenAIChatModel" ||
		!p.IsCustom || len(p.Models) != 1 || p.Models[0].ID != "m1" || p.Models[0].MaxInputLength != testWindow {
		t.Errorf("provider file: %s", pdata)
	}
}

// checkZeroClaw decodes config.toml as TOML and resolves every agent's
// model_provider the way ZeroClaw's Config::validate does.
func checkZeroClaw(t *testing.T, _ string, data []byte) {
	var cfg struct {
		SchemaVersion int `toml:"schema_version"`
		Providers     struct {
			Models map[string]map[string]struct {
				URI    string `toml:"uri"`
				Model  string `toml:"model"`
				APIKey string `toml:"api_key"`
			} `toml:"models"`
		} `toml:"providers"`
		Agents map[string]struct {
			ModelProvider string `toml:"model_provider"`
			RiskProfile   string `toml:"risk_profile"`
		} `toml:"agents"`
	}
	if _, err := toml.Decode(string(data), &cfg); err != nil {
		t.Fatalf("not TOML: %v\n%s", err, data)
	}
	p := cfg.Providers.Models["custom"]["metaclaw"]
	if p.URI != testBase || p.Model != "m1" || p.APIKey != testProxyKey || cfg.Providers.Models["openai"]["home"].APIKey != "sk-own" {
		t.Errorf("providers: %+v", cfg.Providers)
	}
	for name, a := range cfg.Agents {
		typ, alias, _ := strings.Cut(a.ModelProvider, ".")
		if a.ModelProvider != "custom.metaclaw" || cfg.Providers.Models[typ][alias].URI == "" {
			t.Errorf("agent %s: model_provider %q does not resolve to MetaClaw", name, a.ModelProvider)
		}
	}
	if len(cfg.Agents) != 2 || cfg.Agents["primary"].RiskProfile != "default" {
		t.Errorf("agents: %+v", cfg.Agents)
	}
	if !strings.Contains(string(data), "# my model") || !strings.HasPrefix(string(data), "# ZeroClaw config") {
		t.Errorf("comments were lost:\n%s", data)
	}
}

// checkIronClaw decodes [llm.default] as IronClaw's slot; api_key_env
// must be a variable name (a secret there fails IronClaw's parse).
func checkIronClaw(t *testing.T, _ string, data []byte) {
	var cfg struct {
		LLM map[string]struct {
			ProviderID string `toml:"provider_id"`
			BaseURL    string `toml:"base_url"`
			Model      string `toml:"model"`
			APIKeyEnv  string `toml:"api_key_env"`
		} `toml:"llm"`
	}
	if _, err := toml.Decode(string(data), &cfg); err != nil {
		t.Fatalf("not TOML: %v\n%s", err, data)
	}
	s := cfg.LLM["default"]
	if s.ProviderID != "openai_compatible" || s.BaseURL != testBase || s.Model != "m1" || !regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`).MatchString(s.APIKeyEnv) {
		t.Errorf("llm.default: %+v", s)
	}
	if strings.Contains(string(data), testProxyKey) {
		t.Error("the key was written into config.toml")
	}
}

// checkHermes decodes the model block of config.yaml.
func checkHermes(t *testing.T, _ string, data []byte) {
	var cfg struct {
		Model struct {
			Provider      string `yaml:"provider"`
			BaseURL       string `yaml:"base_url"`
			Default       string `yaml:"default"`
			APIKey        string `yaml:"api_key"`
			ContextLength int    `yaml:"context_length"`
		} `yaml:"model"`
		Terminal map[string]string `yaml:"terminal"`
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatalf("not YAML: %v\n%s", err, data)
	}
	m := cfg.Model
	if m.Provider != "custom" || m.BaseURL != testBase || m.Default != "m1" || m.APIKey != testProxyKey || m.ContextLength != testWindow || cfg.Terminal["backend"] != "local" {
		t.Errorf("hermes config: %+v", cfg)
	}
	if !strings.Contains(string(data), "# Hermes settings") {
		t.Errorf("comments were lost:\n%s", data)
	}
}

// checkNanoClaw reads .env as NanoClaw's readEnvFile does (src/env.ts):
// KEY=VALUE lines, # comments, matching quotes stripped, last line wins.
func checkNanoClaw(t *testing.T, _ string, data []byte) {
	got := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		k, v, ok := strings.Cut(line, "=")
		if line == "" || strings.HasPrefix(line, "#") || !ok {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		got[strings.TrimSpace(k)] = v
	}
	want := map[string]string{"ASSISTANT_NAME": "Andy", "ANTHROPIC_BASE_URL": "http://host.docker.internal:31234", "ONECLI_URL": "http://localhost:10254"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf(".env as NanoClaw reads it (-want +got):\n%s", d)
	}
}

// checkClaude reads the env object of Claude Code's settings.
func checkClaude(t *testing.T, _ string, data []byte) {
	var s struct {
		Model string            `json:"model"`
		Env   map[string]string `json:"env"`
	}
	decodeJSON(t, data, &s)
	want := map[string]string{"ANTHROPIC_BASE_URL": "http://127.0.0.1:31234", "ANTHROPIC_AUTH_TOKEN": testProxyKey}
	if s.Model != "opus" || !cmp.Equal(want, s.Env) {
		t.Errorf("claude settings: %+v", s)
	}
}

func decodeJSON(t *testing.T, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
}

// TestConnectUndoKeepsLaterChanges changes each file after connect, as the
// person or the agent would: undo then restores the keys connect replaced
// and keeps the later change.
func TestConnectUndoKeepsLaterChanges(t *testing.T) {
	later := map[string]struct {
		format docFormat
		add    string // appended to the file after connect
		key    []string
		value  any
	}{
		"zeroclaw":          {tomlFormat{}, "\n[gateway]\nport = 42617\n", []string{"gateway", "port"}, 42617},
		"hermes":            {yamlFormat{}, "display:\n  skin: mono\n", []string{"display", "skin"}, "mono"},
		"nanoclaw":          {envFormat{}, "TZ=Europe/Rome\n", []string{"TZ"}, "Europe/Rome"},
		"ironclaw new slot": {tomlFormat{}, "\n[budget]\ndaily_usd = 5\n", []string{"budget", "daily_usd"}, 5},
	}
	for _, tc := range agentCases() {
		l, ok := later[tc.agent]
		if !ok {
			l, ok = later[tc.name]
		}
		if !ok {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			c := newConnectEnv(t)
			before := writeHome(t, c.userHome, tc.files)
			args := []string{"connect", tc.agent}
			for _, a := range tc.args {
				args = append(args, strings.ReplaceAll(a, "{home}", c.userHome))
			}
			c.must(t, args...)
			main := filepath.Join(c.userHome, tc.target)
			f, err := os.OpenFile(main, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(l.add)
			f.Close()
			c.must(t, "connect", tc.agent, "--undo")
			want := parseTree(t, l.format, before[tc.target])
			want, _ = treeSet(want, l.key, l.value)
			data, _ := os.ReadFile(main)
			got := parseTree(t, l.format, string(data))
			w, _ := normalize(want)
			if d := cmp.Diff(w, got); d != "" {
				t.Errorf("after undo (-want +got):\n%s\nfile:\n%s", d, data)
			}
		})
	}
}

func parseTree(t *testing.T, f docFormat, data string) any {
	t.Helper()
	d, err := f.parse([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	v, err := d.tree()
	if err != nil {
		t.Fatal(err)
	}
	out, _ := normalize(v)
	return out
}

// TestConnectClaudeLegacyUndo restores settings saved by the first
// connect claude-code, whose undo record had another shape.
func TestConnectClaudeLegacyUndo(t *testing.T) {
	c := newConnectEnv(t)
	settings := filepath.Join(c.userHome, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o700)
	os.WriteFile(settings, []byte(`{"model": "opus", "env": {"FOO": "1", "ANTHROPIC_BASE_URL": "http://127.0.0.1:31234"}}`), 0o600)
	old := `{"saved_at": "2026-11-01T00:00:00Z", "settings": "` + settings + `", "backup": "x", "had_env": true,
		"env": [{"path": "ANTHROPIC_BASE_URL", "present": true, "value": "https://old.example"}]}`
	os.MkdirAll(filepath.Join(c.home, "connect"), 0o700)
	os.WriteFile(filepath.Join(c.home, "connect", "claude-code-undo.json"), []byte(old), 0o600)
	c.must(t, "connect", "claude-code", "--undo")
	var s struct{ Env map[string]string }
	data, _ := os.ReadFile(settings)
	decodeJSON(t, data, &s)
	if s.Env["ANTHROPIC_BASE_URL"] != "https://old.example" || s.Env["FOO"] != "1" {
		t.Errorf("after undo: %s", data)
	}
}

// TestConnectRefusesAnEditItCannotMakeCleanly leaves a file alone when the
// line editor cannot set a key without changing the meaning of the rest
// (here an agent defined as an inline table).
func TestConnectRefusesAnEditItCannotMakeCleanly(t *testing.T) {
	c := newConnectEnv(t)
	before := writeHome(t, c.userHome, map[string]string{".zeroclaw/config.toml": "schema_version = 3\n\n[agents]\nprimary = { model_provider = \"openai.home\" }\n"})
	if code := c.run("connect", "zeroclaw"); code != 1 || !strings.Contains(c.stderr.String(), "not changed") {
		t.Errorf("exit %d: %s", code, c.stderr.String())
	}
	if d := cmp.Diff(before, readHome(t, c.userHome)); d != "" {
		t.Errorf("the file changed:\n%s", d)
	}
	if _, err := os.Stat(filepath.Join(c.home, "connect", "zeroclaw-undo.json")); !os.IsNotExist(err) {
		t.Error("a refused connect left an undo record")
	}
}
