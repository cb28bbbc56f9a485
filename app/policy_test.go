package app

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/metaclaw/metaclaw/app/learner/policy"
	"github.com/metaclaw/metaclaw/app/learner/tinker/faketinker"
	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
	"github.com/metaclaw/metaclaw/store/testutil"
)

// TestPolicyWiredInTrainingModes starts the app in rl mode against a fake
// Tinker service whose tokenizer cannot be fetched (the Hub is
// unreachable): turns still work (llm.*), and status says why the policy
// does not serve them.
func TestPolicyWiredInTrainingModes(t *testing.T) {
	up := fakeupstream.New()
	upURL, err := up.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	tk := faketinker.New(faketinker.Options{APIKey: "tml-app-test"})
	defer tk.Close()
	home := t.TempDir()
	db, err := store.Open(filepath.Join(home, "metaclaw.db"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = config.Save(context.Background(), db, map[string]string{
		"llm.provider": "custom", "llm.api_base": upURL + "/v1", "llm.api_key": "sk-test", "llm.model_id": "fake-model",
		"mode": "rl", "rl.api_key": "tml-app-test", "rl.base_url": tk.URL(), "rl.hf_endpoint": "http://127.0.0.1:9",
		"rl.prm_votes": "0", "proxy.port": strconv.Itoa(freePort(t)), "web.port": strconv.Itoa(freePort(t)),
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(Options{Home: home, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer a.Stop()
	if a.Policy() == nil {
		t.Fatal("rl mode with a key has no policy server")
	}
	testutil.Eventually(t, "status problems naming the tokenizer", func() bool {
		var found string
		for _, p := range a.Status().Problems {
			if strings.Contains(p, "training policy not serving") {
				found = p
			}
		}
		return strings.Contains(found, "tokenizer")
	})
	if h := a.health()["policy"].(map[string]any); h["ready"] != false {
		t.Fatalf("health policy = %v", h)
	}
}

// TestPolicyHeadersAgree holds the policy's copies of the proxy's header
// names (the import rule keeps the learner from importing proxy) to the
// proxy's.
func TestPolicyHeadersAgree(t *testing.T) {
	pairs := [][2]string{
		{policy.SessionHeader, proxy.PolicySessionHeader},
		{policy.TurnTypeHeader, proxy.PolicyTurnTypeHeader},
		{policy.SampleHeader, proxy.PolicySampleHeader},
	}
	for _, p := range pairs {
		if p[0] != p[1] {
			t.Errorf("policy sends %q, proxy uses %q", p[0], p[1])
		}
	}
}
