package tinker

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Model is a LoRA training model on the service. Copies share the model's
// sequence state: its requests get seq ids 1, 2, 3, … (create_model was 0).
type Model struct {
	ID        string
	BaseModel string
	LoRA      LoRAConfig
	seq       *sequence
}

// LastSeqID is the last seq id handed out for the model (0 right after
// CreateModel).
func (m Model) LastSeqID() int {
	if m.seq == nil {
		return -1
	}
	return m.seq.lastSeq()
}

type createModelRequest struct {
	Type       string     `json:"type"`
	SessionID  string     `json:"session_id"`
	ModelSeqID int        `json:"model_seq_id"`
	BaseModel  string     `json:"base_model"`
	LoRAConfig LoRAConfig `json:"lora_config"`
}

// CreateModel creates a LoRA model of baseModel with the session's next
// model_seq_id and waits until the service has it.
func (c *Client) CreateModel(ctx context.Context, baseModel string, lora LoRAConfig) (Model, error) {
	sess, err := c.session()
	if err != nil {
		return Model{}, err
	}
	if baseModel == "" {
		return Model{}, errors.New("tinker: create_model: no base model")
	}
	lora = lora.normalized()
	if lora.Rank < 1 {
		return Model{}, fmt.Errorf("tinker: create_model: lora rank %d", lora.Rank)
	}
	c.sessMu.Lock()
	req := createModelRequest{Type: "create_model", SessionID: sess, ModelSeqID: c.takeModelSeq(),
		BaseModel: baseModel, LoRAConfig: lora}
	s, ref, rtt, err := c.marshalAndSend(ctx, "create_model", "CreateModel", req)
	c.sessMu.Unlock()
	if err != nil {
		return Model{}, err
	}
	var resp struct {
		ModelID string `json:"model_id"`
	}
	if err := c.await(ctx, s, ref.RequestID, rtt, &resp); err != nil {
		return Model{}, err
	}
	id := cmpOr(resp.ModelID, ref.ModelID)
	if id == "" {
		return Model{}, errors.New("tinker: create_model: no model_id in the result")
	}
	return Model{ID: id, BaseModel: baseModel, LoRA: lora, seq: newSequence(1)}, nil
}

func (c *Client) takeModelSeq() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.modelSeq
	c.modelSeq++
	return n
}

// marshalAndSend encodes req and submits it, timing the round trip.
func (c *Client) marshalAndSend(ctx context.Context, endpoint, reqType string, req any) (submission, futureRef, time.Duration, error) {
	body, err := marshal(endpoint, req)
	if err != nil {
		return submission{}, futureRef{}, 0, err
	}
	s := submission{endpoint: endpoint, reqType: reqType, body: body}
	start := c.opts.Now()
	ref, err := c.send(ctx, s)
	return s, ref, c.opts.Now().Sub(start), err
}

// modelCall submits one request on m's sequence (build gets the seq id)
// and waits for its result.
func (c *Client) modelCall(ctx context.Context, m Model, endpoint, reqType string, build func(seq int) any, out any) error {
	var (
		s   submission
		ref futureRef
		rtt time.Duration
	)
	err := c.submitSeq(ctx, m.seq, 1, func(sctx context.Context, seq int) error {
		var err error
		s, ref, rtt, err = c.marshalAndSend(sctx, endpoint, reqType, build(seq))
		return err
	})
	if err != nil {
		return err
	}
	return c.await(ctx, s, ref.RequestID, rtt, out)
}

// OptimResult is optim_step's result.
type OptimResult struct {
	Metrics map[string]float64 `json:"metrics"`
}

// OptimStep applies the gradients accumulated by ForwardBackward with AdamW.
func (c *Client) OptimStep(ctx context.Context, m Model, p AdamParams) (OptimResult, error) {
	var res OptimResult
	err := c.modelCall(ctx, m, "optim_step", "OptimStep", func(seq int) any {
		return map[string]any{"type": "optim_step", "model_id": m.ID, "seq_id": seq, "adam_params": p}
	}, &res)
	return res, err
}

type pathResult struct {
	Path              string `json:"path"`
	SamplingSessionID string `json:"sampling_session_id"`
	ModelID           string `json:"model_id"`
}

// SaveWeights saves the full training state (weights and optimizer) under
// name and returns its path, tinker://<model_id>/weights/<name>. An
// existing name is not overwritten.
func (c *Client) SaveWeights(ctx context.Context, m Model, name string) (string, error) {
	return c.save(ctx, m, "save_weights", "SaveWeights", name)
}

// SaveWeightsForSampler saves sampler weights (persistent) under name and
// returns their path, tinker://<model_id>/sampler_weights/<name>, which
// CreateSamplingSession accepts.
func (c *Client) SaveWeightsForSampler(ctx context.Context, m Model, name string) (string, error) {
	return c.save(ctx, m, "save_weights_for_sampler", "SaveWeightsForSampler", name)
}

func (c *Client) save(ctx context.Context, m Model, endpoint, reqType, name string) (string, error) {
	if strings.TrimSpace(name) == "" {
		return "", fmt.Errorf("tinker: %s: empty name", endpoint)
	}
	var res pathResult
	err := c.modelCall(ctx, m, endpoint, reqType, func(seq int) any {
		req := map[string]any{"type": endpoint, "model_id": m.ID, "seq_id": seq, "path": name}
		if endpoint == "save_weights" {
			req["overwrite"] = false
		}
		return req
	}, &res)
	if err != nil {
		return "", err
	}
	if !strings.HasPrefix(res.Path, "tinker://") {
		return "", fmt.Errorf("tinker: %s: unexpected path %q in the result", endpoint, res.Path)
	}
	return res.Path, nil
}

// LoadWeights loads the training state saved at path
// (tinker://…/weights/<name>) into m; withOptimizer also restores the
// optimizer's moments.
func (c *Client) LoadWeights(ctx context.Context, m Model, path string, withOptimizer bool) error {
	if !strings.HasPrefix(path, "tinker://") {
		return fmt.Errorf("tinker: load_weights: path %q does not start with tinker://", path)
	}
	var res pathResult
	return c.modelCall(ctx, m, "load_weights", "LoadWeights", func(seq int) any {
		return map[string]any{"type": "load_weights", "model_id": m.ID, "seq_id": seq, "path": path, "optimizer": withOptimizer}
	}, &res)
}

// WeightsInfo describes a checkpoint.
type WeightsInfo struct {
	BaseModel    string `json:"base_model"`
	IsLoRA       bool   `json:"is_lora"`
	LoRARank     int    `json:"lora_rank"`
	TrainUnembed *bool  `json:"train_unembed"`
	TrainMLP     *bool  `json:"train_mlp"`
	TrainAttn    *bool  `json:"train_attn"`
}

// WeightsInfo asks the service what the checkpoint at path holds.
func (c *Client) WeightsInfo(ctx context.Context, path string) (WeightsInfo, error) {
	var res WeightsInfo
	body, err := marshal("weights_info", map[string]string{"tinker_path": path})
	if err != nil {
		return res, err
	}
	err = c.do(ctx, "weights_info", body, &res, callOpts{})
	return res, err
}
