package faketinker_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/metaclaw/metaclaw/app/learner/tinker/faketinker"
)

func sampleBody(ss string, seq int, prompt []int, params map[string]any) map[string]any {
	return map[string]any{"type": "sample", "sampling_session_id": ss, "seq_id": seq, "num_samples": 2,
		"prompt":          map[string]any{"chunks": []any{map[string]any{"type": "encoded_text", "tokens": prompt}}},
		"sampling_params": params, "topk_prompt_logprobs": 0}
}

func (r *raw) sampler(sess any, seq int, base, path string) string {
	r.t.Helper()
	body := map[string]any{"type": "create_sampling_session", "session_id": sess, "sampling_session_seq_id": seq}
	if base != "" {
		body["base_model"] = base
	}
	if path != "" {
		body["model_path"] = path
	}
	return r.must("create_sampling_session", "", body)["sampling_session_id"].(string)
}

// tokens extracts the sequences' tokens from a sample result.
func tokens(t *testing.T, res map[string]any) ([][]int, []string) {
	t.Helper()
	var toks [][]int
	var reasons []string
	for _, s := range res["sequences"].([]any) {
		seq := s.(map[string]any)
		var ts []int
		for i, x := range seq["tokens"].([]any) {
			ts = append(ts, int(x.(float64)))
			if lp := seq["logprobs"].([]any)[i].(float64); lp >= 0 {
				t.Errorf("logprob %v is not negative", lp)
			}
		}
		toks = append(toks, ts)
		reasons = append(reasons, seq["stop_reason"].(string))
	}
	return toks, reasons
}

func TestSamplingDeterministicAndOrdered(t *testing.T) {
	t.Parallel()
	r := newRaw(t, faketinker.Options{})
	sess := r.must("create_session", "", map[string]any{"type": "create_session"})["session_id"]
	ss := r.sampler(sess, 0, "Qwen/Qwen3-8B", "")
	params := map[string]any{"max_tokens": 64, "temperature": 1.0, "stop": []int{7}}
	later := r.must("asample", "", sampleBody(ss, 1, []int{1, 2, 3}, params))["request_id"].(string)
	if st, out := r.poll(later); st != http.StatusOK || out["type"] != "try_again" {
		t.Fatalf("seq 1 before seq 0: %d %v, want try_again", st, out)
	}
	first := r.must("asample", "", sampleBody(ss, 0, []int{1, 2, 3}, params))["request_id"].(string)
	a, reasons := tokens(t, r.result(first))
	b, _ := tokens(t, r.result(later))
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("same prompt, checkpoint and index gave different tokens (-first +later):\n%s", diff)
	}
	if cmp.Equal(a[0], a[1]) {
		t.Errorf("samples 0 and 1 are identical at temperature 1: %v", a)
	}
	for i, seq := range a {
		if reasons[i] != "stop" || seq[len(seq)-1] != 7 {
			t.Errorf("sample %d = %v (%s), want it to end with stop token 7", i, seq, reasons[i])
		}
	}
	recs := r.s.Samples()
	if len(recs) != 2 || recs[0].SeqID != 0 || recs[1].SeqID != 1 {
		t.Fatalf("execution order: %+v", recs)
	}
}

func TestSamplingMaxTokensResponderAndCheckpoints(t *testing.T) {
	t.Parallel()
	r := newRaw(t, faketinker.Options{MaxSampleLen: 40})
	sess := r.must("create_session", "", map[string]any{"type": "create_session"})["session_id"]
	base := r.sampler(sess, 0, "Qwen/Qwen3-8B", "")
	toks, reasons := tokens(t, r.result(r.must("asample", "", sampleBody(base, 0, []int{5}, map[string]any{"max_tokens": 1}))["request_id"].(string)))
	if len(toks[0]) != 1 || reasons[0] != "length" {
		t.Errorf("max_tokens 1: %v %v, want one token and length", toks, reasons)
	}
	r.s.SetResponder(func(req faketinker.SampleRequest) [][]int { return [][]int{{10, 11, 99, 12}, {10}} })
	toks, reasons = tokens(t, r.result(r.must("asample", "", sampleBody(base, 1, []int{5}, map[string]any{"stop": []int{99}}))["request_id"].(string)))
	if diff := cmp.Diff([][]int{{10, 11, 99}, {10}}, toks); diff != "" || reasons[0] != "stop" {
		t.Errorf("scripted tokens (-want +got):\n%s %v", diff, reasons)
	}
	if st, _ := r.post("create_sampling_session", "", map[string]any{"type": "create_sampling_session", "session_id": sess,
		"sampling_session_seq_id": 1, "model_path": "tinker://nope/sampler_weights/x"}); st != http.StatusNotFound {
		t.Errorf("unknown sampler path: status %d, want 404", st)
	}
	if got := r.s.Samples()[1].ModelPath; got != "" {
		t.Errorf("base sampler recorded checkpoint %q", got)
	}
}
