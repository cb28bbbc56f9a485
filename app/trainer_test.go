package app

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/metaclaw/metaclaw/app/learner/tinker/faketinker"
	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
	"github.com/metaclaw/metaclaw/store/testutil"
)

// TestTrainerWiredInRLMode starts the app in rl mode with one rewarded
// sample waiting and a batch size of one: the app's trainer trains it on
// the (fake) Tinker service and makes the new sampler checkpoint the one
// served.
func TestTrainerWiredInRLMode(t *testing.T) {
	a, tk, s := startTrainingApp(t, nil)
	ctx := context.Background()
	testutil.Eventually(t, "a sampler checkpoint served after training", func() bool {
		path, _ := a.DB().ServingCheckpoint(ctx)
		return strings.Contains(path, "/sampler_weights/")
	})
	if n := len(tk.Datums()); n != 1 {
		t.Fatalf("the service got %d datums, want 1", n)
	}
	got, err := a.DB().SampleByID(ctx, s.ID)
	if err != nil || got.Status != store.SampleTrained {
		t.Fatalf("sample after training: %+v, %v", got, err)
	}
}

// TestTrainingFailureShowsInStatus makes the service refuse the step: the
// status (and so the tray and the page) says so, and the sample waits.
func TestTrainingFailureShowsInStatus(t *testing.T) {
	a, _, s := startTrainingApp(t, func(tk *faketinker.Server) {
		tk.FailNext("forward_backward", 100, faketinker.Fault{Status: 403})
	})
	testutil.Eventually(t, "status problems naming the failed step", func() bool {
		return slices.ContainsFunc(a.Status().Problems, func(p string) bool { return strings.Contains(p, "training step failed") })
	})
	got, err := a.DB().SampleByID(context.Background(), s.ID)
	if err != nil || got.Status != store.SampleWaiting {
		t.Fatalf("sample after a refused step: %+v, %v", got, err)
	}
}

// startTrainingApp starts the app in rl mode against a fake Tinker service
// (prepared by prep) with one rewarded sample waiting and a batch of one.
func startTrainingApp(t *testing.T, prep func(*faketinker.Server)) (*App, *faketinker.Server, *store.Sample) {
	t.Helper()
	up := fakeupstream.New()
	upURL, err := up.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { up.Close() })
	tk := faketinker.New(faketinker.Options{APIKey: "tml-app-test"})
	t.Cleanup(tk.Close)
	if prep != nil {
		prep(tk)
	}
	home := t.TempDir()
	db, err := store.Open(filepath.Join(home, "metaclaw.db"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, err = config.Save(ctx, db, map[string]string{
		"llm.provider": "custom", "llm.api_base": upURL + "/v1", "llm.api_key": "sk-test", "llm.model_id": "fake-model",
		"mode": "rl", "rl.api_key": "tml-app-test", "rl.base_url": tk.URL(), "rl.hf_endpoint": "http://127.0.0.1:9",
		"rl.prm_votes": "0", "rl.batch_size": "1", "rl.group_size": "1",
		"proxy.port": strconv.Itoa(freePort(t)), "web.port": strconv.Itoa(freePort(t)),
	})
	if err != nil {
		t.Fatal(err)
	}
	gen, err := db.SkillGeneration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s := &store.Sample{SessionID: "s1", PromptTokens: []int{5, 6, 7}, SampledTokens: []int{8, 9},
		SampledLogprobs: []float64{-0.5, -0.25}, BaseModel: config.Defaults().RL.Model,
		Checkpoint: config.Defaults().RL.Model, SkillGeneration: gen, Trainable: true}
	if err := db.InsertSample(ctx, s); err != nil {
		t.Fatal(err)
	}
	if err := db.SetSampleReward(ctx, s.ID, 1, store.RewardFromTurn); err != nil {
		t.Fatal(err)
	}
	db.Close()
	a, err := New(Options{Home: home, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Stop() })
	return a, tk, s
}
