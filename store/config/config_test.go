package config

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/metaclaw/metaclaw/store"
)

func openDB(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "metaclaw.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestDefaultsAreValid(t *testing.T) {
	t.Parallel()
	c := Defaults()
	for _, f := range Fields() {
		if f.Doc == "" {
			t.Errorf("%s has no doc", f.Key)
		}
		if _, _, err := Normalize(f.Key, f.Default); err != nil {
			t.Errorf("default of %s refused: %v", f.Key, err)
		}
	}
	if c.Mode != "madmax" || c.Proxy.Port != 30000 || c.Proxy.Host != "127.0.0.1" || c.OPD.KLPenaltyCoef != 1 ||
		c.Scheduler.SleepStart != "23:00" || !c.Skills.AutoEvolve || c.Memory.MaxInjectedUnits != 6 {
		t.Errorf("unexpected defaults: %+v", c)
	}
}

func TestSeedKeysPresent(t *testing.T) {
	t.Parallel()
	// Every key of the reference configuration reference must exist.
	for _, k := range []string{"mode", "claw_type", "llm.provider", "llm.model_id", "llm.api_base", "llm.api_key",
		"proxy.port", "proxy.api_key", "skills.enabled", "skills.dir", "skills.retrieval_mode", "skills.top_k",
		"skills.task_specific_top_k", "skills.auto_evolve", "rl.enabled", "rl.backend", "rl.model", "rl.api_key",
		"rl.base_url", "rl.tinker_api_key", "rl.tinker_base_url", "rl.prm_url", "rl.prm_model", "rl.prm_api_key",
		"rl.lora_rank", "rl.batch_size", "rl.resume_from_ckpt", "rl.evolver_api_base", "rl.evolver_api_key",
		"rl.evolver_model", "opd.enabled", "opd.teacher_url", "opd.teacher_model", "opd.teacher_api_key",
		"opd.kl_penalty_coef", "max_context_tokens", "context_window", "scheduler.enabled", "scheduler.sleep_start",
		"scheduler.sleep_end", "scheduler.idle_threshold_minutes", "scheduler.min_window_minutes",
		"scheduler.calendar.enabled", "scheduler.calendar.credentials_path", "scheduler.calendar.token_path",
		"memory.scope", "memory.max_injected_units", "memory.max_injected_tokens"} {
		if _, ok := Lookup(k); !ok {
			t.Errorf("key %s missing", k)
		}
	}
}

func TestNormalize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, key, value, want, errHas string
	}{
		{"enum", "mode", "RL", "rl", ""},
		{"enum refused", "mode", "turbo", "", "mode: \"turbo\" is not allowed; allowed: madmax, rl, skills_only"},
		{"port", "proxy.port", " 8080 ", "8080", ""},
		{"port zero", "proxy.port", "0", "", "allowed: a port number from 1 to 65535"},
		{"port high", "web.port", "70000", "", "out of range"},
		{"port text", "proxy.port", "abc", "", "not a whole number"},
		{"url", "llm.api_base", "http://127.0.0.1:9/v1", "http://127.0.0.1:9/v1", ""},
		{"url bad scheme", "llm.api_base", "ftp://x", "", "llm.api_base: \"ftp://x\" is not an http(s) URL"},
		{"url empty ok", "rl.base_url", "", "", ""},
		{"hhmm", "scheduler.sleep_start", "23:59", "23:59", ""},
		{"hhmm bad", "scheduler.sleep_end", "24:00", "", "HH:MM"},
		{"hhmm short", "scheduler.sleep_end", "7:00", "", "not HH:MM"},
		{"bool", "skills.enabled", "off", "false", ""},
		{"bool bad", "skills.enabled", "maybe", "", "true or false"},
		{"positive", "rl.batch_size", "0", "", "whole number ≥ 1"},
		{"float", "opd.kl_penalty_coef", "0.5", "0.5", ""},
		{"float negative", "opd.kl_penalty_coef", "-1", "", "out of range"},
		{"float nan", "opd.kl_penalty_coef", "NaN", "", "not a number"},
		{"alias", "rl.tinker_api_key", "sk-1", "sk-1", ""},
		{"unknown", "llm.temperature", "1", "", "llm.temperature: unknown key"},
		{"host", "proxy.host", "0.0.0.0", "0.0.0.0", ""},
		{"host bad", "proxy.host", "a b", "", "not an IP address"},
		{"invalid utf8", "llm.model_id", "a\xffb", "", "not valid text"},
		{"origins", "proxy.allowed_origins", "http://localhost:5173, https://agent.example", "http://localhost:5173, https://agent.example", ""},
		{"origins empty", "proxy.allowed_origins", "", "", ""},
		{"origin with a path", "proxy.allowed_origins", "http://localhost:5173/", "", "is not an origin"},
		{"origin without a scheme", "proxy.allowed_origins", "localhost:5173", "", "is not an origin"},
		{"ask languages auto", "skills.ask_languages", "auto", "auto", ""},
		{"ask languages listed", "skills.ask_languages", "de, es", "de, es", ""},
		{"ask languages none", "skills.ask_languages", "none", "none", ""},
		{"ask language unknown", "skills.ask_languages", "de,klingon", "", `"klingon" is not one of de, es, fr, it, pt`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, got, err := Normalize(tt.key, tt.value)
			if tt.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) {
					t.Fatalf("Normalize(%s, %q) error = %v, want one containing %q", tt.key, tt.value, err, tt.errHas)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Normalize(%s, %q) = %q, %v; want %q", tt.key, tt.value, got, err, tt.want)
			}
		})
	}
}

