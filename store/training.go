package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// Sample kinds.
const (
	SampleServed = "served" // a response the policy served to the agent
	SampleExtra  = "extra"  // a response the trainer drew for the same prompt, for group advantages
)

// Sample statuses.
const (
	SampleWaiting = "waiting" // not yet used by a training step
	SampleTrained = "trained" // used by the step in StepID
	SampleStale   = "stale"   // from an older skill generation: kept, shown, never trained
	SampleSkipped = "skipped" // cannot be trained; Reason says why
)

// Reward sources.
const (
	RewardFromTurn  = "turn"  // the judge's score of the sample's turn
	RewardFromGroup = "group" // judged with the rest of its group, on the response alone
)

// Sample is one sampled response of the policy: the exact prompt and
// sampled tokens, the sampler's log-probs of the sampled tokens, and where
// it came from. Served samples are recorded by the serving side (one per
// turn the policy answered); extra samples by the trainer.
type Sample struct {
	ID int64
	// TurnID is the turn the sample answered (0: none, as for extras, or
	// when the turn was deleted).
	TurnID    int64
	SessionID string
	// GroupID groups samples answering the same prompt. 0 on insert starts
	// a new group: the sample's own id.
	GroupID         int64
	Kind            string // SampleServed (default) or SampleExtra
	PromptTokens    []int
	SampledTokens   []int
	SampledLogprobs []float64 // one per sampled token
	// BaseModel is the base model of the policy that sampled it; samples
	// of another base model than the one being trained are skipped.
	BaseModel string
	// Checkpoint is the sampler path (tinker://…/sampler_weights/…) or
	// the base model name that produced the sample.
	Checkpoint      string
	SkillGeneration int
	// Trainable is false for turns served by the fallback upstream
	// instead of the policy: they are recorded, marked skipped, never
	// trained.
	Trainable    bool
	Reward       *float64 // nil until judged
	RewardSource string   // RewardFromTurn or RewardFromGroup
	Status       string   // SampleWaiting on insert (SampleSkipped when not trainable)
	Reason       string   // why stale or skipped
	StepID       int64    // the step that trained it, 0 before
	CreatedAt    time.Time
}

// EncodeTokens packs token ids as little-endian int32.
func EncodeTokens(toks []int) []byte {
	b := make([]byte, 4*len(toks))
	for i, t := range toks {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(int32(t)))
	}
	return b
}

// DecodeTokens unpacks little-endian int32 token ids.
func DecodeTokens(b []byte) ([]int, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("token blob of %d bytes is not a multiple of 4", len(b))
	}
	out := make([]int, len(b)/4)
	for i := range out {
		out[i] = int(int32(binary.LittleEndian.Uint32(b[4*i:])))
	}
	return out, nil
}

// EncodeLogprobs packs log-probs as little-endian float32.
func EncodeLogprobs(lps []float64) []byte {
	b := make([]byte, 4*len(lps))
	for i, f := range lps {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(f)))
	}
	return b
}

// DecodeLogprobs unpacks little-endian float32 log-probs.
func DecodeLogprobs(b []byte) ([]float64, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("logprob blob of %d bytes is not a multiple of 4", len(b))
	}
	out := make([]float64, len(b)/4)
	for i := range out {
		out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
	}
	return out, nil
}

func checkSample(s *Sample) error {
	switch {
	case s.Kind != SampleServed && s.Kind != SampleExtra:
		return fmt.Errorf("sample kind %q", s.Kind)
	case len(s.PromptTokens) == 0 || len(s.SampledTokens) == 0:
		return errors.New("sample without prompt or sampled tokens")
	case len(s.SampledLogprobs) != len(s.SampledTokens):
		return fmt.Errorf("%d sampled tokens but %d logprobs", len(s.SampledTokens), len(s.SampledLogprobs))
	}
	return nil
}

const sampleInsert = `INSERT INTO samples(turn_id, session_id, group_id, kind, prompt_tokens, sampled_tokens,
	sampled_logprobs, base_model, checkpoint, skill_generation, trainable, reward, reward_source, status, reason, created_at)
	VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`

// InsertSample records a sample and writes its ID, GroupID, Status and
// CreatedAt back, and rounds its SampledLogprobs to float32 as stored, so
// that the caller's copy is what a later read returns. Kind "" means
// SampleServed. A sample that is not
// trainable is stored as skipped ("served by the fallback upstream" unless
// Reason says otherwise).
func (db *DB) InsertSample(ctx context.Context, s *Sample) error {
	return db.InsertSamples(ctx, []*Sample{s})
}

// InsertSamples records samples in one transaction, as InsertSample does.
func (db *DB) InsertSamples(ctx context.Context, samples []*Sample) error {
	for _, s := range samples {
		if s.Kind == "" {
			s.Kind = SampleServed
		}
		if err := checkSample(s); err != nil {
			return fmt.Errorf("insert sample: %w", err)
		}
	}
	return db.inTx(ctx, func(tx *sql.Tx) error {
		for _, s := range samples {
			if err := insertSample(ctx, tx, s); err != nil {
				return err
			}
		}
		return nil
	})
}

