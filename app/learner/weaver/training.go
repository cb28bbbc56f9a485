package weaver

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/metaclaw/metaclaw/app/learner/tinker"
)

func modelPath(id, op string) string { return "/api/v1/models/" + url.PathEscape(id) + "/" + op }

// CreateModel creates a LoRA training model of baseModel with the
// session's next model_seq_id.
func (c *Client) CreateModel(ctx context.Context, baseModel string, lora tinker.LoRAConfig) (tinker.Model, error) {
	sess, err := c.session()
	if err != nil {
		return tinker.Model{}, err
	}
	if baseModel == "" {
		return tinker.Model{}, c.errorf("create_model", "no base model")
	}
	if lora.Rank == 0 {
		lora.Rank = 32
	}
	if !lora.TrainUnembed && !lora.TrainMLP && !lora.TrainAttn {
		lora.TrainUnembed, lora.TrainMLP, lora.TrainAttn = true, true, true
	}
	c.mu.Lock()
	c.modelSeq++
	seq := c.modelSeq
	c.mu.Unlock()
	body := map[string]any{"model_seq_id": seq, "base_model": baseModel, "lora_config": lora}
	var resp map[string]any
	if err := c.call(ctx, http.MethodPost, "/api/v1/sessions/"+url.PathEscape(sess)+"/models", body, &resp, retryTransient); err != nil {
		return tinker.Model{}, err
	}
	id := lookupString(resp, "id")
	if id == "" {
		return tinker.Model{}, c.errorf("create_model", "no model id in the answer")
	}
	if b := lookupString(resp, "base_model"); b != "" {
		baseModel = b
	}
	return tinker.Model{ID: id, BaseModel: baseModel, LoRA: lora}, nil
}

// ForwardBackward runs forward-backward-passes over data with lossFn
// (importance_sampling, ppo, cispo, ... as rl.loss_fn names them) and
// returns the per-datum outputs and the metrics.
func (c *Client) ForwardBackward(ctx context.Context, m tinker.Model, data []tinker.Datum, lossFn string, lossCfg map[string]float64) (tinker.FwdBwdResult, error) {
	for i, d := range data {
		if err := d.Validate(); err != nil {
			return tinker.FwdBwdResult{}, c.errorf("forward_backward", "datum %d: %v", i, err)
		}
	}
	seq := c.nextSeq(m.ID)
	in := map[string]any{"loss_fn": lossFn, "data": data}
	if len(lossCfg) > 0 {
		in["loss_fn_config"] = lossCfg
	}
	body := map[string]any{"payload": map[string]any{"model_id": m.ID, "seq_id": seq, "forward_backward_input": in}}
	resp, err := c.enqueue(ctx, modelPath(m.ID, "forward-backward-passes"), body, true)
	if err != nil {
		return tinker.FwdBwdResult{}, err
	}
	res := lookupMap(resp, "result")
	if res == nil {
		res = resp
	}
	out := tinker.FwdBwdResult{Metrics: numbers(lookupMap(res, "metrics")), SeqIDs: []int{seq},
		LossFnOutputType: lookupString(res, "loss_fn_output_type")}
	raw, _ := lookup(res, "loss_fn_outputs")
	list, _ := raw.([]any)
	for _, o := range list {
		om, _ := o.(map[string]any)
		out.Outputs = append(out.Outputs, tensors(om))
	}
	if len(out.Outputs) != len(data) {
		return out, c.errorf("forward_backward", "%d loss_fn_outputs for %d datums", len(out.Outputs), len(data))
	}
	return out, nil
}

// OptimStep applies the accumulated gradients with Adam.
func (c *Client) OptimStep(ctx context.Context, m tinker.Model, p tinker.AdamParams) (tinker.OptimResult, error) {
	adam := map[string]any{"learning_rate": p.LearningRate, "beta1": p.Beta1, "beta2": p.Beta2, "eps": p.Eps,
		"weight_decay": p.WeightDecay}
	if p.GradClipNorm > 0 {
		adam["grad_clip_norm"] = p.GradClipNorm
	}
	body := map[string]any{"payload": map[string]any{"model_id": m.ID, "seq_id": c.nextSeq(m.ID), "adam_params": adam}}
	resp, err := c.enqueue(ctx, modelPath(m.ID, "optimizer-steps"), body, true)
	if err != nil {
		return tinker.OptimResult{}, err
	}
	res := lookupMap(resp, "result")
	if res == nil {
		res = resp
	}
	return tinker.OptimResult{Metrics: numbers(lookupMap(res, "metrics"))}, nil
}

