package app

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/metaclaw/metaclaw/app/learner/tinker/faketinker"
	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
	"github.com/metaclaw/metaclaw/store/testutil"
)

// recordSampler records a sampler checkpoint of rl.model's default.
func recordSampler(t *testing.T, db *store.DB) string {
	t.Helper()
	c := &store.Checkpoint{Kind: store.CheckpointSampler, Path: "tinker://run-1/sampler_weights/1", BaseModel: "Qwen/Qwen3-8B"}
	if err := db.InsertCheckpoint(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	return c.Path
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
	sampler := recordSampler(t, db)
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
	ctl := a.webControl()
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