func insertSample(ctx context.Context, tx *sql.Tx, s *Sample) error {
	s.Status, s.CreatedAt = SampleWaiting, time.UnixMilli(nowMillis())
	for i, lp := range s.SampledLogprobs {
		s.SampledLogprobs[i] = float64(float32(lp))
	}
	if !s.Trainable {
		s.Status = SampleSkipped
		if s.Reason == "" {
			s.Reason = "served by the fallback upstream"
		}
	}
	res, err := tx.ExecContext(ctx, sampleInsert, nullID(s.TurnID), s.SessionID, s.GroupID, s.Kind,
		EncodeTokens(s.PromptTokens), EncodeTokens(s.SampledTokens), EncodeLogprobs(s.SampledLogprobs),
		s.BaseModel, s.Checkpoint, s.SkillGeneration, s.Trainable, s.Reward, s.RewardSource, s.Status, s.Reason,
		s.CreatedAt.UnixMilli())
	if err != nil {
		return fmt.Errorf("insert sample: %w", err)
	}
	s.ID, _ = res.LastInsertId()
	if s.GroupID == 0 {
		s.GroupID = s.ID
		if _, err := tx.ExecContext(ctx, "UPDATE samples SET group_id = id WHERE id = ?", s.ID); err != nil {
			return fmt.Errorf("insert sample: group: %w", err)
		}
	}
	return nil
}

func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

const sampleCols = `id, coalesce(turn_id, 0), session_id, group_id, kind, prompt_tokens, sampled_tokens, sampled_logprobs,
	base_model, checkpoint, skill_generation, trainable, reward, reward_source, status, reason, coalesce(step_id, 0), created_at`

func scanSample(sc interface{ Scan(...any) error }) (Sample, error) {
	var s Sample
	var prompt, sampled, lps []byte
	var reward sql.NullFloat64
	var created int64
	err := sc.Scan(&s.ID, &s.TurnID, &s.SessionID, &s.GroupID, &s.Kind, &prompt, &sampled, &lps, &s.BaseModel,
		&s.Checkpoint, &s.SkillGeneration, &s.Trainable, &reward, &s.RewardSource, &s.Status, &s.Reason, &s.StepID, &created)
	if err != nil {
		return s, err
	}
	if reward.Valid {
		s.Reward = &reward.Float64
	}
	s.CreatedAt = fromMillis(created)
	if s.PromptTokens, err = DecodeTokens(prompt); err == nil {
		if s.SampledTokens, err = DecodeTokens(sampled); err == nil {
			s.SampledLogprobs, err = DecodeLogprobs(lps)
		}
	}
	if err != nil {
		return s, fmt.Errorf("sample %d: %w", s.ID, err)
	}
	return s, nil
}

