package rollout

import (
	"path/filepath"
	"testing"

	"github.com/metaclaw/metaclaw/store/config"
)

// TestConfigure: no runner without openclaw_env_data_dir; the built-in
// loop talks to the proxy with the configured concurrency; OpenClaw runs
// one episode at a time whatever the concurrency asked.
func TestConfigure(t *testing.T) {
	cfg := config.Defaults()
	if r := Configure(cfg, Setup{}); r != nil {
		t.Fatalf("a runner without openclaw_env_data_dir: %+v", r.opts)
	}
	for _, kv := range [][2]string{{"openclaw_env_data_dir", "tasks"}, {"openclaw_env_concurrency", "3"}, {"claw_type", "none"}} {
		if err := cfg.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	home := t.TempDir()
	r := Configure(cfg, Setup{Home: home, ProxyURL: "http://127.0.0.1:30000"})
	loop, ok := r.opts.Agent.(*Loop)
	if !ok || r.opts.AgentName != "built-in tool loop" || r.opts.Concurrency != 3 || loop.ProxyURL != "http://127.0.0.1:30000" {
		t.Fatalf("claw_type none: agent %T %q, concurrency %d", r.opts.Agent, r.opts.AgentName, r.opts.Concurrency)
	}
	if got, want := loop.WorkDir(Task{ID: "../a b/c"}), filepath.Join(home, "rollout", "_a_b_c"); got != want {
		t.Errorf("work dir %q, want %q", got, want)
	}
	if err := cfg.Set("claw_type", "openclaw"); err != nil {
		t.Fatal(err)
	}
	r = Configure(cfg, Setup{Home: home})
	if _, ok := r.opts.Agent.(OpenClaw); !ok || r.opts.AgentName != "openclaw" || r.opts.Concurrency != 1 {
		t.Errorf("claw_type openclaw: agent %T %q, concurrency %d", r.opts.Agent, r.opts.AgentName, r.opts.Concurrency)
	}
}