func TestSaveIsAllOrNothing(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx := context.Background()
	if _, err := Save(ctx, db, map[string]string{"mode": "rl", "proxy.port": "31000"}); err != nil {
		t.Fatal(err)
	}
	_, err := Save(ctx, db, map[string]string{"mode": "skills_only", "proxy.port": "99999", "nope": "1"})
	var errs Errors
	if !errors.As(err, &errs) || len(errs) != 2 {
		t.Fatalf("Save with two bad keys = %v, want 2 errors", err)
	}
	c, warnings, err := Load(ctx, db)
	if err != nil || len(warnings) > 0 {
		t.Fatal(err, warnings)
	}
	if c.Mode != "rl" || c.Proxy.Port != 31000 {
		t.Errorf("a refused Save changed something: mode=%s port=%d", c.Mode, c.Proxy.Port)
	}
	// Aliases land on the canonical key.
	if _, err := Save(ctx, db, map[string]string{"rl.tinker_base_url": "https://mint.example/"}); err != nil {
		t.Fatal(err)
	}
	rows, _ := db.Settings(ctx)
	if rows["rl.base_url"] != "https://mint.example/" || rows["rl.tinker_base_url"] != "" {
		t.Errorf("alias stored wrongly: %v", rows)
	}
}

func TestLoadToleratesBadRows(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx := context.Background()
	if err := db.UpdateSettings(ctx, map[string]string{"mode": "warp", "future.key": "x", "proxy.port": "31001"}, nil); err != nil {
		t.Fatal(err)
	}
	c, warnings, err := Load(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if c.Mode != "madmax" || c.Proxy.Port != 31001 || len(warnings) != 2 {
		t.Errorf("Load = mode %s port %d warnings %q", c.Mode, c.Proxy.Port, warnings)
	}
}

func TestParseReferenceYAML(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/reference-config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	changes, unknown, err := ParseYAML(data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"openclaw_env_python_path"}, unknown); diff != "" {
		t.Errorf("unknown keys: %s", diff)
	}
	want := map[string]string{
		"mode": "rl", "claw_type": "nanoclaw", "llm.provider": "openrouter", "llm.api_key": "sk-or-secret-123",
		"proxy.port": "31000", "skills.retrieval_mode": "template", "rl.backend": "mint",
		"rl.api_key": "sk-mint-legacy", "rl.base_url": "https://mint.macaron.xin/", "max_context_tokens": "0",
		"scheduler.sleep_start": "23:30", "opd.kl_penalty_coef": "1", "openclaw_env_data_dir": "/data/tasks",
	}
	for k, v := range want {
		if changes[k] != v {
			t.Errorf("%s = %q, want %q", k, changes[k], v)
		}
	}
}

func TestParseYAMLRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, yaml, errHas string }{
		{"bad value", "proxy:\n  port: 0\n", "proxy.port"},
		{"list for scalar", "mode: [a, b]\n", "mode: expected a single value, found a list"},
		{"not yaml", "mode: [\n", "parse yaml"},
		{"top level list", "- a\n", "expected a mapping"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := ParseYAML([]byte(tt.yaml))
			if err == nil || !strings.Contains(err.Error(), tt.errHas) {
				t.Fatalf("error = %v, want %q", err, tt.errHas)
			}
		})
	}
}

func TestYAMLRoundTrip(t *testing.T) {
	t.Parallel()
	c := Defaults()
	must(t, c.Set("llm.api_key", "sk-secret"))
	must(t, c.Set("mode", "skills_only"))
	must(t, c.Set("llm.model_id", "yes")) // a string that YAML would read as a bool
	out, err := c.YAML(false)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "sk-secret") {
		t.Fatal("export without secrets contains the secret")
	}
	changes, unknown, err := ParseYAML(out)
	if err != nil || len(unknown) > 0 {
		t.Fatal(err, unknown)
	}
	back := Defaults()
	for k, v := range changes {
		must(t, back.Set(k, v))
	}
	c.LLM.APIKey = ""
	if d := c.Diff(&back); len(d) > 0 {
		t.Errorf("round trip changed %v", d)
	}
	withSecrets, _ := c.YAML(true)
	_ = withSecrets
}

