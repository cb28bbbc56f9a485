package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/web"
)

// Policy reports the trained policy's serving state to the web page; the
// zero PolicyStatus when the mode does not train.
func (w webControl) Policy() web.PolicyStatus {
	p := w.a.Policy()
	if p == nil {
		return web.PolicyStatus{}
	}
	st := p.Status()
	return web.PolicyStatus{Enabled: true, Ready: st.Ready, Reason: st.Reason, BaseModel: st.BaseModel,
		Serving: st.Serving, Wanted: st.Wanted, SwapError: st.SwapError}
}

// ServeCheckpoint is the training page's rollback (see App.ServeCheckpoint).
func (w webControl) ServeCheckpoint(ctx context.Context, path string) error {
	return w.a.ServeCheckpoint(ctx, path)
}

// ServeCheckpoint makes the sampler checkpoint at path ("" = the base
// model) the serving checkpoint and, when the policy runs, swaps to it at
// once (without the policy, serving picks it up when it starts). path must
// be a recorded sampler checkpoint of the base model in force. The trainer
// publishes its next step's checkpoint over this choice.
func (a *App) ServeCheckpoint(ctx context.Context, path string) error {
	if err := a.checkServable(ctx, path); err != nil {
		return err
	}
	if err := a.db.SetServingCheckpoint(ctx, path); err != nil {
		return fmt.Errorf("serve checkpoint: %w", err)
	}
	if p := a.Policy(); p != nil {
		p.UseCheckpoint(path)
	}
	shown := path
	if shown == "" {
		shown = "the base model"
	}
	a.log.Info("serving checkpoint chosen on the web page", "checkpoint", shown)
	return nil
}

// checkServable refuses a path that is not a recorded sampler checkpoint
// of the base model in force ("" is always servable: the base model).
func (a *App) checkServable(ctx context.Context, path string) error {
	if path == "" {
		return nil
	}
	c, err := a.db.CheckpointByPath(ctx, path)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("serve checkpoint %s: not a recorded checkpoint", path)
	}
	if err != nil {
		return fmt.Errorf("serve checkpoint %s: %w", path, err)
	}
	if c.Kind != store.CheckpointSampler {
		return fmt.Errorf("serve checkpoint %s: a %s checkpoint, not a sampler checkpoint", path, c.Kind)
	}
	if model := a.Config().RL.Model; c.BaseModel != "" && c.BaseModel != model {
		return fmt.Errorf("serve checkpoint %s: trained from base model %s, but rl.model is %s", path, c.BaseModel, model)
	}
	return nil
}
