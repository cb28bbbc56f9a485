package store

import (
	"context"
	"database/sql"
	"fmt"
)

// SamplesToCheck returns the waiting served samples of a skill generation
// older than generation: an evolution happened since they were sampled,
// and whether it changed what their prompt would receive is not checked
// yet. Their tokens are not read.
func (db *DB) SamplesToCheck(ctx context.Context, generation, limit int) ([]Sample, error) {
	var out []Sample
	err := queryRows(ctx, db.sql, `SELECT id, coalesce(turn_id, 0), group_id, skill_generation FROM samples
		WHERE status = 'waiting' AND kind = 'served' AND skill_generation < ? ORDER BY id LIMIT ?`,
		[]any{generation, limit}, func(rows *sql.Rows) error {
			var s Sample
			err := rows.Scan(&s.ID, &s.TurnID, &s.GroupID, &s.SkillGeneration)
			out = append(out, s)
			return err
		})
	if err != nil {
		return nil, fmt.Errorf("samples to check: %w", err)
	}
	return out, nil
}

// MarkGroupStale marks the waiting samples of a group stale with a reason.
func (db *DB) MarkGroupStale(ctx context.Context, groupID int64, reason string) error {
	_, err := db.sql.ExecContext(ctx, `UPDATE samples SET status = 'stale', reason = ? WHERE group_id = ? AND status = 'waiting'`,
		reason, groupID)
	if err != nil {
		return fmt.Errorf("mark samples stale: %w", err)
	}
	return nil
}

// MoveGroupToGeneration records that a group's prompt receives the same
// skills in generation as when it was sampled: its samples count as of
// that generation and may be trained.
func (db *DB) MoveGroupToGeneration(ctx context.Context, groupID int64, generation int) error {
	_, err := db.sql.ExecContext(ctx, `UPDATE samples SET skill_generation = ? WHERE group_id = ? AND status = 'waiting'`,
		generation, groupID)
	if err != nil {
		return fmt.Errorf("move samples to generation %d: %w", generation, err)
	}
	return nil
}

// AddEvolutionStale adds n to the samples the applied evolution of
// generation made stale.
func (db *DB) AddEvolutionStale(ctx context.Context, generation, n int) error {
	_, err := db.sql.ExecContext(ctx, `UPDATE evolutions SET stale_samples = stale_samples + ?
		WHERE id = (SELECT max(id) FROM evolutions WHERE generation = ? AND status = 'applied')`, n, generation)
	if err != nil {
		return fmt.Errorf("count stale samples: %w", err)
	}
	return nil
}
