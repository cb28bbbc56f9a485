package tinker_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/metaclaw/metaclaw/app/learner/tinker"
)

// TestRLDatumJSON checks the exact wire form of an RL datum.
func TestRLDatumJSON(t *testing.T) {
	t.Parallel()
	d, err := tinker.RLDatum([]int{1, 2, 3}, []int{4, 5}, []float64{-0.5, -0.25}, []float64{1.5, 1.5})
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model_input":{"chunks":[{"type":"encoded_text","tokens":[1,2,3,4]}]},"loss_fn_inputs":{` +
		`"advantages":{"data":[0,0,1.5,1.5],"dtype":"float32","shape":[4]},` +
		`"logprobs":{"data":[0,0,-0.5,-0.25],"dtype":"float32","shape":[4]},` +
		`"target_tokens":{"data":[2,3,4,5],"dtype":"int64","shape":[4]}}}`
	if string(got) != want {
		t.Errorf("json:\n got %s\nwant %s", got, want)
	}
	if err := d.Validate(); err != nil {
		t.Errorf("validate: %v", err)
	}
}

func TestRLDatumErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name            string
		prompt, sampled []int
		lps, adv        []float64
	}{
		{"empty prompt", nil, []int{1}, []float64{-1}, []float64{1}},
		{"nothing sampled", []int{1}, nil, nil, nil},
		{"logprobs short", []int{1}, []int{2, 3}, []float64{-1}, []float64{1, 1}},
		{"advantages short", []int{1}, []int{2, 3}, []float64{-1, -1}, []float64{1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, err := tinker.RLDatum(tc.prompt, tc.sampled, tc.lps, tc.adv); err == nil {
				t.Error("want an error")
			}
		})
	}
}

func TestSFTDatum(t *testing.T) {
	t.Parallel()
	d, err := tinker.SFTDatum([]int{1, 2}, []int{3, 4})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]float64{0, 1, 1}, d.LossFnInputs["weights"].Data); diff != "" {
		t.Errorf("weights (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{2, 3, 4}, d.LossFnInputs["target_tokens"].Ints()); diff != "" {
		t.Errorf("targets (-want +got):\n%s", diff)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	ok := func() tinker.Datum {
		d, _ := tinker.RLDatum([]int{1}, []int{2, 3}, []float64{-1, -1}, []float64{1, 1})
		return d
	}
	tests := []struct {
		name   string
		mutate func(d *tinker.Datum)
	}{
		{"empty input", func(d *tinker.Datum) { d.ModelInput = tinker.ModelInput{} }},
		{"bad dtype", func(d *tinker.Datum) {
			td := d.LossFnInputs["logprobs"]
			td.DType = "float64"
			d.LossFnInputs["logprobs"] = td
		}},
		{"wrong length", func(d *tinker.Datum) { d.LossFnInputs["advantages"] = tinker.FloatTensor([]float64{1}) }},
		{"shape mismatch", func(d *tinker.Datum) {
			td := d.LossFnInputs["logprobs"]
			td.Shape = []int{3}
			d.LossFnInputs["logprobs"] = td
		}},
		{"image chunk", func(d *tinker.Datum) { d.ModelInput.Chunks[0].Type = "image" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := ok()
			tc.mutate(&d)
			if err := d.Validate(); err == nil {
				t.Error("want an error")
			}
		})
	}
}

func TestMergeMetrics(t *testing.T) {
	t.Parallel()
	parts := []map[string]float64{
		{"loss:sum": 1, "lp:mean": -1, "lp:min": -3, "lp:max": -0.5, "acc": 1, "h:unique": 7},
		{"loss:sum": 2, "lp:mean": -2, "lp:min": -2, "lp:max": -0.1, "acc": 0, "h:unique": 8},
	}
	got := tinker.MergeMetrics(parts, []int{3, 1})
	want := map[string]float64{"loss:sum": 3, "lp:mean": -1.25, "lp:min": -3, "lp:max": -0.1, "acc": 0.75, "h:unique": 7}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("merged (-want +got):\n%s", diff)
	}
}

func TestSamplingParamsDefaults(t *testing.T) {
	t.Parallel()
	p := tinker.DefaultSamplingParams(100)
	if p.Temperature != 1 || p.TopK != -1 || p.TopP != 1 || p.MaxTokens != 100 {
		t.Errorf("defaults %+v", p)
	}
}

// FuzzRLDatum checks the alignment invariants for any split of a sequence.
func FuzzRLDatum(f *testing.F) {
	f.Add(3, 2, int64(1))
	f.Add(1, 1, int64(7))
	f.Fuzz(func(t *testing.T, np, ns int, seed int64) {
		if np < 1 || ns < 1 || np > 64 || ns > 64 {
			t.Skip()
		}
		prompt, sampled := make([]int, np), make([]int, ns)
		lps, adv := make([]float64, ns), make([]float64, ns)
		for i := range prompt {
			prompt[i] = int(seed) + i
		}
		for j := range sampled {
			sampled[j], lps[j], adv[j] = 1000+j, -float64(j+1), float64(seed%5)+1
		}
		d, err := tinker.RLDatum(prompt, sampled, lps, adv)
		if err != nil {
			t.Fatal(err)
		}
		in, tg := d.ModelInput.Tokens(), d.LossFnInputs["target_tokens"].Ints()
		l, a := d.LossFnInputs["logprobs"].Data, d.LossFnInputs["advantages"].Data
		for i := range tg {
			if i+1 < len(in) && in[i+1] != tg[i] {
				t.Fatalf("target %d = %d, input %d = %d: not shifted by one", i, tg[i], i+1, in[i+1])
			}
			if j := i + 1 - np; j >= 0 && (tg[i] != sampled[j] || l[i] != lps[j] || a[i] != adv[j]) {
				t.Fatalf("sampled position %d misaligned", i)
			} else if j < 0 && (l[i] != 0 || a[i] != 0) {
				t.Fatalf("prompt position %d has logprob %v advantage %v", i, l[i], a[i])
			}
		}
		if err := d.Validate(); err != nil {
			t.Fatal(err)
		}
	})
}
