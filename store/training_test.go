package store

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// servedTurn records a main turn and returns its id.
func servedTurn(t *testing.T, db *DB, session string) int64 {
	t.Helper()
	turn := &Turn{SessionID: session, ResponseText: "answer", CreatedAt: time.Now()}
	if err := db.RecordTurns(context.Background(), []*Turn{turn}); err != nil {
		t.Fatal(err)
	}
	return turn.ID
}

func newSample(turnID int64, gen int) *Sample {
	return &Sample{TurnID: turnID, SessionID: "s1", PromptTokens: []int{1, 2, 3}, SampledTokens: []int{4, -5, 1 << 20},
		SampledLogprobs: []float64{-0.5, -1.25, -2}, BaseModel: "Qwen/Qwen3-8B", Checkpoint: "Qwen/Qwen3-8B",
		SkillGeneration: gen, Trainable: true}
}

func TestSampleRoundTrip(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	turn := servedTurn(t, db, "s1")
	s := newSample(turn, 2)
	if err := db.InsertSample(ctx, s); err != nil {
		t.Fatal(err)
	}
	if s.ID == 0 || s.GroupID != s.ID || s.Kind != SampleServed || s.Status != SampleWaiting {
		t.Fatalf("inserted sample = %+v; want an id, its own group, served, waiting", s)
	}
	got, err := db.SampleForTurn(ctx, turn)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(*s, got, cmpopts.EquateApproxTime(time.Millisecond)); diff != "" {
		t.Errorf("read back (-inserted +read):\n%s", diff)
	}
	extra := newSample(0, 2)
	extra.Kind, extra.GroupID = SampleExtra, s.ID
	if err := db.InsertSamples(ctx, []*Sample{extra}); err != nil {
		t.Fatal(err)
	}
	group, err := db.GroupSamples(ctx, s.ID)
	if err != nil || len(group) != 2 || group[0].ID != s.ID || group[1].ID != extra.ID || group[1].TurnID != 0 {
		t.Errorf("group = %+v, %v; want the served sample then the extra", group, err)
	}
	if _, err := db.SampleForTurn(ctx, turn+100); !errors.Is(err, ErrNotFound) {
		t.Errorf("SampleForTurn(unknown) = %v, want ErrNotFound", err)
	}
}

func TestInsertSampleRejectsBadShapes(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	for name, mutate := range map[string]func(*Sample){
		"no prompt":         func(s *Sample) { s.PromptTokens = nil },
		"no sampled tokens": func(s *Sample) { s.SampledTokens, s.SampledLogprobs = nil, nil },
		"logprobs short":    func(s *Sample) { s.SampledLogprobs = s.SampledLogprobs[:1] },
		"bad kind":          func(s *Sample) { s.Kind = "other" },
	} {
		s := newSample(0, 0)
		mutate(s)
		if err := db.InsertSample(context.Background(), s); err == nil {
			t.Errorf("%s: inserted", name)
		}
	}
}

