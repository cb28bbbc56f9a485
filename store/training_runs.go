package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"
)

// Training run statuses.
const (
	RunRunning = "running"
	RunEnded   = "ended"
	RunFailed  = "failed"
)

// Training step statuses.
const (
	StepRunning   = "running"
	StepDone      = "done"
	StepFailed    = "failed"
	StepDiscarded = "discarded" // done, but its weights were lost before a state checkpoint kept them
)

// Checkpoint kinds.
const (
	CheckpointSampler = "sampler" // weights a sampler can serve
	CheckpointState   = "state"   // full training state (weights and optimizer), to resume from
)

// TrainingRun is one training model's lifetime on the service, from
// create_model (and load_weights when resumed) to the end of the process or
// a failure.
type TrainingRun struct {
	ID          int64
	ModelID     string
	BaseModel   string
	LoRARank    int
	StartedAt   time.Time
	EndedAt     time.Time // zero while running
	ResumedFrom string    // state checkpoint loaded at the start; "" = fresh
	Status      string    // RunRunning, RunEnded or RunFailed
	Error       string
}

// TrainingStep is one optimizer step. Loss, RewardMean and RewardStd are
// NaN when unknown (stored as NULL).
type TrainingStep struct {
	ID          int64
	RunID       int64
	Step        int // the adapter's optimizer steps, this one included
	StartedAt   time.Time
	EndedAt     time.Time
	Status      string // StepRunning, StepDone, StepFailed or StepDiscarded
	Loss        float64
	Metrics     map[string]float64
	RewardMean  float64
	RewardStd   float64
	SamplesUsed int
	Datums      int
	Duration    time.Duration
	SamplerPath string
	StatePath   string
	Error       string
}

// Checkpoint is saved weights.
type Checkpoint struct {
	ID        int64
	Kind      string // CheckpointSampler or CheckpointState
	Path      string
	StepID    int64 // 0 when not tied to a step
	BaseModel string
	CreatedAt time.Time
}

// InsertRun records a run as running and writes its ID and StartedAt back.
func (db *DB) InsertRun(ctx context.Context, r *TrainingRun) error {
	r.Status, r.StartedAt = RunRunning, time.UnixMilli(nowMillis())
	res, err := db.sql.ExecContext(ctx, `INSERT INTO training_runs(model_id, base_model, lora_rank, started_at, resumed_from, status)
		VALUES(?,?,?,?,?,?)`, r.ModelID, r.BaseModel, r.LoRARank, r.StartedAt.UnixMilli(), r.ResumedFrom, r.Status)
	if err != nil {
		return fmt.Errorf("record training run: %w", err)
	}
	r.ID, _ = res.LastInsertId()
	return nil
}

// EndRun records the end of a run: RunEnded, or RunFailed with errText.
func (db *DB) EndRun(ctx context.Context, id int64, status, errText string) error {
	res, err := db.sql.ExecContext(ctx, `UPDATE training_runs SET status = ?, error = ?, ended_at = ? WHERE id = ?`,
		status, errText, nowMillis(), id)
	return affected(res, err, fmt.Sprintf("end training run %d", id))
}

// CloseInterrupted marks runs and steps still "running" (their process
// died) as failed with reason, and returns how many runs it closed.
func (db *DB) CloseInterrupted(ctx context.Context, reason string) (int64, error) {
	var n int64
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		now := nowMillis()
		if _, err := tx.ExecContext(ctx, `UPDATE training_steps SET status = 'failed', error = ?, ended_at = ?
			WHERE status = 'running'`, reason, now); err != nil {
			return fmt.Errorf("close interrupted steps: %w", err)
		}
		res, err := tx.ExecContext(ctx, `UPDATE training_runs SET status = 'failed', error = ?, ended_at = ?
			WHERE status = 'running'`, reason, now)
		if err != nil {
			return fmt.Errorf("close interrupted runs: %w", err)
		}
		n, _ = res.RowsAffected()
		return nil
	})
	return n, err
}

// ResumedBefore reports whether a run already started from the state
// checkpoint at path.
func (db *DB) ResumedBefore(ctx context.Context, path string) (bool, error) {
	var n int
	err := db.sql.QueryRowContext(ctx, "SELECT count(*) FROM training_runs WHERE resumed_from = ?", path).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("look up runs resumed from %s: %w", path, err)
	}
	return n > 0, nil
}

