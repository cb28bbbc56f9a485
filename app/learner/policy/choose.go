package policy

import (
	"context"
	"errors"
	"fmt"

	"github.com/metaclaw/metaclaw/store"
)

// ServeCheckpoint makes the sampler checkpoint at path ("" = the base
// model) the serving checkpoint and, when srv runs (non-nil), swaps to it
// at once; a Server that starts later serves it from the database. path
// must be a recorded sampler checkpoint of model, the base model in force
// (rl.model). The trainer publishes its next step's checkpoint over this
// choice. The web page's training rollback calls it.
func ServeCheckpoint(ctx context.Context, db *store.DB, srv *Server, model, path string) error {
	if err := checkServable(ctx, db, model, path); err != nil {
		return err
	}
	if err := db.SetServingCheckpoint(ctx, path); err != nil {
		return fmt.Errorf("serve checkpoint: %w", err)
	}
	if srv != nil {
		srv.UseCheckpoint(path)
	}
	return nil
}

// checkServable refuses a path that is not a recorded sampler checkpoint
// of model ("" is always servable: the base model).
func checkServable(ctx context.Context, db *store.DB, model, path string) error {
	if path == "" {
		return nil
	}
	c, err := db.CheckpointByPath(ctx, path)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("serve checkpoint %s: not a recorded checkpoint", path)
	}
	if err != nil {
		return fmt.Errorf("serve checkpoint %s: %w", path, err)
	}
	if c.Kind != store.CheckpointSampler {
		return fmt.Errorf("serve checkpoint %s: a %s checkpoint, not a sampler checkpoint", path, c.Kind)
	}
	if c.BaseModel != "" && c.BaseModel != model {
		return fmt.Errorf("serve checkpoint %s: trained from base model %s, but rl.model is %s", path, c.BaseModel, model)
	}
	return nil
}
