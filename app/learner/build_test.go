package learner_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/metaclaw/metaclaw/app/learner"
	"github.com/metaclaw/metaclaw/app/learner/tinker/faketinker"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// TestBuild: the front door makes the services a configuration asks for —
// skills then memory as injectors, the policy and the trainer only in a
// training mode, the skills folder unless skills.sync_dir is off, rollout
// with openclaw_env_data_dir — and lists each once as a Serve service.
func TestBuild(t *testing.T) {
	tk := faketinker.New(faketinker.Options{APIKey: "tml-build-test"})
	t.Cleanup(tk.Close)
	for _, tc := range []struct {
		name      string
		set       map[string]string
		injectors []string
		services  []string
		trains    bool
	}{
		{name: "defaults", injectors: []string{"skills", "memory"}, services: []string{"learner", "memory", "skills folder"}},
		{name: "skills and memory off", set: map[string]string{"skills.enabled": "false", "memory.enabled": "false"},
			services: []string{"learner", "memory", "skills folder"}},
		{name: "rl", set: map[string]string{"mode": "rl", "rl.api_key": "tml-build-test", "rl.base_url": tk.URL(),
			"rl.hf_endpoint": "http://127.0.0.1:9", "rl.prm_votes": "0"},
			injectors: []string{"skills", "memory"}, services: []string{"policy", "policy context", "learner", "trainer", "memory", "skills folder"}, trains: true},
		{name: "rollout, no skills folder", set: map[string]string{"skills.sync_dir": "false", "openclaw_env_data_dir": "tasks"},
			injectors: []string{"skills", "memory"}, services: []string{"learner", "memory", "rollout"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			db, err := store.Open(filepath.Join(home, "metaclaw.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			cfg := config.Defaults()
			for k, v := range tc.set {
				if err := cfg.Set(k, v); err != nil {
					t.Fatal(err)
				}
			}
			l := learner.Build(context.Background(), learner.Deps{DB: db, Config: cfg, Home: home})
			if l.Skills != nil {
				t.Cleanup(l.Skills.Close)
			}
			var injectors, services []string
			for _, inj := range l.Injectors {
				injectors = append(injectors, inj.Name())
			}
			for _, s := range l.Services {
				services = append(services, s.Name)
			}
			if diff := cmp.Diff(tc.injectors, injectors); diff != "" {
				t.Errorf("injectors (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.services, services); diff != "" {
				t.Errorf("services (-want +got):\n%s", diff)
			}
			if got := l.Policy != nil && l.Trainer != nil; got != tc.trains {
				t.Errorf("policy %v, trainer %v; want both %v", l.Policy != nil, l.Trainer != nil, tc.trains)
			}
			if got, want := l.Folder != nil, tc.set["skills.sync_dir"] != "false"; got != want {
				t.Errorf("skills folder made: %v, want %v", got, want)
			}
			if l.Learner == nil || l.Memory == nil || l.Meter == nil {
				t.Error("a service every mode has is missing")
			}
		})
	}
}
