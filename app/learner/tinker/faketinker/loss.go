package faketinker

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
)

// RecordedDatum is a datum forward_backward (or forward) received.
type RecordedDatum struct {
	ModelID      string
	SeqID        int
	Index        int    // position in its request
	Endpoint     string // "forward_backward" or "forward"
	LossFn       string
	LossFnConfig map[string]float64
	ModelInput   []int
	Inputs       map[string]Tensor
	Raw          json.RawMessage // the datum's JSON as received
}

func (s *Server) forwardBackward(_ context.Context, c *call) reply {
	var req wireFwdRequest
	if rep, good := decode(c, &req); !good {
		return rep
	}
	in := req.FwdBwdInput
	if c.endpoint == "forward" {
		in = req.ForwardInput
	}
	if in == nil {
		return fail(http.StatusBadRequest, "%s: missing %s_input", c.endpoint, c.endpoint)
	}
	seq, rep, good := seqOf(req.SeqID, c.endpoint)
	if !good {
		return rep
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.st.models[req.ModelID]
	if m == nil {
		return fail(http.StatusNotFound, "unknown model_id %q", req.ModelID)
	}
	return s.st.admit(m.seq, seq, c, func(j *job) { s.st.runForward(m, seq, c.endpoint, *in, j) })
}

// runForward computes the loss of a chunk; called in seq order.
func (st *state) runForward(m *model, seq int, endpoint string, in wireFwdInput, j *job) {
	outs := make([]map[string]Tensor, 0, len(in.Data))
	recs := make([]RecordedDatum, 0, len(in.Data))
	var lossSum, lpMeanSum, tokens float64
	lpMin, lpMax := math.Inf(1), math.Inf(-1)
	for i, raw := range in.Data {
		d, toks, err := parseDatum(raw, in.LossFn)
		if err != nil {
			j.fail("user", "%s: datum %d: %v", endpoint, i, err)
			return
		}
		lps := targetLogprobs(m.step, d.LossFnInputs["target_tokens"].Data)
		lossSum += datumLoss(in.LossFn, in.LossFnConfig, lps, d.LossFnInputs)
		mean := 0.0
		for _, lp := range lps {
			mean += lp / float64(len(lps))
			lpMin, lpMax = math.Min(lpMin, lp), math.Max(lpMax, lp)
		}
		lpMeanSum += mean
		tokens += float64(len(lps))
		outs = append(outs, map[string]Tensor{"logprobs": {Data: lps, DType: "float32", Shape: []int{len(lps)}}})
		recs = append(recs, RecordedDatum{ModelID: m.id, SeqID: seq, Index: i, Endpoint: endpoint, LossFn: in.LossFn,
			LossFnConfig: in.LossFnConfig, ModelInput: toks, Inputs: d.LossFnInputs, Raw: append(json.RawMessage(nil), raw...)})
	}
	st.datums = append(st.datums, recs...)
	if endpoint == "forward_backward" {
		m.grads++
	}
	n := float64(len(in.Data))
	j.complete(map[string]any{"loss_fn_output_type": "TensorData", "loss_fn_outputs": outs,
		"metrics": map[string]float64{"loss:sum": lossSum, "num_tokens:sum": tokens,
			"logprob:mean": lpMeanSum / n, "logprob:min": lpMin, "logprob:max": lpMax}})
}

// parseDatum decodes a datum strictly and checks its inputs for lossFn.
func parseDatum(raw json.RawMessage, lossFn string) (wireDatum, []int, error) {
	var d wireDatum
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return d, nil, fmt.Errorf("bad datum: %v", err)
	}
	toks, good := d.ModelInput.tokens()
	if !good || len(toks) == 0 {
		return d, nil, fmt.Errorf("model_input must be non-empty encoded_text")
	}
	need, err := lossInputs(lossFn)
	if err != nil {
		return d, nil, err
	}
	for name, dtype := range need {
		if err := checkTensor(d.LossFnInputs, name, dtype, len(toks), true); err != nil {
			return d, nil, err
		}
	}
	if err := checkTensor(d.LossFnInputs, "weights", "float32", len(toks), false); err != nil {
		return d, nil, err
	}
	return d, toks, nil
}

// lossInputs lists the inputs a loss function needs, with their dtypes.
func lossInputs(lossFn string) (map[string]string, error) {
	switch lossFn {
	case "cross_entropy":
		return map[string]string{"target_tokens": "int64"}, nil
	case "importance_sampling", "ppo", "cispo", "dro":
		return map[string]string{"target_tokens": "int64", "logprobs": "float32", "advantages": "float32"}, nil
	}
	return nil, fmt.Errorf("unknown loss_fn %q", lossFn)
}

func checkTensor(in map[string]Tensor, name, dtype string, n int, required bool) error {
	t, found := in[name]
	switch {
	case !found && required:
		return fmt.Errorf("missing loss_fn_inputs[%s]", name)
	case !found:
		return nil
	case t.DType != dtype:
		return fmt.Errorf("loss_fn_inputs[%s]: dtype %q, want %s", name, t.DType, dtype)
	case len(t.Data) != n:
		return fmt.Errorf("loss_fn_inputs[%s]: %d values for %d input tokens", name, len(t.Data), n)
	case len(t.Shape) > 0 && (len(t.Shape) != 1 || t.Shape[0] != n):
		return fmt.Errorf("loss_fn_inputs[%s]: shape %v, want [%d]", name, t.Shape, n)
	}
	return nil
}

// targetLogprobs is the fake policy: a deterministic logprob per target
// that moves with the optimizer step.
func targetLogprobs(step int, targets []float64) []float64 {
	out := make([]float64, len(targets))
	for i, t := range targets {
		out[i] = fakeLogprob(uint64(step)*0x9e3779b97f4a7c15, i, int(t))
	}
	return out
}

// datumLoss is the datum's loss under lossFn.
func datumLoss(lossFn string, cfg map[string]float64, lps []float64, in map[string]Tensor) float64 {
	loss := 0.0
	for i, lp := range lps {
		switch lossFn {
		case "cross_entropy":
			w := 1.0
			if t, found := in["weights"]; found {
				w = t.Data[i]
			}
			loss += -lp * w
		default:
			loss += rlTokenLoss(lossFn, cfg, lp, in["logprobs"].Data[i], in["advantages"].Data[i])
		}
	}
	return loss
}

func rlTokenLoss(lossFn string, cfg map[string]float64, lp, q, adv float64) float64 {
	r := math.Exp(lp - q)
	switch lossFn {
	case "ppo":
		lo, hi := cfgOr(cfg, "clip_low_threshold", 0.8), cfgOr(cfg, "clip_high_threshold", 1.2)
		return -math.Min(r*adv, clamp(r, lo, hi)*adv)
	case "cispo":
		lo, hi := cfgOr(cfg, "clip_low_threshold", 0), cfgOr(cfg, "clip_high_threshold", 4)
		return -clamp(r, lo, hi) * lp * adv
	}
	return -r * adv
}

func cfgOr(cfg map[string]float64, k string, def float64) float64 {
	if v, found := cfg[k]; found {
		return v
	}
	return def
}

func clamp(x, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, x)) }
