package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/app/instance"
	"github.com/metaclaw/metaclaw/app/learner/tinker"
	"github.com/metaclaw/metaclaw/app/learner/tinker/faketinker"
	"github.com/metaclaw/metaclaw/app/learner/trainer"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

func TestTrainStepNeedsARunningApp(t *testing.T) {
	t.Setenv("METACLAW_HOME", t.TempDir())
	var out, errOut bytes.Buffer
	code := Main([]string{"train-step"}, &Env{Stdout: &out, Stderr: &errOut})
	if code != 1 || !strings.Contains(errOut.String(), "MetaClaw is not running") {
		t.Errorf("exit %d, stderr %q; want 1 and 'not running'", code, errOut.String())
	}
}

// TestTrainStepAsksTheRunningApp plays the running app (the instance lock,
// the database and its trainer on a fake Tinker service) and runs
// `metaclaw train-step` against it.
func TestTrainStepAsksTheRunningApp(t *testing.T) {
	home := t.TempDir()
	t.Setenv("METACLAW_HOME", home)
	lock, err := instance.Acquire(home)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	if err := lock.WriteInfo(instance.Info{PID: os.Getpid(), Mode: "rl", Home: home, StartedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(filepath.Join(home, instance.DBName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	servedSample(t, db)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- runningTrainer(t, db).Serve(ctx) }()
	defer func() { cancel(); <-done }()

	var out, errOut bytes.Buffer
	code := Main([]string{"train-step", "--timeout", "20s"}, &Env{Stdout: &out, Stderr: &errOut})
	if code != 0 || !strings.Contains(out.String(), "training step 1 done: 1 samples") ||
		!strings.Contains(out.String(), "serving: tinker://") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
}

// servedSample records a judged turn answered by the policy.
func servedSample(t *testing.T, db *store.DB) {
	t.Helper()
	ctx := context.Background()
	turn := &store.Turn{SessionID: "s", ResponseText: "ok", CreatedAt: time.Now()}
	if err := db.RecordTurns(ctx, []*store.Turn{turn}); err != nil {
		t.Fatal(err)
	}
	s := &store.Sample{TurnID: turn.ID, PromptTokens: []int{1, 2}, SampledTokens: []int{3, 4},
		SampledLogprobs: []float64{-1, -1}, BaseModel: "Qwen/Qwen3-8B", Trainable: true}
	if err := db.InsertSample(ctx, s); err != nil {
		t.Fatal(err)
	}
	if err := db.PutScore(ctx, store.Score{TurnID: turn.ID, Score: 1, Votes: []int{1}}); err != nil {
		t.Fatal(err)
	}
}

// runningTrainer is the running app's trainer, on a fake Tinker service.
func runningTrainer(t *testing.T, db *store.DB) *trainer.Trainer {
	t.Helper()
	fake := faketinker.New(faketinker.Options{LongPoll: 20 * time.Millisecond})
	t.Cleanup(fake.Close)
	c, err := tinker.New(tinker.Options{BaseURL: fake.URL(), APIKey: fake.APIKey()})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	cfg := config.Defaults()
	cfg.Mode, cfg.RL.Model, cfg.RL.GroupSize = config.ModeRL, "Qwen/Qwen3-8B", 1
	return trainer.New(trainer.Options{DB: db, Client: c, Config: cfg, Poll: 20 * time.Millisecond})
}
