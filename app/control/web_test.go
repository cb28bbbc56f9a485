package control

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaclaw/metaclaw/idle/windows"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
	"github.com/metaclaw/metaclaw/web"
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

// stoppedApp is an app that is not started, with the default
// configuration in force.
type stoppedApp struct{ cfg config.Config }

func (a stoppedApp) Status() Status                 { return Status{} }
func (a stoppedApp) Config() config.Config          { return a.cfg }
func (a stoppedApp) Paused() bool                   { return false }
func (a stoppedApp) SetPaused(bool) error           { return nil }
func (a stoppedApp) ApplySettings(context.Context)  {}
func (a stoppedApp) RequestRestart()                {}
func (a stoppedApp) SchedulerStatus() windows.State { return windows.State{} }

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
	db := openDB(t)
	ctx := context.Background()
	sampler, state, other := recordCheckpoints(t, db)
	if err := db.SetServingCheckpoint(ctx, "tinker://run-1/sampler_weights/2"); err != nil {
		t.Fatal(err)
	}
	ctl := &Web{App: stoppedApp{config.Defaults()}, DB: db, Home: t.TempDir()}
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
	assertServing(t, db, "tinker://run-1/sampler_weights/2")
	if err := ctl.ServeCheckpoint(ctx, sampler); err != nil {
		t.Fatal(err)
	}
	assertServing(t, db, sampler)
	if err := ctl.ServeCheckpoint(ctx, ""); err != nil {
		t.Fatal(err)
	}
	assertServing(t, db, "")
}

func assertServing(t *testing.T, db *store.DB, want string) {
	t.Helper()
	got, err := db.ServingCheckpoint(context.Background())
	if err != nil || got != want {
		t.Errorf("serving checkpoint %q (%v), want %q", got, err, want)
	}
}
