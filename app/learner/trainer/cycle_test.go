package trainer_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/metaclaw/metaclaw/app/learner/tinker"
	"github.com/metaclaw/metaclaw/app/learner/tinker/faketinker"
	"github.com/metaclaw/metaclaw/app/learner/trainer"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

var (
	promptA = []int{101, 102, 103}
	promptB = []int{201, 202}
	// extras scripts the policy's extra responses to each prompt.
	extras = map[int][][]int{
		101: {{1001, 1002, eos}, {1011, eos}, {1021, 1022, 1023, eos}},
		201: {{2001, eos}, {2011, 2012, eos}, {2021, eos}},
	}
)

func scriptExtras(e *env) {
	e.fake.SetResponder(func(req faketinker.SampleRequest) [][]int { return extras[req.Prompt[0]] })
}

// key identifies a datum or a sample by its full token sequence.
func key(prompt, sampled []int) string { return fmt.Sprint(append(slices.Clone(prompt), sampled...)) }

func floats(v []int) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// checkDatum compares a received datum with the sample it must come from.
func checkDatum(t *testing.T, d faketinker.RecordedDatum, s store.Sample, adv []float64) {
	t.Helper()
	seq := append(slices.Clone(s.PromptTokens), s.SampledTokens...)
	n, p := len(seq)-1, len(s.PromptTokens)
	wantLP, wantAdv := make([]float64, n), make([]float64, n)
	copy(wantLP[p-1:], s.SampledLogprobs)
	copy(wantAdv[p-1:], adv)
	got := map[string][]float64{"model_input": floats(d.ModelInput)}
	for k, v := range d.Inputs {
		got[k] = v.Data
	}
	want := map[string][]float64{"model_input": floats(seq[:n]), "target_tokens": floats(seq[1:]),
		"logprobs": wantLP, "advantages": wantAdv}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("datum of sample %d (-want +got):\n%s", s.ID, diff)
	}
	for i := range p - 1 {
		if got["advantages"][i] != 0 {
			t.Errorf("sample %d: prompt position %d has advantage %v", s.ID, i, got["advantages"][i])
		}
	}
}

func TestFullCycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *config.Config) { c.RL.GroupSize, c.RL.AdvantageStd = 4, true })
	scriptExtras(e)
	// The judge's verdicts on each response, judged on its own.
	for id, sc := range map[int]int{500: 1, 1001: -1, 1011: 0, 1021: 1, 600: -1, 2001: -1, 2011: 1, 2021: -1} {
		e.judge.scores[id] = sc
	}
	// Served as the serving side records them, and scored by the learner's
	// judge with next-turn evidence (0 and -1).
	servedA := e.serve(promptA, []int{500, 501, eos}, ptr(0))
	servedB := e.serve(promptB, []int{600, eos}, ptr(-1))
	ctx := context.Background()
	tr := e.trainer()
	st, err := tr.TrainStep(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// Groups: each served sample and its three extras, judged alike.
	sA, sB := math.Sqrt(0.6875), math.Sqrt(0.75)
	wantAdv := map[string]float64{
		key(promptA, []int{500, 501, eos}): 0.75 / sA, key(promptA, extras[101][0]): -1.25 / sA,
		key(promptA, extras[101][1]): -0.25 / sA, key(promptA, extras[101][2]): 0.75 / sA,
		key(promptB, []int{600, eos}): -0.5 / sB, key(promptB, extras[201][0]): -0.5 / sB,
		key(promptB, extras[201][1]): 1.5 / sB, key(promptB, extras[201][2]): -0.5 / sB,
	}
	byKey := map[string]store.Sample{}
	for _, head := range []store.Sample{servedA, servedB} {
		group, err := e.db.GroupSamples(ctx, head.ID)
		if err != nil || len(group) != 4 {
			t.Fatalf("group of sample %d = %d samples, %v; want 4", head.ID, len(group), err)
		}
		for i, s := range group {
			if want := map[bool]string{true: store.SampleServed, false: store.SampleExtra}[i == 0]; s.Kind != want {
				t.Errorf("sample %d kind %s, want %s", s.ID, s.Kind, want)
			}
			if s.Status != store.SampleTrained || s.StepID != st.ID || s.RewardSource != store.RewardFromGroup {
				t.Errorf("sample %d: %s by step %d, reward from %q; want trained by %d, from the group", s.ID, s.Status, s.StepID, s.RewardSource, st.ID)
			}
			byKey[key(s.PromptTokens, s.SampledTokens)] = s
		}
	}
	if r := e.sample(servedA.ID).Reward; r == nil || *r != 1 {
		t.Errorf("served A's reward = %v, want 1 (judged with its group, not the turn's 0)", r)
	}

	// The datums the service received, field by field.
	run := runOf(t, e)
	got := e.datumsOf(run.ModelID)
	if len(got) != 8 {
		t.Fatalf("forward_backward received %d datums, want 8", len(got))
	}
	for _, d := range got {
		k := fmt.Sprint(append(slices.Clone(d.ModelInput), int(d.Inputs["target_tokens"].Data[len(d.ModelInput)-1])))
		s, ok := byKey[k]
		if !ok {
			t.Fatalf("datum %v matches no sample", d.ModelInput)
		}
		checkDatum(t, d, s, trainer.TokenAdvantages(wantAdv[k], len(s.SampledTokens)))
		if d.LossFn != tinker.LossImportanceSampling || d.LossFnConfig != nil {
			t.Errorf("loss %s %v, want importance_sampling without config", d.LossFn, d.LossFnConfig)
		}
	}

	// The extras were drawn from the base model (nothing served yet).
	for _, rec := range e.fake.Samples() {
		if rec.NumSamples != 3 || rec.ModelPath != "" || !slices.Contains(rec.StopTokens, eos) {
			t.Errorf("asample %+v; want 3 samples from the base model, stopping at %d", rec.SampleRequest, eos)
		}
	}

	// The step as recorded, and the optimizer's settings.
	if st.Status != store.StepDone || st.Step != 1 || st.SamplesUsed != 8 || st.Datums != 8 || math.IsNaN(st.Loss) ||
		math.Abs(st.RewardMean-(-0.125)) > 1e-9 {
		t.Errorf("step = %+v", st)
	}
	m, _ := e.fake.Model(run.ModelID)
	wantAdam := faketinker.AdamParams{LearningRate: 1e-4, Beta1: 0.9, Beta2: 0.95, Eps: 1e-8}
	if m.Steps != 1 || len(m.Adam) != 1 || m.Adam[0] != wantAdam {
		t.Errorf("service model: %d steps, adam %+v; want 1 step with %+v", m.Steps, m.Adam, wantAdam)
	}

	// The new sampler checkpoint is recorded, served and published.
	wantPath := "tinker://" + run.ModelID + "/sampler_weights/step-000001"
	if st.SamplerPath != wantPath {
		t.Errorf("sampler path %q, want %q", st.SamplerPath, wantPath)
	}
	if p, _ := e.db.ServingCheckpoint(ctx); p != wantPath {
		t.Errorf("ServingCheckpoint = %q, want %q", p, wantPath)
	}
	if diff := cmp.Diff([]string{wantPath}, e.Published()); diff != "" {
		t.Errorf("published:\n%s", diff)
	}
	if c, err := e.db.LatestCheckpoint(ctx, store.CheckpointSampler, baseModel); err != nil || c.Path != wantPath || c.StepID != st.ID {
		t.Errorf("latest sampler checkpoint = %+v, %v", c, err)
	}

	secondStep(t, e, tr, wantPath)
}