func TestResolve(t *testing.T) {
	t.Parallel()
	c := Defaults()
	e := c.Resolve()
	if e.Mode != "skills_only" || len(e.Problems) != 2 {
		t.Errorf("defaults resolve to %+v", e)
	}
	must(t, c.Set("rl.api_key", "k"))
	must(t, c.Set("llm.api_key", "k"))
	if e := c.Resolve(); e.Mode != "madmax" || len(e.Problems) != 0 {
		t.Errorf("configured resolve to %+v", e)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestPromptLimitAndAgentWindow(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name               string
		set                map[string]string
		toPolicy           bool
		policyCtx, maxTok  int
		wantLimit          int
		wantWindow, agentL int
	}{
		{name: "skills_only never cuts", set: map[string]string{"mode": "skills_only"}, wantLimit: 0, wantWindow: 200000},
		{name: "llm turns in rl are never cut", set: map[string]string{"mode": "rl", "rl.api_key": "k"},
			wantLimit: 0, wantWindow: 32768 - 4096, agentL: 32768 - 4096},
		{name: "policy turns: context minus max_tokens", set: map[string]string{"mode": "rl", "rl.api_key": "k"},
			toPolicy: true, policyCtx: 40960, maxTok: 2048, wantLimit: 40960 - 2048, wantWindow: 32768 - 4096, agentL: 32768 - 4096},
		{name: "rl.max_tokens when the turn names none", set: map[string]string{"mode": "madmax", "rl.api_key": "k", "rl.max_tokens": "1000"},
			toPolicy: true, policyCtx: 8000, wantLimit: 7000, wantWindow: 32768 - 1000, agentL: 32768 - 1000},
		{name: "explicit max_context_tokens wins", set: map[string]string{"mode": "skills_only", "max_context_tokens": "20000"},
			wantLimit: 20000, wantWindow: 20000, agentL: 20000},
		{name: "a smaller context_window is announced", set: map[string]string{"mode": "skills_only", "max_context_tokens": "20000", "context_window": "16000"},
			wantLimit: 20000, wantWindow: 16000, agentL: 20000},
		{name: "a larger context_window is not", set: map[string]string{"mode": "skills_only", "max_context_tokens": "20000", "context_window": "128000"},
			wantLimit: 20000, wantWindow: 20000, agentL: 20000},
		{name: "context_window alone", set: map[string]string{"mode": "skills_only", "context_window": "128000"},
			wantLimit: 0, wantWindow: 128000},
		{name: "rl without a key runs as skills_only", set: map[string]string{"mode": "rl"}, wantWindow: 200000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := Defaults()
			for k, v := range tt.set {
				if err := c.Set(k, v); err != nil {
					t.Fatal(err)
				}
			}
			if got := c.PromptLimit(tt.toPolicy, tt.policyCtx, tt.maxTok); got != tt.wantLimit {
				t.Errorf("PromptLimit = %d, want %d", got, tt.wantLimit)
			}
			w, l := c.AgentWindow(0)
			if w != tt.wantWindow || l != tt.agentL {
				t.Errorf("AgentWindow = %d, %d; want %d, %d", w, l, tt.wantWindow, tt.agentL)
			}
		})
	}
}

func TestParseAskLanguages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
		auto bool
		err  bool
	}{
		{"auto", nil, true, false},
		{" AUTO ", nil, true, false},
		{"none", nil, false, false},
		{"", nil, false, false},
		{"de,es", []string{"de", "es"}, false, false},
		{"pt it pt", []string{"pt", "it"}, false, false},
		{"en", nil, false, true},
		{"german", nil, false, true},
	}
	for _, tt := range tests {
		got, auto, err := ParseAskLanguages(tt.in)
		if !slices.Equal(got, tt.want) || auto != tt.auto || (err != nil) != tt.err {
			t.Errorf("ParseAskLanguages(%q) = %q, %v, %v", tt.in, got, auto, err)
		}
	}
}

func TestWantedAskLanguages(t *testing.T) {
	t.Parallel()
	seen := map[string]int{"de": AskLanguageRequests, "it": AskLanguageRequests - 1, "nl": 9}
	for _, tt := range []struct {
		setting string
		want    []string
	}{{"auto", []string{"de"}}, {"it,fr", []string{"it", "fr"}}, {"none", nil}, {"klingon", nil}} {
		if got := WantedAskLanguages(tt.setting, seen); !slices.Equal(got, tt.want) {
			t.Errorf("WantedAskLanguages(%q) = %q, want %q", tt.setting, got, tt.want)
		}
	}
}