func (db *DB) querySamples(ctx context.Context, what, where string, args ...any) ([]Sample, error) {
	rows, err := db.sql.QueryContext(ctx, "SELECT "+sampleCols+" FROM samples WHERE "+where, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	var out []Sample
	for rows.Next() {
		s, err := scanSample(rows)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

func (db *DB) oneSample(ctx context.Context, what, where string, args ...any) (Sample, error) {
	ss, err := db.querySamples(ctx, what, where+" LIMIT 1", args...)
	if err != nil {
		return Sample{}, err
	}
	if len(ss) == 0 {
		return Sample{}, fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	return ss[0], nil
}

// SampleByID returns one sample.
func (db *DB) SampleByID(ctx context.Context, id int64) (Sample, error) {
	return db.oneSample(ctx, fmt.Sprintf("sample %d", id), "id = ?", id)
}

// SampleForTurn returns the served sample of a turn (ErrNotFound when the
// turn was not served by the policy).
func (db *DB) SampleForTurn(ctx context.Context, turnID int64) (Sample, error) {
	return db.oneSample(ctx, fmt.Sprintf("sample of turn %d", turnID), "turn_id = ? AND kind = 'served' ORDER BY id", turnID)
}

// GroupSamples returns the samples of a group, the served one first.
func (db *DB) GroupSamples(ctx context.Context, groupID int64) ([]Sample, error) {
	return db.querySamples(ctx, fmt.Sprintf("samples of group %d", groupID),
		"group_id = ? ORDER BY kind = 'extra', id", groupID)
}

// RecentSamples returns the newest samples, newest first, for the web page.
func (db *DB) RecentSamples(ctx context.Context, limit int) ([]Sample, error) {
	return db.querySamples(ctx, "recent samples", "1 ORDER BY id DESC LIMIT ?", limit)
}

// WaitingSamples returns up to limit served samples that a training step
// may use, oldest first: trainable, waiting, rewarded, and from skill
// generation generation. Each one heads a group (see GroupSamples).
func (db *DB) WaitingSamples(ctx context.Context, generation, limit int) ([]Sample, error) {
	return db.querySamples(ctx, "waiting samples", `status = 'waiting' AND trainable = 1 AND kind = 'served'
		AND reward IS NOT NULL AND skill_generation = ? ORDER BY id LIMIT ?`, generation, limit)
}

// SetSampleReward records a sample's reward and where it came from
// (RewardFromTurn or RewardFromGroup).
func (db *DB) SetSampleReward(ctx context.Context, id int64, reward float64, source string) error {
	if math.IsNaN(reward) || math.IsInf(reward, 0) {
		return fmt.Errorf("set reward of sample %d: %v is not a number", id, reward)
	}
	res, err := db.sql.ExecContext(ctx, "UPDATE samples SET reward = ?, reward_source = ? WHERE id = ?", reward, source, id)
	return affected(res, err, fmt.Sprintf("set reward of sample %d", id))
}

// AdoptTurnScores copies the judge's score of each waiting served sample's
// turn into the sample's reward (source RewardFromTurn), for samples not
// rewarded yet. Turns without a score (the judge failed, is off, or has
// not run yet) leave their samples unrewarded: they wait and are never
// trained as zero. It returns how many samples got a reward.
func (db *DB) AdoptTurnScores(ctx context.Context) (int64, error) {
	res, err := db.sql.ExecContext(ctx, `UPDATE samples SET reward = (SELECT score FROM scores WHERE turn_id = samples.turn_id),
		reward_source = 'turn' WHERE reward IS NULL AND status = 'waiting' AND kind = 'served'
		AND turn_id IN (SELECT turn_id FROM scores)`)
	if err != nil {
		return 0, fmt.Errorf("adopt turn scores: %w", err)
	}
	return res.RowsAffected()
}

// MarkStaleBefore marks waiting samples of a skill generation older than
// generation as stale (support/query: they were answered with other
// skills and are not trained on). It returns how many it marked.
func (db *DB) MarkStaleBefore(ctx context.Context, generation int) (int64, error) {
	res, err := db.sql.ExecContext(ctx, `UPDATE samples SET status = 'stale', reason = ?
		WHERE status = 'waiting' AND skill_generation < ?`,
		fmt.Sprintf("skill generation moved on to %d", generation), generation)
	if err != nil {
		return 0, fmt.Errorf("mark stale samples: %w", err)
	}
	return res.RowsAffected()
}

// SkipOtherModels marks waiting samples sampled from another base model
// than baseModel as skipped: their tokens belong to another model.
func (db *DB) SkipOtherModels(ctx context.Context, baseModel string) (int64, error) {
	res, err := db.sql.ExecContext(ctx, `UPDATE samples SET status = 'skipped', reason = 'sampled from base model ' || base_model
		|| ', training ' || ? WHERE status = 'waiting' AND base_model != '' AND base_model != ?`, baseModel, baseModel)
	if err != nil {
		return 0, fmt.Errorf("skip samples of other models: %w", err)
	}
	return res.RowsAffected()
}

// SkipSamples marks waiting samples as skipped with a reason.
func (db *DB) SkipSamples(ctx context.Context, ids []int64, reason string) error {
	if len(ids) == 0 {
		return nil
	}
	in, args := idList(ids)
	_, err := db.sql.ExecContext(ctx, "UPDATE samples SET status = 'skipped', reason = ? WHERE status = 'waiting' AND id IN "+in,
		append([]any{reason}, args...)...)
	if err != nil {
		return fmt.Errorf("skip samples: %w", err)
	}
	return nil
}

// idList returns "(?,?,…)" and the ids as arguments.
func idList(ids []int64) (string, []any) {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return "(" + strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",") + ")", args
}

// SampleCounts counts samples by status, for status lines and the web page.
func (db *DB) SampleCounts(ctx context.Context) (map[string]int, error) {
	rows, err := db.sql.QueryContext(ctx, "SELECT status, count(*) FROM samples GROUP BY status")
	if err != nil {
		return nil, fmt.Errorf("count samples: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var st string
		var n int
		if err := rows.Scan(&st, &n); err != nil {
			return nil, fmt.Errorf("count samples: %w", err)
		}
		out[st] = n
	}
	return out, rows.Err()
}

// Meta key of the sampler checkpoint being served.
const metaServingCheckpoint = "serving_checkpoint"

// ServingCheckpoint returns the sampler checkpoint path the policy should
// be served from ("" = the base model). The trainer sets it after each
// step; a rollback sets it to an earlier checkpoint.
func (db *DB) ServingCheckpoint(ctx context.Context) (string, error) {
	return db.Meta(ctx, metaServingCheckpoint)
}

// SetServingCheckpoint sets the sampler checkpoint to serve ("" = the base
// model).
func (db *DB) SetServingCheckpoint(ctx context.Context, path string) error {
	return db.SetMeta(ctx, metaServingCheckpoint, path)
}