// Runs returns the newest runs, newest first.
func (db *DB) Runs(ctx context.Context, limit int) ([]TrainingRun, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT id, model_id, base_model, lora_rank, started_at, coalesce(ended_at, 0),
		resumed_from, status, error FROM training_runs ORDER BY id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("list training runs: %w", err)
	}
	defer rows.Close()
	var out []TrainingRun
	for rows.Next() {
		var r TrainingRun
		var started, ended int64
		if err := rows.Scan(&r.ID, &r.ModelID, &r.BaseModel, &r.LoRARank, &started, &ended, &r.ResumedFrom,
			&r.Status, &r.Error); err != nil {
			return nil, fmt.Errorf("list training runs: %w", err)
		}
		r.StartedAt, r.EndedAt = fromMillis(started), fromMillis(ended)
		out = append(out, r)
	}
	return out, rows.Err()
}

// BeginStep records a step as running and writes its ID, Status and
// StartedAt back. Its samples stay waiting until FinishStep.
func (db *DB) BeginStep(ctx context.Context, st *TrainingStep) error {
	st.Status, st.StartedAt = StepRunning, time.UnixMilli(nowMillis())
	res, err := db.sql.ExecContext(ctx, `INSERT INTO training_steps(run_id, step, started_at, status, samples_used, datums,
		reward_mean, reward_std) VALUES(?,?,?,?,?,?,?,?)`, st.RunID, st.Step, st.StartedAt.UnixMilli(), st.Status,
		st.SamplesUsed, st.Datums, nullFloat(st.RewardMean), nullFloat(st.RewardStd))
	if err != nil {
		return fmt.Errorf("record training step %d: %w", st.Step, err)
	}
	st.ID, _ = res.LastInsertId()
	return nil
}

func nullFloat(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return f
}

// ErrSamplesTaken is returned by FinishStep when a sample is no longer
// waiting (another step trained it, or it went stale): nothing is recorded.
var ErrSamplesTaken = errors.New("samples no longer waiting")

// FinishStep records st as done with its results and checkpoints, and
// marks sampleIDs trained by it, all in one transaction: either the step
// is done and every one of its samples is trained, or nothing changed and
// the samples still wait. A sample that is not waiting any more fails the
// whole transaction with ErrSamplesTaken, so no sample is trained twice.
func (db *DB) FinishStep(ctx context.Context, st *TrainingStep, sampleIDs []int64, ckpts ...*Checkpoint) error {
	st.Status, st.EndedAt = StepDone, time.UnixMilli(nowMillis())
	return db.inTx(ctx, func(tx *sql.Tx) error {
		if len(sampleIDs) > 0 {
			in, args := idList(sampleIDs)
			res, err := tx.ExecContext(ctx, "UPDATE samples SET status = 'trained', step_id = ?, reason = '' WHERE status = 'waiting' AND id IN "+in,
				append([]any{st.ID}, args...)...)
			if err != nil {
				return fmt.Errorf("mark samples trained: %w", err)
			}
			if n, _ := res.RowsAffected(); n != int64(len(sampleIDs)) {
				return fmt.Errorf("finish step %d: %d of %d samples: %w", st.Step, int64(len(sampleIDs))-n, len(sampleIDs), ErrSamplesTaken)
			}
		}
		if err := updateStep(ctx, tx, st); err != nil {
			return err
		}
		for _, c := range ckpts {
			c.StepID = st.ID
			if err := insertCheckpoint(ctx, tx, c); err != nil {
				return err
			}
		}
		return nil
	})
}

// FailStep records st as failed with errText; its samples still wait.
func (db *DB) FailStep(ctx context.Context, st *TrainingStep, errText string) error {
	st.Status, st.Error, st.EndedAt = StepFailed, errText, time.UnixMilli(nowMillis())
	return db.inTx(ctx, func(tx *sql.Tx) error { return updateStep(ctx, tx, st) })
}

