package tinker

import (
	"errors"
	"fmt"
	"sort"
)

// Loss functions the service knows.
const (
	LossCrossEntropy       = "cross_entropy"
	LossImportanceSampling = "importance_sampling"
	LossPPO                = "ppo"
	LossCISPO              = "cispo"
	LossDRO                = "dro"
)

// RLDatum builds the datum of one trajectory for importance_sampling, ppo
// or cispo. The sequence is prompt followed by sampled; position i of the
// model input predicts token i+1, so model_input = seq[:-1] and
// target_tokens = seq[1:]. logprobs (the sampler's, one per sampled token)
// and advantages (one per sampled token) are aligned to the targets, with
// 0 where the target is a prompt token.
func RLDatum(prompt, sampled []int, samplerLogprobs, advantages []float64) (Datum, error) {
	switch {
	case len(prompt) == 0:
		return Datum{}, errors.New("tinker: rl datum: empty prompt")
	case len(sampled) == 0:
		return Datum{}, errors.New("tinker: rl datum: no sampled tokens")
	case len(samplerLogprobs) != len(sampled) || len(advantages) != len(sampled):
		return Datum{}, fmt.Errorf("tinker: rl datum: %d sampled tokens but %d logprobs and %d advantages",
			len(sampled), len(samplerLogprobs), len(advantages))
	}
	seq := append(append(make([]int, 0, len(prompt)+len(sampled)), prompt...), sampled...)
	n := len(seq) - 1
	lp, adv := make([]float64, n), make([]float64, n)
	for j := range sampled {
		i := len(prompt) - 1 + j // target i is seq[i+1] = sampled[j]
		lp[i], adv[i] = samplerLogprobs[j], advantages[j]
	}
	return Datum{
		ModelInput: TokensInput(seq[:n]),
		LossFnInputs: map[string]TensorData{
			"target_tokens": IntTensor(seq[1:]),
			"logprobs":      FloatTensor(lp),
			"advantages":    FloatTensor(adv),
		},
	}, nil
}

// SFTDatum builds a cross_entropy datum that trains on completion given
// prompt: weights are 1 on completion targets and 0 on prompt targets.
func SFTDatum(prompt, completion []int) (Datum, error) {
	if len(prompt) == 0 || len(completion) == 0 {
		return Datum{}, errors.New("tinker: sft datum: empty prompt or completion")
	}
	seq := append(append(make([]int, 0, len(prompt)+len(completion)), prompt...), completion...)
	n := len(seq) - 1
	w := make([]float64, n)
	for i := len(prompt) - 1; i < n; i++ {
		w[i] = 1
	}
	return Datum{
		ModelInput: TokensInput(seq[:n]),
		LossFnInputs: map[string]TensorData{
			"target_tokens": IntTensor(seq[1:]),
			"weights":       FloatTensor(w),
		},
	}, nil
}

// Validate checks what the service would reject, before a seq_id is spent:
// a non-empty input, known dtypes, shapes that match the data, and 1-D
// inputs as long as the model input.
func (d Datum) Validate() error {
	n := d.ModelInput.Len()
	if n == 0 {
		return errors.New("empty model_input")
	}
	for _, c := range d.ModelInput.Chunks {
		if c.Type != ChunkEncodedText {
			return fmt.Errorf("chunk type %q is not supported", c.Type)
		}
	}
	names := make([]string, 0, len(d.LossFnInputs))
	for k := range d.LossFnInputs {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if err := d.LossFnInputs[k].validate(n); err != nil {
			return fmt.Errorf("loss_fn_inputs[%s]: %w", k, err)
		}
	}
	return nil
}

func (t TensorData) validate(n int) error {
	if t.DType != DTypeInt64 && t.DType != DTypeFloat32 {
		return fmt.Errorf("dtype %q", t.DType)
	}
	sparse := t.SparseCrowIndices != nil || t.SparseColIndices != nil
	if sparse {
		if len(t.Shape) == 0 || len(t.SparseColIndices) != len(t.Data) {
			return errors.New("sparse tensor needs a shape and one column index per value")
		}
		return nil
	}
	size := 1
	for _, s := range t.Shape {
		size *= s
	}
	if len(t.Shape) > 0 && size != len(t.Data) {
		return fmt.Errorf("shape %v does not hold %d values", t.Shape, len(t.Data))
	}
	if len(t.Shape) <= 1 && len(t.Data) != n {
		return fmt.Errorf("%d values for %d input tokens", len(t.Data), n)
	}
	return nil
}