// SaveWeightsForSampler exports sampler weights under name and returns
// their path. No ttl_seconds is sent: the SDK's default expires them in an
// hour, and MetaClaw serves a checkpoint until the next one and keeps
// older ones for rollback.
func (c *Client) SaveWeightsForSampler(ctx context.Context, m tinker.Model, name string) (string, error) {
	if strings.TrimSpace(name) == "" {
		return "", c.errorf("export-sampler", "empty name")
	}
	body := map[string]any{"seq_id": c.nextSeq(m.ID), "path": name}
	resp, err := c.enqueue(ctx, modelPath(m.ID, "export-sampler"), body, true)
	if err != nil {
		return "", err
	}
	p := lookupString(resp, "model_path")
	if p == "" {
		p = lookupString(resp, "path")
	}
	if p == "" {
		return "", c.errorf("export-sampler", "no model path in the result")
	}
	return p, nil
}

// SaveWeights saves the weights and the optimizer state as a checkpoint
// named name and returns its path (weaver://<model>/checkpoints/<name>).
func (c *Client) SaveWeights(ctx context.Context, m tinker.Model, name string) (string, error) {
	if strings.TrimSpace(name) == "" {
		return "", c.errorf("checkpoints", "empty name")
	}
	body := map[string]any{"type": "weight_and_optimizer", "name": name}
	resp, err := c.enqueue(ctx, modelPath(m.ID, "checkpoints"), body, false)
	if err != nil {
		return "", err
	}
	p := lookupString(resp, "path")
	if p == "" {
		return "", c.errorf("checkpoints", "no path in the result")
	}
	return p, nil
}

// LoadWeights loads the checkpoint at path into m; withOptimizer also
// restores the optimizer state.
func (c *Client) LoadWeights(ctx context.Context, m tinker.Model, path string, withOptimizer bool) error {
	if !strings.HasPrefix(path, "weaver://") {
		return c.errorf("load", "path %q does not start with weaver://", path)
	}
	_, err := c.enqueue(ctx, modelPath(m.ID, "load"), map[string]any{"path": path, "include_optimizer": withOptimizer}, false)
	return err
}

// GetInfo describes a model (GET /api/v1/models/{id}).
func (c *Client) GetInfo(ctx context.Context, modelID string) (tinker.ModelInfo, error) {
	var resp map[string]any
	if err := c.call(ctx, http.MethodGet, "/api/v1/models/"+url.PathEscape(modelID), nil, &resp, retryTransient); err != nil {
		return tinker.ModelInfo{}, err
	}
	base := lookupString(resp, "base_model")
	tok := lookupString(resp, "tokenizer_path")
	if tok == "" || strings.HasPrefix(tok, "/") {
		tok = tinker.TokenizerIDFor(base) // a server-side directory is no Hub repo
	}
	return tinker.ModelInfo{ModelID: modelID, ModelName: base, TokenizerID: tok, IsLoRA: true}, nil
}

// numbers keeps the numeric members of a metrics object.
func numbers(m map[string]any) map[string]float64 {
	out := map[string]float64{}
	for k, v := range m {
		if f, ok := v.(float64); ok {
			out[k] = f
		}
	}
	return out
}

// tensors reads a loss_fn_outputs entry: each member a TensorData object
// or a plain list of numbers.
func tensors(m map[string]any) map[string]tinker.TensorData {
	out := map[string]tinker.TensorData{}
	for k, v := range m {
		raw, err := json.Marshal(v)
		if err != nil {
			continue
		}
		var td tinker.TensorData
		if json.Unmarshal(raw, &td) == nil && td.Data != nil {
			out[k] = td
			continue
		}
		var list []float64
		if json.Unmarshal(raw, &list) == nil {
			out[k] = tinker.FloatTensor(list)
		}
	}
	return out
}