func updateStep(ctx context.Context, tx *sql.Tx, st *TrainingStep) error {
	metrics, _ := json.Marshal(finiteMetrics(st.Metrics))
	res, err := tx.ExecContext(ctx, `UPDATE training_steps SET status = ?, ended_at = ?, loss = ?, metrics = ?, reward_mean = ?,
		reward_std = ?, samples_used = ?, datums = ?, duration_ms = ?, sampler_path = ?, state_path = ?, error = ? WHERE id = ?`,
		st.Status, st.EndedAt.UnixMilli(), nullFloat(st.Loss), string(metrics), nullFloat(st.RewardMean), nullFloat(st.RewardStd),
		st.SamplesUsed, st.Datums, st.Duration.Milliseconds(), st.SamplerPath, st.StatePath, st.Error, st.ID)
	return affected(res, err, fmt.Sprintf("update training step %d", st.Step))
}

// finiteMetrics drops values JSON cannot hold (NaN, ±Inf).
func finiteMetrics(m map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(m))
	for k, v := range m {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			out[k] = v
		}
	}
	return out
}

// SetStepStatePath records the state checkpoint saved after a done step
// (when the window closed or the trainer stopped).
func (db *DB) SetStepStatePath(ctx context.Context, stepID int64, path string) error {
	res, err := db.sql.ExecContext(ctx, "UPDATE training_steps SET state_path = ? WHERE id = ?", path, stepID)
	return affected(res, err, fmt.Sprintf("set state path of step %d", stepID))
}

// DiscardStepsAfter is for resuming after a crash: the done steps of base
// model baseModel recorded after step afterStepID (0: all of them) were
// never kept in a state checkpoint, so the weights they made are gone.
// They become discarded and their samples wait again, to be trained into
// the resumed weights. It returns how many samples wait again.
func (db *DB) DiscardStepsAfter(ctx context.Context, baseModel string, afterStepID int64) (int64, error) {
	var n int64
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		const lost = `SELECT s.id FROM training_steps s JOIN training_runs r ON r.id = s.run_id
			WHERE s.status = 'done' AND s.id > ? AND r.base_model = ?`
		res, err := tx.ExecContext(ctx, `UPDATE samples SET status = 'waiting', step_id = NULL,
			reason = 'its step was lost: trained again' WHERE status = 'trained' AND step_id IN (`+lost+`)`, afterStepID, baseModel)
		if err != nil {
			return fmt.Errorf("requeue samples of lost steps: %w", err)
		}
		n, _ = res.RowsAffected()
		_, err = tx.ExecContext(ctx, `UPDATE training_steps SET status = 'discarded',
			error = 'weights lost before a state checkpoint; samples trained again' WHERE id IN (`+lost+`)`, afterStepID, baseModel)
		if err != nil {
			return fmt.Errorf("discard lost steps: %w", err)
		}
		return nil
	})
	return n, err
}

const stepCols = `id, run_id, step, started_at, coalesce(ended_at, 0), status, loss, metrics, reward_mean, reward_std,
	samples_used, datums, duration_ms, sampler_path, state_path, error`

func scanStep(sc interface{ Scan(...any) error }) (TrainingStep, error) {
	var st TrainingStep
	var started, ended, dur int64
	var loss, mean, std sql.NullFloat64
	var metrics string
	err := sc.Scan(&st.ID, &st.RunID, &st.Step, &started, &ended, &st.Status, &loss, &metrics, &mean, &std,
		&st.SamplesUsed, &st.Datums, &dur, &st.SamplerPath, &st.StatePath, &st.Error)
	if err != nil {
		return st, err
	}
	st.StartedAt, st.EndedAt, st.Duration = fromMillis(started), fromMillis(ended), time.Duration(dur)*time.Millisecond
	st.Loss, st.RewardMean, st.RewardStd = orNaN(loss), orNaN(mean), orNaN(std)
	_ = json.Unmarshal([]byte(metrics), &st.Metrics)
	return st, nil
}

func orNaN(f sql.NullFloat64) float64 {
	if !f.Valid {
		return math.NaN()
	}
	return f.Float64
}

// Steps returns the newest steps of a run (runID 0: of every run), newest
// first.
func (db *DB) Steps(ctx context.Context, runID int64, limit int) ([]TrainingStep, error) {
	rows, err := db.sql.QueryContext(ctx, "SELECT "+stepCols+" FROM training_steps WHERE ? = 0 OR run_id = ? ORDER BY id DESC LIMIT ?",
		runID, runID, limit)
	if err != nil {
		return nil, fmt.Errorf("list training steps: %w", err)
	}
	defer rows.Close()
	var out []TrainingStep
	for rows.Next() {
		st, err := scanStep(rows)
		if err != nil {
			return nil, fmt.Errorf("list training steps: %w", err)
		}
		out = append(out, st)
	}
	return out, rows.Err()
}

