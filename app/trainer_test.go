package app

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/tinker/faketinker"
	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// TestTrainerWiredInRLMode starts the app in rl mode with one rewarded
// sample waiting and a batch size of one: the app's trainer trains it on
// the (fake) Tinker service and makes the new sampler checkpoint the one
// served.
func TestTrainerWiredInRLMode(t *testing.T) {
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
	defer a.Stop()
	deadline := time.Now().Add(20 * time.Second)
	for {
		path, _ := a.DB().ServingCheckpoint(ctx)
		if strings.Contains(path, "/sampler_weights/") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no sampler checkpoint served after training; trainer status %+v", a.Trainer().Status())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := len(tk.Datums()); n != 1 {
		t.Fatalf("the service got %d datums, want 1", n)
	}
	got, err := a.DB().SampleByID(ctx, s.ID)
	if err != nil || got.Status != store.SampleTrained {
		t.Fatalf("sample after training: %+v, %v", got, err)
	}
}
