package app

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/metaclaw/metaclaw/app/learner/tinker/faketinker"
	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
	"github.com/metaclaw/metaclaw/store/testutil"
	"github.com/metaclaw/metaclaw/web"
)

// recordCheckpoints records a sampler and a state checkpoint of rl.model's
// default and a sampler checkpoint of another base model.
func recordCheckpoints(t *testing.T, db *store.DB) (sampler, state, other string) {
	t.Helper()
	ctx := context.Background()
	sampler, state, other = "tinker://run-1/sampler_weights/1", "tinker://run-1/weights/1", "tinker://old/sampler_weights/7"
	for _, c := range []*store.Checkpoint{{Kind: store.CheckpointSampler, Path: sampler, BaseModel: "Qwen/Qwen3-8B"},
		{Kind: store.CheckpointState, Path: state, BaseModel: "Qwen/Qwen3-8B"},
		{Kind: store.CheckpointSampler, Path: other, BaseModel: "Qwen/Qwen3-4B"}} {
		if err := db.InsertCheckpoint(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	return sampler, state, other
}

// TestServeCheckpoint rolls serving back through the web page's control
// without a running policy: a recorded sampler checkpoint becomes the
// serving checkpoint; anything else is refused and changes nothing.
func TestServeCheckpoint(t *testing.T) {
	a, err := New(Options{Home: t.TempDir(), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Stop()
	ctx := context.Background()
	sampler, state, other := recordCheckpoints(t, a.DB())
	if err := a.DB().SetServingCheckpoint(ctx, "tinker://run-1/sampler_weights/2"); err != nil {
		t.Fatal(err)
	}
	ctl := webControl{a}
	if p := ctl.Policy(); p != (web.PolicyStatus{}) {
		t.Errorf("policy without a running policy: %+v", p)
	}
	refused := []struct{ name, path, want string }{
		{"unknown", "tinker://nowhere/sampler_weights/1", "not a recorded checkpoint"},
		{"state", state, "a state checkpoint, not a sampler checkpoint"},
		{"other base model", other, "trained from base model Qwen/Qwen3-4B, but rl.model is Qwen/Qwen3-8B"},
	}
	for _, tc := range refused {
		err := ctl.ServeCheckpoint(ctx, tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	assertServing(t, a.DB(), "tinker://run-1/sampler_weights/2")
	if err := ctl.ServeCheckpoint(ctx, sampler); err != nil {
		t.Fatal(err)
	}
	assertServing(t, a.DB(), sampler)
	if err := ctl.ServeCheckpoint(ctx, ""); err != nil {
		t.Fatal(err)
	}
	assertServing(t, a.DB(), "")
}

func assertServing(t *testing.T, db *store.DB, want string) {
	t.Helper()
	got, err := db.ServingCheckpoint(context.Background())
	if err != nil || got != want {
		t.Errorf("serving checkpoint %q (%v), want %q", got, err, want)
	}
}

// TestServeCheckpointSwapsTheRunningPolicy starts the app in rl mode
// against a fake Tinker service: a rollback reaches the running policy at
// once (it wants the checkpoint without waiting for its poll) and the
// web page's control reports it.
func TestServeCheckpointSwapsTheRunningPolicy(t *testing.T) {
	up := fakeupstream.New()
	upURL, err := up.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	tk := faketinker.New(faketinker.Options{APIKey: "tml-rollback-test"})
	defer tk.Close()
	home := t.TempDir()
	db, err := store.Open(filepath.Join(home, "metaclaw.db"))
	if err != nil {
		t.Fatal(err)
	}
	sampler, _, _ := recordCheckpoints(t, db)
	_, err = config.Save(context.Background(), db, map[string]string{
		"llm.provider": "custom", "llm.api_base": upURL + "/v1", "llm.api_key": "sk-test", "llm.model_id": "fake-model",
		"mode": "rl", "rl.api_key": "tml-rollback-test", "rl.base_url": tk.URL(), "rl.hf_endpoint": "http://127.0.0.1:9",
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
	ctl := webControl{a}
	if err := ctl.ServeCheckpoint(context.Background(), sampler); err != nil {
		t.Fatal(err)
	}
	if p := ctl.Policy(); !p.Enabled || p.Wanted != sampler || p.BaseModel != "Qwen/Qwen3-8B" {
		t.Errorf("policy after the rollback: %+v", p)
	}
	assertServing(t, a.DB(), sampler)
	// The tokenizer cannot be fetched here, so the policy never serves:
	// the page hears why.
	testutil.Eventually(t, "the policy saying why it does not serve", func() bool {
		p := ctl.Policy()
		return !p.Ready && p.Reason != ""
	})
}
