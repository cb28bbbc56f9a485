package trainer

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/tinker"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// optimize runs forward_backward and optim_step on the datums, saves the
// sampler weights (and every rl.checkpoint_every steps the full state),
// records the step as done with its samples trained, and publishes the
// new sampler checkpoint. The step's duration counts from start (groups
// and judging included). Once forward_backward has been sent, a failure
// abandons the model (see abandonModel). Called with stepMu held.
func (t *Trainer) optimize(ctx context.Context, cfg config.Config, datums []tinker.Datum, ids []int64,
	st *store.TrainingStep, start time.Time) error {
	ckpts, err := t.runService(ctx, cfg, datums, st)
	if err == nil {
		st.Duration = t.now().Sub(start)
		err = t.db.FinishStep(ctx, st, ids, ckpts...)
	}
	if err != nil {
		t.abandonModel(err)
		return err
	}
	t.step, t.last, t.dirty = st.Step, st.ID, st.StatePath == ""
	t.publish(ctx, st.SamplerPath)
	t.log.Info("training step done", "step", st.Step, "samples", st.SamplesUsed, "loss", st.Loss,
		"reward_mean", st.RewardMean, "sampler", st.SamplerPath)
	return nil
}

// runService does the step's calls on the service and fills st's results.
func (t *Trainer) runService(ctx context.Context, cfg config.Config, datums []tinker.Datum, st *store.TrainingStep) ([]*store.Checkpoint, error) {
	lossFn, lossCfg := LossFn(cfg.RL)
	fb, err := t.client.ForwardBackward(ctx, t.model, datums, lossFn, lossCfg)
	if err != nil {
		return nil, fmt.Errorf("forward_backward: %w", err)
	}
	opt, err := t.client.OptimStep(ctx, t.model, AdamParams(cfg.RL))
	if err != nil {
		return nil, fmt.Errorf("optim_step: %w", err)
	}
	st.Metrics, st.Loss = stepMetrics(fb.Metrics, opt.Metrics)
	name := fmt.Sprintf("step-%06d", st.Step)
	if st.SamplerPath, err = t.client.SaveWeightsForSampler(ctx, t.model, name); err != nil {
		return nil, fmt.Errorf("save sampler weights: %w", err)
	}
	base := t.run.BaseModel
	ckpts := []*store.Checkpoint{{Kind: store.CheckpointSampler, Path: st.SamplerPath, BaseModel: base}}
	if every := max(cfg.RL.CheckpointEvery, 1); st.Step%every == 0 {
		if st.StatePath, err = t.client.SaveWeights(ctx, t.model, name); err != nil {
			return nil, fmt.Errorf("save training state: %w", err)
		}
		ckpts = append(ckpts, &store.Checkpoint{Kind: store.CheckpointState, Path: st.StatePath, BaseModel: base})
	}
	return ckpts, nil
}

// LossFn returns the service loss function of rl.loss_fn and its
// configuration: ppo and cispo take their clip thresholds.
func LossFn(rl config.RL) (string, map[string]float64) {
	switch rl.LossFn {
	case tinker.LossPPO:
		return tinker.LossPPO, map[string]float64{"clip_low_threshold": rl.PPOClipLow, "clip_high_threshold": rl.PPOClipHigh}
	case tinker.LossCISPO:
		return tinker.LossCISPO, map[string]float64{"clip_low_threshold": rl.CISPOClipLow, "clip_high_threshold": rl.CISPOClipHigh}
	}
	return tinker.LossImportanceSampling, nil
}

// AdamParams are optim_step's settings from rl.*.
func AdamParams(rl config.RL) tinker.AdamParams {
	return tinker.AdamParams{LearningRate: rl.LearningRate, Beta1: rl.AdamBeta1, Beta2: rl.AdamBeta2, Eps: rl.AdamEps,
		WeightDecay: rl.WeightDecay, GradClipNorm: rl.GradClipNorm}
}

// stepMetrics joins forward_backward's metrics with optim_step's (prefixed
// "optim/") and picks the loss: loss:sum, else loss:mean, else NaN.
func stepMetrics(fb, opt map[string]float64) (map[string]float64, float64) {
	out := make(map[string]float64, len(fb)+len(opt))
	for k, v := range fb {
		out[k] = v
	}
	for k, v := range opt {
		out["optim/"+k] = v
	}
	for _, k := range []string{"loss:sum", "loss:mean", "loss"} {
		if v, ok := fb[k]; ok {
			return out, v
		}
	}
	return out, math.NaN()
}

// publish makes path the serving checkpoint and tells serving at once.
func (t *Trainer) publish(ctx context.Context, path string) {
	if err := t.db.SetServingCheckpoint(ctx, path); err != nil {
		t.log.Error("record the serving checkpoint", "path", path, "error", err)
	}
	if t.opts.Publish != nil {
		t.opts.Publish(path)
	}
}