func TestNotTrainableIsSkipped(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	s := newSample(0, 0)
	s.Trainable = false
	if err := db.InsertSample(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if s.Status != SampleSkipped || s.Reason == "" {
		t.Errorf("fallback sample = %s %q; want skipped with a reason", s.Status, s.Reason)
	}
}

func TestWaitingSamplesAndRewards(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	scored, unscored, old := servedTurn(t, db, "s1"), servedTurn(t, db, "s1"), servedTurn(t, db, "s2")
	if err := db.PutScore(ctx, Score{TurnID: scored, Score: -1, Votes: []int{-1}}); err != nil {
		t.Fatal(err)
	}
	if err := db.PutScore(ctx, Score{TurnID: old, Score: 1, Votes: []int{1}}); err != nil {
		t.Fatal(err)
	}
	a, b, c := newSample(scored, 3), newSample(unscored, 3), newSample(old, 2)
	fallback := newSample(0, 3)
	fallback.Trainable = false
	if err := db.InsertSamples(ctx, []*Sample{a, b, c, fallback}); err != nil {
		t.Fatal(err)
	}
	if n, err := db.AdoptTurnScores(ctx); err != nil || n != 2 {
		t.Fatalf("AdoptTurnScores = %d, %v; want 2 (the scored turns)", n, err)
	}
	got, err := db.WaitingSamples(ctx, 3, 10)
	if err != nil || len(got) != 1 || got[0].ID != a.ID || *got[0].Reward != -1 || got[0].RewardSource != RewardFromTurn {
		t.Fatalf("WaitingSamples = %+v, %v; want only the scored sample of generation 3 with reward -1", got, err)
	}
	if n, err := db.MarkStaleBefore(ctx, 3); err != nil || n != 1 {
		t.Errorf("MarkStaleBefore = %d, %v; want 1", n, err)
	}
	if s, _ := db.SampleByID(ctx, c.ID); s.Status != SampleStale || s.Reason == "" {
		t.Errorf("old sample = %s %q; want stale with a reason", s.Status, s.Reason)
	}
	if err := db.SetSampleReward(ctx, b.ID, 0.5, RewardFromGroup); err != nil {
		t.Fatal(err)
	}
	if err := db.SetSampleReward(ctx, b.ID, math.NaN(), RewardFromGroup); err == nil {
		t.Error("a NaN reward was stored")
	}
	other := newSample(0, 3)
	other.BaseModel = "meta-llama/Llama-3.1-8B"
	if err := db.InsertSample(ctx, other); err != nil {
		t.Fatal(err)
	}
	if n, err := db.SkipOtherModels(ctx, "Qwen/Qwen3-8B"); err != nil || n != 1 {
		t.Errorf("SkipOtherModels = %d, %v; want 1", n, err)
	}
	counts, _ := db.SampleCounts(ctx)
	if diff := cmp.Diff(map[string]int{"waiting": 2, "stale": 1, "skipped": 2}, counts); diff != "" {
		t.Errorf("counts:\n%s", diff)
	}
}

func TestFinishStepIsAtomic(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	run := &TrainingRun{ModelID: "m:train:0", BaseModel: "Qwen/Qwen3-8B", LoRARank: 32}
	if err := db.InsertRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	a, b := newSample(0, 0), newSample(0, 0)
	if err := db.InsertSamples(ctx, []*Sample{a, b}); err != nil {
		t.Fatal(err)
	}
	st := &TrainingStep{RunID: run.ID, Step: 1, SamplesUsed: 2, RewardMean: math.NaN(), RewardStd: math.NaN()}
	if err := db.BeginStep(ctx, st); err != nil {
		t.Fatal(err)
	}
	// b is taken meanwhile: the step must not be recorded, a must still wait.
	if err := db.SkipSamples(ctx, []int64{b.ID}, "test"); err != nil {
		t.Fatal(err)
	}
	st.Loss, st.Metrics = 1.5, map[string]float64{"loss:sum": 1.5, "bad": math.Inf(1)}
	sampler := &Checkpoint{Kind: CheckpointSampler, Path: "tinker://m:train:0/sampler_weights/step-000001", BaseModel: run.BaseModel}
	err := db.FinishStep(ctx, st, []int64{a.ID, b.ID}, sampler)
	if !errors.Is(err, ErrSamplesTaken) {
		t.Fatalf("FinishStep with a taken sample = %v, want ErrSamplesTaken", err)
	}
	if s, _ := db.SampleByID(ctx, a.ID); s.Status != SampleWaiting || s.StepID != 0 {
		t.Errorf("after a refused FinishStep the sample is %s (step %d), want waiting", s.Status, s.StepID)
	}
	if _, err := db.LatestCheckpoint(ctx, CheckpointSampler, ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("checkpoint recorded by a refused FinishStep: %v", err)
	}
	if err := db.FinishStep(ctx, st, []int64{a.ID}, sampler); err != nil {
		t.Fatal(err)
	}
	if s, _ := db.SampleByID(ctx, a.ID); s.Status != SampleTrained || s.StepID != st.ID {
		t.Errorf("sample = %s step %d, want trained by %d", s.Status, s.StepID, st.ID)
	}
	if err := db.FinishStep(ctx, st, []int64{a.ID}); !errors.Is(err, ErrSamplesTaken) {
		t.Errorf("training a sample twice = %v, want ErrSamplesTaken", err)
	}
	got, err := db.StepByID(ctx, st.ID)
	if err != nil || got.Status != StepDone || got.Loss != 1.5 || got.Metrics["loss:sum"] != 1.5 || !math.IsNaN(got.RewardMean) {
		t.Errorf("step = %+v, %v", got, err)
	}
	c, err := db.LatestCheckpoint(ctx, CheckpointSampler, "Qwen/Qwen3-8B")
	if err != nil || c.Path != sampler.Path || c.StepID != st.ID {
		t.Errorf("latest sampler checkpoint = %+v, %v", c, err)
	}
}

func TestCrashRecovery(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	const base = "Qwen/Qwen3-8B"
	run := &TrainingRun{ModelID: "m:train:0", BaseModel: base, LoRARank: 8}
	if err := db.InsertRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	var steps []*TrainingStep
	var samples []*Sample
	for i := 1; i <= 3; i++ {
		s := newSample(0, 0)
		if err := db.InsertSample(ctx, s); err != nil {
			t.Fatal(err)
		}
		st := &TrainingStep{RunID: run.ID, Step: i}
		if err := db.BeginStep(ctx, st); err != nil {
			t.Fatal(err)
		}
		var ckpts []*Checkpoint
		if i == 1 {
			ckpts = append(ckpts, &Checkpoint{Kind: CheckpointState, Path: "tinker://m:train:0/weights/step-000001", BaseModel: base})
		}
		if err := db.FinishStep(ctx, st, []int64{s.ID}, ckpts...); err != nil {
			t.Fatal(err)
		}
		steps, samples = append(steps, st), append(samples, s)
	}
	inflight := &TrainingStep{RunID: run.ID, Step: 4}
	if err := db.BeginStep(ctx, inflight); err != nil {
		t.Fatal(err)
	}
	// The process dies here. The next one closes what was running...
	if n, err := db.CloseInterrupted(ctx, "interrupted"); err != nil || n != 1 {
		t.Fatalf("CloseInterrupted = %d, %v", n, err)
	}
	if st, _ := db.StepByID(ctx, inflight.ID); st.Status != StepFailed {
		t.Errorf("in-flight step = %s, want failed", st.Status)
	}
	// ...and resumes from the state checkpoint of step 1: steps 2 and 3 are lost.
	ckpt, err := db.LatestCheckpoint(ctx, CheckpointState, base)
	if err != nil || ckpt.StepID != steps[0].ID {
		t.Fatalf("latest state = %+v, %v", ckpt, err)
	}
	if n, err := db.DiscardStepsAfter(ctx, base, ckpt.StepID); err != nil || n != 2 {
		t.Fatalf("DiscardStepsAfter = %d, %v; want 2 samples back", n, err)
	}
	want := []string{SampleTrained, SampleWaiting, SampleWaiting}
	for i, s := range samples {
		got, _ := db.SampleByID(ctx, s.ID)
		if got.Status != want[i] {
			t.Errorf("sample of step %d = %s, want %s", i+1, got.Status, want[i])
		}
	}
	if st, _ := db.StepByID(ctx, steps[2].ID); st.Status != StepDiscarded {
		t.Errorf("lost step = %s, want discarded", st.Status)
	}
}

func TestServingCheckpoint(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	if p, err := db.ServingCheckpoint(ctx); err != nil || p != "" {
		t.Errorf("initial serving checkpoint = %q, %v; want \"\" (base model)", p, err)
	}
	const path = "tinker://m/sampler_weights/step-000002"
	if err := db.SetServingCheckpoint(ctx, path); err != nil {
		t.Fatal(err)
	}
	if p, _ := db.ServingCheckpoint(ctx); p != path {
		t.Errorf("serving checkpoint = %q, want %q", p, path)
	}
}

func TestTokenBlobs(t *testing.T) {
	t.Parallel()
	toks := []int{0, 1, -1, 151643, math.MaxInt32, math.MinInt32}
	got, err := DecodeTokens(EncodeTokens(toks))
	if err != nil || !cmp.Equal(got, toks) {
		t.Errorf("tokens round trip = %v, %v", got, err)
	}
	if b := EncodeTokens([]int{1, 256}); !cmp.Equal(b, []byte{1, 0, 0, 0, 0, 1, 0, 0}) {
		t.Errorf("tokens are not little-endian int32: %v", b)
	}
	lps := []float64{0, -0.5, -12.25}
	gotLP, err := DecodeLogprobs(EncodeLogprobs(lps))
	if err != nil || !cmp.Equal(gotLP, lps) {
		t.Errorf("logprobs round trip = %v, %v", gotLP, err)
	}
	if _, err := DecodeTokens([]byte{1, 2, 3}); err == nil {
		t.Error("a 3-byte token blob decoded")
	}
}
