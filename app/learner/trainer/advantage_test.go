package trainer_test

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/metaclaw/metaclaw/app/learner/trainer"
	"github.com/metaclaw/metaclaw/store"
)

var approx = cmpopts.EquateApprox(0, 1e-9)

func TestAdvantages(t *testing.T) {
	t.Parallel()
	// Rewards 1, 0, 0, -1: mean 0, population std sqrt(0.5).
	s := math.Sqrt(0.5)
	tests := []struct {
		name      string
		rewards   []float64
		normalize bool
		want      []float64
	}{
		{"centred", []float64{1, 0, 0, -1}, false, []float64{1, 0, 0, -1}},
		{"normalised", []float64{1, 0, 0, -1}, true, []float64{1 / s, 0, 0, -1 / s}},
		{"shifted mean", []float64{1, 1, 1, -1}, false, []float64{0.5, 0.5, 0.5, -1.5}},
		{"shifted mean, normalised", []float64{1, 1, 1, -1}, true, []float64{0.5 / math.Sqrt(0.75), 0.5 / math.Sqrt(0.75), 0.5 / math.Sqrt(0.75), -1.5 / math.Sqrt(0.75)}},
		{"all equal", []float64{1, 1, 1, 1}, true, []float64{0, 0, 0, 0}},
		{"all equal, not normalised", []float64{-1, -1}, false, []float64{0, 0}},
		{"nearly equal: no division by ~0", []float64{0.5, 0.5 + 1e-9}, true, []float64{0, 0}},
		{"one", []float64{1}, true, []float64{0}},
		{"none", nil, true, []float64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := trainer.Advantages(tt.rewards, tt.normalize)
			if diff := cmp.Diff(tt.want, got, approx, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Advantages(%v, %v) (-want +got):\n%s", tt.rewards, tt.normalize, diff)
			}
		})
	}
}

func member(id int64, reward float64, usable bool) trainer.Member {
	return trainer.Member{Sample: store.Sample{ID: id}, Reward: reward, Usable: usable}
}

// advOf maps sample id to advantage.
func advOf(ss []trainer.Scored) map[int64]float64 {
	out := map[int64]float64{}
	for _, s := range ss {
		out[s.Sample.ID] = s.Advantage
	}
	return out
}

func TestGroupAdvantages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		groups    [][]trainer.Member
		groupSize int
		normalize bool
		want      map[int64]float64
	}{
		{"group of 4", [][]trainer.Member{{member(1, 1, true), member(2, -1, true), member(3, 0, true), member(4, 0, true)}},
			4, false, map[int64]float64{1: 1, 2: -1, 3: 0, 4: 0}},
		{"group of 4, std", [][]trainer.Member{{member(1, 1, true), member(2, -1, true), member(3, 0, true), member(4, 0, true)}},
			4, true, map[int64]float64{1: math.Sqrt2, 2: -math.Sqrt2, 3: 0, 4: 0}},
		{"groups centred apart", [][]trainer.Member{
			{member(1, 1, true), member(2, 1, true), member(3, 1, true), member(4, -1, true)},
			{member(5, -1, true), member(6, -1, true), member(7, -1, true), member(8, -1, true)}},
			4, false, map[int64]float64{1: 0.5, 2: 0.5, 3: 0.5, 4: -1.5, 5: 0, 6: 0, 7: 0, 8: 0}},
		{"unscored excluded from the mean", [][]trainer.Member{{member(1, 1, true), member(2, 999, false), member(3, -1, true), member(4, 0, true)}},
			4, false, map[int64]float64{1: 1, 3: -1, 4: 0}},
		{"a lone scored member is left out", [][]trainer.Member{
			{member(1, 1, true), member(2, 0, false)},
			{member(3, 1, true), member(4, 0, true)}},
			4, false, map[int64]float64{3: 0.5, 4: -0.5}},
		{"group size 1: the batch together", [][]trainer.Member{{member(1, 1, true)}, {member(2, 1, true)}, {member(3, -1, true)}, {member(4, 1, true)}},
			1, false, map[int64]float64{1: 0.5, 2: 0.5, 3: -1.5, 4: 0.5}},
		{"group size 1, std", [][]trainer.Member{{member(1, 1, true)}, {member(2, -1, true)}},
			1, true, map[int64]float64{1: 1, 2: -1}},
		{"group size 1, unscored excluded", [][]trainer.Member{{member(1, 1, true)}, {member(2, 5, false)}, {member(3, 0, true)}},
			1, false, map[int64]float64{1: 0.5, 3: -0.5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := advOf(trainer.GroupAdvantages(tt.groups, tt.groupSize, tt.normalize))
			if diff := cmp.Diff(tt.want, got, approx); diff != "" {
				t.Errorf("advantages by sample (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDatumMasksThePrompt(t *testing.T) {
	t.Parallel()
	s := store.Sample{ID: 9, PromptTokens: []int{1, 2, 3}, SampledTokens: []int{7, 8}, SampledLogprobs: []float64{-0.5, -0.25}}
	d, err := trainer.Datum(s, trainer.TokenAdvantages(0.75, 2))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]float64{"model_input": toFloats(d.ModelInput.Tokens())}
	for k, v := range d.LossFnInputs {
		got[k] = v.Data
	}
	want := map[string][]float64{
		"model_input":   {1, 2, 3, 7},
		"target_tokens": {2, 3, 7, 8},
		"logprobs":      {0, 0, -0.5, -0.25},
		"advantages":    {0, 0, 0.75, 0.75},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("datum (-want +got):\n%s", diff)
	}
	if _, err := trainer.Datum(s, []float64{1}); err == nil {
		t.Error("advantages of the wrong length: no error")
	}
}

func toFloats(v []int) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}
