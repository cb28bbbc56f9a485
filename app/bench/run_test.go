package bench

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/metaclaw/metaclaw/app/bench/benchtest"
	"github.com/metaclaw/metaclaw/app/learner/tinker/faketinker"
	"github.com/metaclaw/metaclaw/app/learner/toolloop"
	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// TestRunResumesWhereItStopped interrupts a run in the middle of day 2 of
// the skills+memory arm and runs it again: the second run goes on from
// the interrupted round, replays nothing that was scored, and ends with
// the same scores as an uninterrupted run.
func TestRunResumesWhereItStopped(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	m := benchtest.Model(func(c fakeupstream.Conversation) {
		if strings.Contains(c.LastUser, "[d2r2]") && strings.Contains(c.System, benchtest.MemoryMarker) {
			once.Do(cancel)
		}
	})
	up := fakeupstream.New()
	base, err := up.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	up.SetDefault(fakeupstream.Reply{Func: m.Reply})
	person := config.Defaults()
	for k, v := range map[string]string{"llm.provider": "custom", "llm.api_base": base + "/v1", "llm.api_key": "sk-fake", "llm.model_id": "fake-model"} {
		if err := person.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	arms, err := ParseArms("base,skills,skills+memory")
	if err != nil {
		t.Fatal(err)
	}
	var saved []store.BenchReport
	opts := Options{Dir: miniBench, Arms: arms, Agent: AgentBuiltin, Work: filepath.Join(t.TempDir(), "work"), Person: person,
		AllowNetwork: toolloop.ProbeIsolation(ctx) != nil, Version: "test",
		Save: func(r *store.BenchReport) error { saved = append(saved, *r); return nil }}
	if _, err := Run(ctx, opts); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: %v, want context.Canceled", err)
	}
	stopped := saved[len(saved)-1]
	if stopped.Status != store.BenchStopped || stopped.Arms[2].DaysDone != 1 || len(stopped.Arms[2].Rounds) != 4 {
		t.Fatalf("after the interruption: status %s, skills+memory %d days and %d rounds (want stopped, 1, 4)",
			stopped.Status, stopped.Arms[2].DaysDone, len(stopped.Arms[2].Rounds))
	}
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.ID != stopped.ID || rep.Status != store.BenchDone {
		t.Errorf("resumed run %s (%s), want %s done", rep.ID, rep.Status, stopped.ID)
	}
	for _, arm := range rep.Arms {
		got := map[string]float64{}
		for _, r := range arm.Rounds {
			got[r.Day+"/"+r.Round] = r.Score
		}
		if d := cmp.Diff(benchtest.Scores[arm.Name], got, cmpopts.EquateApprox(0, 1e-9)); d != "" {
			t.Errorf("%s after resuming (-want +got):\n%s", arm.Name, d)
		}
		if arm.Agent.Calls != 13 {
			t.Errorf("%s: %d agent calls, want 13 (the interrupted one is not counted)", arm.Name, arm.Agent.Calls)
		}
	}
	// Each arm played day 1 once; the interrupted round was asked twice.
	if m.Hits("d1r1") != 3 || m.Hits("d2r2-skill") != 3 || m.Hits("extract-day1") != 1 {
		t.Errorf("hits: d1r1 %d, d2r2-skill %d, extract-day1 %d; want 3, 3, 1", m.Hits("d1r1"), m.Hits("d2r2-skill"), m.Hits("extract-day1"))
	}
	// Another run's settings do not resume this one.
	opts.Days = 2
	if _, err := Run(context.Background(), opts); err == nil || !strings.Contains(err.Error(), "holds another run") {
		t.Errorf("a run with other settings in the same folder: %v", err)
	}
}

// TestFullArmWithoutAServingPolicy runs the full arm against a fake
// training service whose policy cannot be served here (no tokenizer can
// be fetched): MetaClaw then serves the turns from llm.*, as it says, so
// the arm scores as skills+memory does (the judge scores every turn −1, so
// the evolver sees them all); the judge's calls are counted as learning, and the training step after each day
// finds no sample to train and says so.
func TestFullArmWithoutAServingPolicy(t *testing.T) {
	m := benchtest.Model(nil)
	up := fakeupstream.New()
	base, err := up.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	up.SetDefault(fakeupstream.Reply{Func: m.Reply})
	tk := faketinker.New(faketinker.Options{APIKey: "tml-bench"})
	defer tk.Close()
	person := config.Defaults()
	for k, v := range map[string]string{"llm.provider": "custom", "llm.api_base": base + "/v1", "llm.api_key": "sk-fake",
		"llm.model_id": "fake-model", "rl.api_key": "tml-bench", "rl.base_url": tk.URL(), "rl.hf_endpoint": "http://127.0.0.1:9"} {
		if err := person.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	arms, err := ParseArms("full")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), Options{Dir: miniBench, Arms: arms, Agent: AgentBuiltin, Work: t.TempDir(),
		Person: person, AllowNetwork: toolloop.ProbeIsolation(context.Background()) != nil})
	if err != nil {
		t.Fatal(err)
	}
	full := rep.Arms[0]
	got := map[string]float64{}
	for _, r := range full.Rounds {
		got[r.Day+"/"+r.Round] = r.Score
	}
	if d := cmp.Diff(benchtest.Scores["skills+memory"], got, cmpopts.EquateApprox(0, 1e-9)); d != "" {
		t.Errorf("full (-want +got):\n%s", d)
	}
	// Learning: 2 evolver and 2 extraction calls, the asks of the skill day
	// 1 added, and 3 judge votes for each of the 9 turns of days 1 and 2
	// (13 turns in all; the last day's are judged as far as the run's end
	// lets them).
	judge := m.Hits("judge")
	if judge < 27 || judge > 36 || full.Learning.Calls != int64(5+judge) || m.Hits("asks") != 1 {
		t.Errorf("judge calls %d, asks calls %d, learning calls %d; want 27..36 judge calls, 1 asks call and 4 more",
			judge, m.Hits("asks"), full.Learning.Calls)
	}
	notes := strings.Join(rep.Notes, "\n")
	if strings.Count(notes, "no training step after") != 2 || full.TrainingSteps != 0 {
		t.Errorf("training: %d steps, notes:\n%s", full.TrainingSteps, notes)
	}
}
