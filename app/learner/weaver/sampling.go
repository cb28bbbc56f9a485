package weaver

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"strings"

	"github.com/metaclaw/metaclaw/app/learner/tinker"
)

// CreateSamplingSession opens a sampler for baseModel, or for the sampler
// weights at modelPath (weaver://...) when set, waiting for the weights to
// load when the service says it is syncing them (202 with a
// sync_operation).
func (c *Client) CreateSamplingSession(ctx context.Context, baseModel, modelPath string) (tinker.SamplingSession, error) {
	sess, err := c.session()
	if err != nil {
		return tinker.SamplingSession{}, err
	}
	if modelPath != "" && !strings.HasPrefix(modelPath, "weaver://") {
		return tinker.SamplingSession{}, c.errorf("sampling-sessions", "model path %q does not start with weaver://", modelPath)
	}
	c.mu.Lock()
	c.samplerSeq++
	seq := c.samplerSeq
	c.mu.Unlock()
	body := map[string]any{"sampling_session_seq_id": seq, "base_model": baseModel, "model_path": nil}
	if modelPath != "" {
		body["model_path"] = modelPath
	}
	var resp map[string]any
	if err := c.call(ctx, http.MethodPost, "/api/v1/sessions/"+url.PathEscape(sess)+"/sampling-sessions", body, &resp, retryTransient); err != nil {
		return tinker.SamplingSession{}, err
	}
	session := resp
	if op := lookupMap(resp, "sync_operation"); op != nil {
		if _, err := c.waitOp(ctx, "sampling-sessions", op); err != nil {
			return tinker.SamplingSession{}, err
		}
		session = lookupMap(resp, "sampling_session")
	}
	id := lookupString(session, "id")
	if id == "" {
		return tinker.SamplingSession{}, c.errorf("sampling-sessions", "no sampling session id in the answer")
	}
	return tinker.SamplingSession{ID: id, BaseModel: baseModel, ModelPath: modelPath}, nil
}

// Sample draws numSamples completions of prompt.
func (c *Client) Sample(ctx context.Context, ss tinker.SamplingSession, prompt []int, p tinker.SamplingParams, numSamples int) (tinker.SampleResult, error) {
	if len(prompt) == 0 {
		return tinker.SampleResult{}, c.errorf("samples", "empty prompt")
	}
	body := map[string]any{"prompt": tinker.TokensInput(prompt), "sampling_params": samplingParams(p),
		"num_samples": max(numSamples, 1), "prompt_logprobs": p.PromptLogprobs, "topk_prompt_logprobs": 0}
	resp, err := c.enqueue(ctx, "/api/v1/sampling-sessions/"+url.PathEscape(ss.ID)+"/samples", body, false)
	if err != nil {
		return tinker.SampleResult{}, err
	}
	res := resp
	if _, ok := lookup(resp, "sequences"); !ok {
		if r := lookupMap(resp, "result"); r != nil {
			res = r
		}
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return tinker.SampleResult{}, c.errorf("samples", "%v", err)
	}
	var w struct {
		Sequences      []tinker.SampledSequence `json:"sequences"`
		PromptLogprobs []*float64               `json:"prompt_logprobs"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return tinker.SampleResult{}, c.errorf("samples", "decode result: %v", err)
	}
	if len(w.Sequences) == 0 {
		return tinker.SampleResult{}, c.errorf("samples", "no sequences in the result")
	}
	out := tinker.SampleResult{Sequences: w.Sequences}
	if w.PromptLogprobs != nil {
		out.PromptLogprobs = make([]float64, len(w.PromptLogprobs))
		for i, lp := range w.PromptLogprobs {
			out.PromptLogprobs[i] = math.NaN()
			if lp != nil {
				out.PromptLogprobs[i] = *lp
			}
		}
	}
	return out, nil
}

// samplingParams is the SDK's SamplingParams.to_payload: temperature,
// top_p and top_k always; max_tokens, stop (strings) and seed when set.
func samplingParams(p tinker.SamplingParams) map[string]any {
	topK, topP := p.TopK, p.TopP
	if topK == 0 {
		topK = -1
	}
	if topP == 0 {
		topP = 1
	}
	out := map[string]any{"temperature": p.Temperature, "top_p": topP, "top_k": topK}
	if p.MaxTokens > 0 {
		out["max_tokens"] = p.MaxTokens
	}
	if len(p.StopStrings) > 0 {
		out["stop"] = p.StopStrings
	}
	if p.Seed != nil {
		out["seed"] = *p.Seed
	}
	return out
}