// secondStep trains again with ppo: the extras now come from the checkpoint
// being served, and the clip thresholds reach the service.
func secondStep(t *testing.T, e *env, tr *trainer.Trainer, serving string) {
	cfg := e.cfg
	cfg.RL.LossFn, cfg.RL.PPOClipLow, cfg.RL.PPOClipHigh = tinker.LossPPO, 0.7, 1.3
	tr.SetConfig(cfg)
	e.judge.scores[3001] = 1
	e.fake.SetResponder(func(faketinker.SampleRequest) [][]int { return [][]int{{3001, eos}, {3002, eos}, {3003, eos}} })
	e.serve([]int{301, 302}, []int{3000, eos}, ptr(1))
	e.serve([]int{401, 402}, []int{4000, eos}, ptr(1))
	st, err := tr.TrainStep(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	recs := e.fake.Samples()
	if last := recs[len(recs)-1]; last.ModelPath != serving {
		t.Errorf("second batch's extras sampled from %q, want the served %q", last.ModelPath, serving)
	}
	run := runOf(t, e)
	ds := e.datumsOf(run.ModelID)
	last := ds[len(ds)-1]
	if want := map[string]float64{"clip_low_threshold": 0.7, "clip_high_threshold": 1.3}; last.LossFn != tinker.LossPPO || !cmp.Equal(last.LossFnConfig, want) {
		t.Errorf("second step's loss %s %v, want ppo %v", last.LossFn, last.LossFnConfig, want)
	}
	if st.Step != 2 || e.Published()[1] != st.SamplerPath {
		t.Errorf("second step %d published %v, want step 2 publishing %s", st.Step, e.Published(), st.SamplerPath)
	}
}

// runOf returns the only training run.
func runOf(t *testing.T, e *env) store.TrainingRun {
	t.Helper()
	runs, err := e.db.Runs(context.Background(), 10)
	if err != nil || len(runs) == 0 {
		t.Fatalf("runs = %v, %v", runs, err)
	}
	return runs[0]
}

func TestLossFn(t *testing.T) {
	t.Parallel()
	rl := config.Defaults().RL
	tests := []struct {
		lossFn  string
		want    string
		wantCfg map[string]float64
	}{
		{"importance_sampling", tinker.LossImportanceSampling, nil},
		{"ppo", tinker.LossPPO, map[string]float64{"clip_low_threshold": 0.8, "clip_high_threshold": 1.2}},
		{"cispo", tinker.LossCISPO, map[string]float64{"clip_low_threshold": 0, "clip_high_threshold": 4}},
	}
	for _, tt := range tests {
		rl.LossFn = tt.lossFn
		got, cfg := trainer.LossFn(rl)
		if got != tt.want || !cmp.Equal(cfg, tt.wantCfg) {
			t.Errorf("LossFn(%s) = %s %v, want %s %v", tt.lossFn, got, cfg, tt.want, tt.wantCfg)
		}
	}
}
