package tinker

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// SamplingSession is a sampler on the service: a base model, or a base
// model with saved sampler weights (ModelPath). Copies share the session's
// sequence state. Samples on one session get seq ids 0, 1, 2, … in the order
// they are submitted.
type SamplingSession struct {
	ID        string
	BaseModel string
	ModelPath string
	seq       *sequence
}

// CreateSamplingSession opens a sampler for baseModel, or for the sampler
// weights at modelPath (tinker://…/sampler_weights/<name>) when set. It
// takes the session's next sampling_session_seq_id.
func (c *Client) CreateSamplingSession(ctx context.Context, baseModel, modelPath string) (SamplingSession, error) {
	sess, err := c.session()
	if err != nil {
		return SamplingSession{}, err
	}
	if modelPath != "" && !strings.HasPrefix(modelPath, "tinker://") {
		return SamplingSession{}, fmt.Errorf("tinker: create_sampling_session: model path %q does not start with tinker://", modelPath)
	}
	if baseModel == "" && modelPath == "" {
		return SamplingSession{}, errors.New("tinker: create_sampling_session: need a base model or a model path")
	}
	c.sessMu.Lock()
	defer c.sessMu.Unlock()
	req := map[string]any{"type": "create_sampling_session", "session_id": sess,
		"sampling_session_seq_id": c.takeSamplerSeq()}
	if baseModel != "" {
		req["base_model"] = baseModel
	}
	if modelPath != "" {
		req["model_path"] = modelPath
	}
	body, err := marshal("create_sampling_session", req)
	if err != nil {
		return SamplingSession{}, err
	}
	var resp struct {
		SamplingSessionID string `json:"sampling_session_id"`
	}
	if err := c.do(ctx, "create_sampling_session", body, &resp, callOpts{}); err != nil {
		return SamplingSession{}, err
	}
	if resp.SamplingSessionID == "" {
		return SamplingSession{}, errors.New("tinker: create_sampling_session: no sampling_session_id in the answer")
	}
	return SamplingSession{ID: resp.SamplingSessionID, BaseModel: baseModel, ModelPath: modelPath, seq: newSequence(0)}, nil
}

func (c *Client) takeSamplerSeq() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.samplerSeq
	c.samplerSeq++
	return n
}

type sampleRequest struct {
	Type               string             `json:"type"`
	SamplingSessionID  string             `json:"sampling_session_id"`
	SeqID              int                `json:"seq_id"`
	NumSamples         int                `json:"num_samples"`
	Prompt             ModelInput         `json:"prompt"`
	SamplingParams     wireSamplingParams `json:"sampling_params"`
	PromptLogprobs     bool               `json:"prompt_logprobs,omitempty"`
	TopKPromptLogprobs int                `json:"topk_prompt_logprobs"`
}

// Sample draws numSamples completions of prompt from ss. The request takes
// ss's next seq_id; retries and resubmissions (after a 429, a 410 or a
// server error) reuse it. A 429 pauses all sampling of this client for 1 s
// (5 s for prompts over 128 KiB). At most sample_max_concurrent_requests
// calls are in flight; the rest wait their turn.
func (c *Client) Sample(ctx context.Context, ss SamplingSession, prompt []int, params SamplingParams, numSamples int) (SampleResult, error) {
	if err := checkSample(prompt, params, numSamples); err != nil {
		return SampleResult{}, err
	}
	release, err := c.acquireSample(ctx)
	if err != nil {
		return SampleResult{}, err
	}
	defer release()
	var (
		s     submission
		ref   futureRef
		seqID int
		rtt   time.Duration
	)
	err = c.submitSeq(ctx, ss.seq, 1, func(sctx context.Context, seq int) error {
		seqID = seq
		req := sampleRequest{Type: "sample", SamplingSessionID: ss.ID, SeqID: seq, NumSamples: numSamples,
			Prompt: TokensInput(prompt), SamplingParams: params.wire(), PromptLogprobs: params.PromptLogprobs}
		body, err := marshal("asample", req)
		if err != nil {
			return err
		}
		s = submission{endpoint: "asample", reqType: "Sample", body: body, sample: true}
		start := c.opts.Now()
		ref, err = c.send(sctx, s)
		rtt = c.opts.Now().Sub(start)
		return err
	})
	if err != nil {
		return SampleResult{}, err
	}
	var w wireSampleResult
	if err := c.await(ctx, s, ref.RequestID, rtt, &w); err != nil {
		return SampleResult{}, err
	}
	return w.result(seqID), nil
}

func checkSample(prompt []int, p SamplingParams, n int) error {
	switch {
	case len(prompt) == 0:
		return errors.New("tinker: asample: empty prompt")
	case n < 1:
		return fmt.Errorf("tinker: asample: %d samples asked for", n)
	case len(p.StopTokens) > 0 && len(p.StopStrings) > 0:
		return errors.New("tinker: asample: stop tokens and stop strings both set")
	case p.MaxTokens < 0:
		return errors.New("tinker: asample: negative max_tokens")
	}
	return nil
}

// acquireSample takes a slot of the in-flight bound.
func (c *Client) acquireSample(ctx context.Context) (func(), error) {
	c.mu.Lock()
	sem := c.sampleSem
	c.mu.Unlock()
	if sem == nil {
		return nil, ErrNotStarted
	}
	select {
	case sem <- struct{}{}:
		return func() { <-sem }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("tinker: asample: waiting for a slot: %w", ctx.Err())
	}
}
