package trainer_test

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/tinker/faketinker"
	"github.com/metaclaw/metaclaw/app/learner/trainer"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
	"github.com/metaclaw/metaclaw/store/testutil"
)

// TestOlderGenerationWaitsForTheCheck: after an evolution the samples of
// the generation before are not trained until the learner has checked
// that their prompts would receive the same skills (learner.CheckSamples)
// and moved them on; the trainer never stales them wholesale.
func TestOlderGenerationWaitsForTheCheck(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *config.Config) { c.RL.GroupSize = 1 })
	ctx := context.Background()
	old := serveN(e, 2, 1000)
	// The evolver changes the skills: generation 0 → 1.
	add := []store.SkillChange{{Op: "add", Input: store.SkillInput{Name: "new-skill", Description: "a new skill", Body: "do it well"}}}
	if res, err := e.db.ApplyEvolution(ctx, add, store.Evolution{SessionID: "s1"}); err != nil || res.Generation != 1 {
		t.Fatalf("ApplyEvolution = %+v, %v", res, err)
	}
	tr := e.trainer()
	if _, err := tr.TrainStep(ctx); !errors.Is(err, trainer.ErrNothingToTrain) {
		t.Fatalf("TrainStep with only unchecked samples = %v, want ErrNothingToTrain", err)
	}
	for _, s := range old {
		if got := e.sample(s.ID); got.Status != store.SampleWaiting {
			t.Errorf("old sample %d: %s %q; want still waiting for the check", s.ID, got.Status, got.Reason)
		}
	}
	// The check found their prompts unchanged.
	for _, s := range old {
		if err := e.db.MoveGroupToGeneration(ctx, s.GroupID, 1); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tr.TrainStep(ctx); err != nil {
		t.Fatal(err)
	}
	for _, s := range old {
		if got := e.sample(s.ID); got.Status != store.SampleTrained {
			t.Errorf("checked sample %d: %s, want trained", s.ID, got.Status)
		}
	}
}

func TestUnscoredTurnsWait(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *config.Config) { c.RL.GroupSize, c.RL.BatchSize = 1, 2 })
	scored := e.serve([]int{1, 2}, []int{100, eos}, ptr(1))
	unscored := e.serve([]int{1, 3}, []int{200, eos}, nil) // the judge failed or is off
	st, err := e.trainer().TrainStep(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.SamplesUsed != 1 || e.sample(scored.ID).Status != store.SampleTrained {
		t.Errorf("step used %d samples; want only the scored one", st.SamplesUsed)
	}
	if got := e.sample(unscored.ID); got.Status != store.SampleWaiting || got.Reward != nil {
		t.Errorf("unscored sample: %s reward %v; want waiting without a reward (never trained as 0)", got.Status, got.Reward)
	}
}

func TestUnjudgedGroupMemberIsLeftOut(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *config.Config) { c.RL.GroupSize, c.RL.BatchSize, c.RL.AdvantageStd = 4, 1, false })
	e.fake.SetResponder(func(faketinker.SampleRequest) [][]int { return [][]int{{900, eos}, {901, eos}, {902, eos}} })
	e.judge.scores[500], e.judge.scores[900], e.judge.scores[902] = 1, -1, 1
	e.judge.fail[901] = true // every vote on this response fails
	served := e.serve([]int{1, 2, 3}, []int{500, eos}, ptr(1))
	st, err := e.trainer().TrainStep(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	group, _ := e.db.GroupSamples(context.Background(), served.ID)
	byFirst := map[int]store.Sample{}
	for _, s := range group {
		byFirst[s.SampledTokens[0]] = s
	}
	if s := byFirst[901]; s.Status != store.SampleSkipped || s.Reward != nil || s.Reason == "" {
		t.Errorf("unjudged member: %s, reward %v, %q; want skipped, unrewarded, with a reason", s.Status, s.Reward, s.Reason)
	}
	if st.SamplesUsed != 3 || math.Abs(st.RewardMean-1.0/3) > 1e-9 {
		t.Errorf("step used %d samples, reward mean %v; want 3 and 1/3 (the unjudged one out of the stats)", st.SamplesUsed, st.RewardMean)
	}
	want := map[int]float64{500: 2.0 / 3, 900: -4.0 / 3, 902: 2.0 / 3}
	run := runOf(t, e)
	for _, d := range e.datumsOf(run.ModelID) {
		tok := d.ModelInput[len(d.ModelInput)-1]
		if adv := d.Inputs["advantages"].Data[len(d.ModelInput)-1]; math.Abs(adv-want[tok]) > 1e-9 {
			t.Errorf("response %d: advantage %v, want %v", tok, adv, want[tok])
		}
	}
	if n := len(e.datumsOf(run.ModelID)); n != 3 {
		t.Errorf("%d datums, want 3", n)
	}
}

func TestTrainStepRequest(t *testing.T) {
	t.Parallel()
	// rl mode, but the batch (4) is not full: only a request trains now.
	e := newEnv(t, func(c *config.Config) { c.RL.GroupSize, c.RL.BatchSize = 1, 4 })
	samples := serveN(e, 2, 1000)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- e.trainer().Serve(ctx) }()
	defer func() { cancel(); <-done }()
	token, err := trainer.RequestTrainStep(context.Background(), e.db, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var ans trainer.StepAnswer
	testutil.Eventually(t, "the answer", func() bool {
		a, ok, err := trainer.TrainStepAnswer(context.Background(), e.db, token)
		ans = a
		return ok && err == nil
	})
	if ans.Error != "" || ans.Step != 1 || ans.Samples != 2 || ans.SamplerPath == "" || ans.Loss == nil {
		t.Errorf("answer = %+v; want step 1 with 2 samples", ans)
	}
	if got := statuses(e, samples); got[store.SampleTrained] != 2 {
		t.Errorf("samples: %v, want both trained", got)
	}
	// A second request with nothing left says so.
	token, _ = trainer.RequestTrainStep(context.Background(), e.db, time.Now().Add(time.Second))
	testutil.Eventually(t, "the second answer", func() bool {
		a, ok, _ := trainer.TrainStepAnswer(context.Background(), e.db, token)
		ans = a
		return ok
	})
	if ans.Error != trainer.ErrNothingToTrain.Error() {
		t.Errorf("second answer = %+v, want %q", ans, trainer.ErrNothingToTrain)
	}
}
