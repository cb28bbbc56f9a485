package trainer

import (
	"context"
	"errors"
	"fmt"

	"github.com/metaclaw/metaclaw/app/learner/tinker"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// resumePoint is where a new training model starts from.
type resumePoint struct {
	path    string // state checkpoint to load; "" = a fresh adapter
	stepID  int64  // the step that checkpoint was saved after (0: unknown)
	step    int    // the lineage's optimizer steps at that checkpoint
	discard bool   // steps done after it were lost: train their samples again
}

// ensureModel makes sure a training model of cfg's base model and rank
// exists, creating (and resuming) one when there is none or the
// configuration changed. Called with stepMu held.
func (t *Trainer) ensureModel(ctx context.Context, cfg config.Config) error {
	if t.run != nil {
		if t.run.BaseModel == cfg.RL.Model && t.run.LoRARank == cfg.RL.LoRARank {
			return nil
		}
		t.log.Info("training model changed: closing the current run", "base_model", cfg.RL.Model, "lora_rank", cfg.RL.LoRARank)
		t.closeModel(ctx)
	}
	return t.startModel(ctx, cfg)
}

// startModel creates the training model, loads the resume point and
// records the run. Called with stepMu held and no model.
func (t *Trainer) startModel(ctx context.Context, cfg config.Config) error {
	if n, err := t.db.CloseInterrupted(ctx, "interrupted: MetaClaw stopped during the run"); err != nil {
		return err
	} else if n > 0 {
		t.log.Warn("closed training runs interrupted by a restart", "runs", n)
	}
	from, err := t.resumePoint(ctx, cfg)
	if err != nil {
		return err
	}
	m, err := t.client.CreateModel(ctx, cfg.RL.Model, tinker.LoRAConfig{Rank: cfg.RL.LoRARank})
	if err != nil {
		return fmt.Errorf("create training model of %s: %w", cfg.RL.Model, err)
	}
	run := &store.TrainingRun{ModelID: m.ID, BaseModel: cfg.RL.Model, LoRARank: cfg.RL.LoRARank, ResumedFrom: from.path}
	if err := t.db.InsertRun(ctx, run); err != nil {
		return err
	}
	if from.path != "" {
		if err := t.client.LoadWeights(ctx, m, from.path, true); err != nil {
			err = fmt.Errorf("resume training from %s: %w", from.path, err)
			t.endRun(run, store.RunFailed, err)
			return err
		}
	}
	if from.discard {
		n, err := t.db.DiscardStepsAfter(ctx, cfg.RL.Model, from.stepID)
		if err != nil {
			t.endRun(run, store.RunFailed, err)
			return err
		}
		if n > 0 {
			t.log.Warn("steps after the last state checkpoint were lost; their samples will be trained again", "samples", n)
		}
	}
	t.run, t.model, t.step, t.last, t.dirty = run, m, from.step, from.stepID, false
	t.log.Info("training model ready", "model_id", m.ID, "base_model", cfg.RL.Model, "resumed_from", from.path, "step", from.step)
	return nil
}

// resumePoint picks the state to start from: rl.resume_from_ckpt the first
// time a run uses it (so a restart does not throw away the training done
// since), else the latest state checkpoint of the base model, else none.
func (t *Trainer) resumePoint(ctx context.Context, cfg config.Config) (resumePoint, error) {
	if p := cfg.RL.ResumeFromCkpt; p != "" {
		used, err := t.db.ResumedBefore(ctx, p)
		if err != nil {
			return resumePoint{}, err
		}
		if !used {
			rp := resumePoint{path: p}
			if c, err := t.db.CheckpointByPath(ctx, p); err == nil {
				rp.stepID, rp.step = c.StepID, t.stepNumber(ctx, c.StepID)
			}
			return rp, nil
		}
	}
	c, err := t.db.LatestCheckpoint(ctx, store.CheckpointState, cfg.RL.Model)
	if errors.Is(err, store.ErrNotFound) {
		return resumePoint{discard: true}, nil
	}
	if err != nil {
		return resumePoint{}, err
	}
	return resumePoint{path: c.Path, stepID: c.StepID, step: t.stepNumber(ctx, c.StepID), discard: true}, nil
}

// stepNumber is the lineage step count of a recorded step (0: unknown).
func (t *Trainer) stepNumber(ctx context.Context, stepID int64) int {
	if stepID == 0 {
		return 0
	}
	st, err := t.db.StepByID(ctx, stepID)
	if err != nil {
		return 0
	}
	return st.Step
}

// saveState saves the full training state when steps were done since the
// last one, and records it. Called with stepMu held.
func (t *Trainer) saveState(ctx context.Context) error {
	if t.run == nil || !t.dirty {
		return nil
	}
	path, err := t.client.SaveWeights(ctx, t.model, fmt.Sprintf("step-%06d", t.step))
	if err != nil {
		return fmt.Errorf("save training state at step %d: %w", t.step, err)
	}
	c := &store.Checkpoint{Kind: store.CheckpointState, Path: path, StepID: t.last, BaseModel: t.run.BaseModel}
	if err := t.db.InsertCheckpoint(ctx, c); err != nil {
		return err
	}
	if t.last != 0 {
		if err := t.db.SetStepStatePath(ctx, t.last, path); err != nil {
			return err
		}
	}
	t.dirty = false
	t.log.Info("training state saved", "path", path, "step", t.step)
	return nil
}

// closeModel saves the state (best effort) and ends the run. Called with
// stepMu held.
func (t *Trainer) closeModel(ctx context.Context) {
	if t.run == nil {
		return
	}
	status, err := store.RunEnded, t.saveState(ctx)
	if err != nil {
		status = store.RunFailed
		t.log.Warn("could not save the training state; steps since the last state checkpoint will be trained again", "error", err)
	}
	t.endRun(t.run, status, err)
	t.dropModel()
}

// abandonModel ends the run as failed after an error that may have left
// the batch in the model's gradients or weights without the step being
// recorded: the next step starts from the last state checkpoint.
func (t *Trainer) abandonModel(cause error) {
	if t.run == nil {
		return
	}
	t.log.Warn("training model abandoned; the next step resumes from the last state checkpoint", "error", cause)
	t.endRun(t.run, store.RunFailed, cause)
	t.dropModel()
}

func (t *Trainer) dropModel() {
	t.run, t.model, t.step, t.last, t.dirty = nil, tinker.Model{}, 0, 0, false
}

// endRun records the end of a run, even when the caller's context ended.
func (t *Trainer) endRun(run *store.TrainingRun, status string, cause error) {
	ctx, cancel := detached()
	defer cancel()
	msg := ""
	if cause != nil {
		msg = cause.Error()
	}
	if err := t.db.EndRun(ctx, run.ID, status, msg); err != nil {
		t.log.Error("record the end of a training run", "run", run.ID, "error", err)
	}
}

// sampler returns a sampling session for the sampler checkpoint path
// ("" = the base model). Called with stepMu held.
func (t *Trainer) sampler(ctx context.Context, baseModel, path string) (tinker.SamplingSession, error) {
	key := baseModel + "|" + path
	if ss, ok := t.samp[key]; ok {
		return ss, nil
	}
	ss, err := t.client.CreateSamplingSession(ctx, baseModel, path)
	if err != nil {
		return ss, fmt.Errorf("open a sampler for %s: %w", orBase(path, baseModel), err)
	}
	t.samp[key] = ss
	return ss, nil
}

func orBase(path, baseModel string) string {
	if path == "" {
		return baseModel
	}
	return path
}