// StepByID returns one step.
func (db *DB) StepByID(ctx context.Context, id int64) (TrainingStep, error) {
	st, err := scanStep(db.sql.QueryRowContext(ctx, "SELECT "+stepCols+" FROM training_steps WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return st, fmt.Errorf("training step %d: %w", id, ErrNotFound)
	}
	return st, err
}

// InsertCheckpoint records saved weights and writes ID and CreatedAt back.
// Saving the same path again is refused (paths are unique).
func (db *DB) InsertCheckpoint(ctx context.Context, c *Checkpoint) error {
	return db.inTx(ctx, func(tx *sql.Tx) error { return insertCheckpoint(ctx, tx, c) })
}

func insertCheckpoint(ctx context.Context, tx *sql.Tx, c *Checkpoint) error {
	if c.Kind != CheckpointSampler && c.Kind != CheckpointState {
		return fmt.Errorf("record checkpoint: kind %q", c.Kind)
	}
	c.CreatedAt = time.UnixMilli(nowMillis())
	res, err := tx.ExecContext(ctx, `INSERT INTO checkpoints(kind, path, step_id, base_model, created_at) VALUES(?,?,?,?,?)`,
		c.Kind, c.Path, nullID(c.StepID), c.BaseModel, c.CreatedAt.UnixMilli())
	if err != nil {
		return fmt.Errorf("record checkpoint %s: %w", c.Path, err)
	}
	c.ID, _ = res.LastInsertId()
	return nil
}

const ckptCols = "id, kind, path, coalesce(step_id, 0), base_model, created_at"

func scanCheckpoint(sc interface{ Scan(...any) error }) (Checkpoint, error) {
	var c Checkpoint
	var created int64
	err := sc.Scan(&c.ID, &c.Kind, &c.Path, &c.StepID, &c.BaseModel, &created)
	c.CreatedAt = fromMillis(created)
	return c, err
}

// LatestCheckpoint returns the newest checkpoint of kind for baseModel
// ("" = any base model), or ErrNotFound.
func (db *DB) LatestCheckpoint(ctx context.Context, kind, baseModel string) (Checkpoint, error) {
	c, err := scanCheckpoint(db.sql.QueryRowContext(ctx, "SELECT "+ckptCols+` FROM checkpoints
		WHERE kind = ? AND (? = '' OR base_model = ?) ORDER BY id DESC LIMIT 1`, kind, baseModel, baseModel))
	if errors.Is(err, sql.ErrNoRows) {
		return c, fmt.Errorf("latest %s checkpoint: %w", kind, ErrNotFound)
	}
	if err != nil {
		return c, fmt.Errorf("latest %s checkpoint: %w", kind, err)
	}
	return c, nil
}

// CheckpointByPath returns the checkpoint saved at path, or ErrNotFound.
func (db *DB) CheckpointByPath(ctx context.Context, path string) (Checkpoint, error) {
	c, err := scanCheckpoint(db.sql.QueryRowContext(ctx, "SELECT "+ckptCols+" FROM checkpoints WHERE path = ?", path))
	if errors.Is(err, sql.ErrNoRows) {
		return c, fmt.Errorf("checkpoint %s: %w", path, ErrNotFound)
	}
	return c, err
}

// Checkpoints returns the newest checkpoints of kind ("" = both), newest
// first, for the web page and rollback.
func (db *DB) Checkpoints(ctx context.Context, kind string, limit int) ([]Checkpoint, error) {
	rows, err := db.sql.QueryContext(ctx, "SELECT "+ckptCols+" FROM checkpoints WHERE ? = '' OR kind = ? ORDER BY id DESC LIMIT ?",
		kind, kind, limit)
	if err != nil {
		return nil, fmt.Errorf("list checkpoints: %w", err)
	}
	defer rows.Close()
	var out []Checkpoint
	for rows.Next() {
		c, err := scanCheckpoint(rows)
		if err != nil {
			return nil, fmt.Errorf("list checkpoints: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
