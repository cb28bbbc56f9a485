package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// MemoryProgress returns the turn number up to which a session's main turns
// have been through memory extraction (0 when none).
func (db *DB) MemoryProgress(ctx context.Context, sessionID string) (int, error) {
	var n int
	err := db.sql.QueryRowContext(ctx, "SELECT through FROM memory_progress WHERE session_id = ?", sessionID).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read memory progress: %w", err)
	}
	return n, nil
}

// SetMemoryProgress records that a session's turns up to turn number
// through have been extracted; progress never moves back.
func (db *DB) SetMemoryProgress(ctx context.Context, sessionID string, through int, at time.Time) error {
	_, err := db.sql.ExecContext(ctx, `INSERT INTO memory_progress(session_id, through, updated_at) VALUES(?, ?, ?)
		ON CONFLICT(session_id) DO UPDATE SET through = max(through, excluded.through), updated_at = excluded.updated_at`,
		sessionID, through, at.UnixMilli())
	if err != nil {
		return fmt.Errorf("record memory progress: %w", err)
	}
	return nil
}

// MainTurnsAfter returns a session's main turns numbered above after, in
// order, at most limit of them (0 = all).
func (db *DB) MainTurnsAfter(ctx context.Context, sessionID string, after, limit int) ([]Turn, error) {
	return db.mainTurnsAfter(ctx, turnCols, sessionID, after, limit)
}

// MainTurnsAfterBrief is MainTurnsAfter without the requests (Request is
// nil), for readers that keep what they read of them (TurnsByID).
func (db *DB) MainTurnsAfterBrief(ctx context.Context, sessionID string, after, limit int) ([]Turn, error) {
	return db.mainTurnsAfter(ctx, turnColsBrief, sessionID, after, limit)
}

func (db *DB) mainTurnsAfter(ctx context.Context, cols, sessionID string, after, limit int) ([]Turn, error) {
	q := "SELECT " + cols + " FROM turns WHERE session_id = ? AND turn_type = 'main' AND turn_num > ? ORDER BY turn_num"
	if limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", limit)
	}
	return db.queryTurns(ctx, q, sessionID, after)
}

// MainTurnsThroughBrief returns a session's latest n main turns numbered
// up to through, in order, without their requests (Request is nil).
func (db *DB) MainTurnsThroughBrief(ctx context.Context, sessionID string, through, n int) ([]Turn, error) {
	return db.queryTurns(ctx, "SELECT * FROM (SELECT "+turnColsBrief+` FROM turns
		WHERE session_id = ? AND turn_type = 'main' AND turn_num <= ? ORDER BY turn_num DESC LIMIT ?) ORDER BY turn_num`,
		sessionID, through, n)
}

// CountMainTurnsAfter counts a session's main turns numbered above after.
func (db *DB) CountMainTurnsAfter(ctx context.Context, sessionID string, after int) (int, error) {
	var n int
	err := db.sql.QueryRowContext(ctx, `SELECT count(*) FROM turns WHERE session_id = ? AND turn_type = 'main'
		AND turn_num > ?`, sessionID, after).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count turns: %w", err)
	}
	return n, nil
}

// TurnsByID returns the turns with the given ids, in id order; missing ids
// are skipped.
func (db *DB) TurnsByID(ctx context.Context, ids []int64) ([]Turn, error) {
	return db.queryTurns(ctx, "SELECT "+turnCols+" FROM turns WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id", idsJSON(ids))
}

// SessionsToExtract returns sessions that ended at or after since and still
// have main turns that memory extraction has not seen, oldest first.
func (db *DB) SessionsToExtract(ctx context.Context, since time.Time, limit int) ([]string, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT s.id FROM sessions s LEFT JOIN memory_progress p ON p.session_id = s.id
		WHERE s.ended_at IS NOT NULL AND s.ended_at >= ? AND EXISTS (SELECT 1 FROM turns t
			WHERE t.session_id = s.id AND t.turn_type = 'main' AND t.turn_num > coalesce(p.through, 0))
		ORDER BY s.ended_at LIMIT ?`, since.UnixMilli(), limit)
	if err != nil {
		return nil, fmt.Errorf("sessions to extract: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("sessions to extract: %w", err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// PendingTurn is a turn waiting for a model pass of memory extraction.
type PendingTurn struct {
	TurnID    int64
	SessionID string
	Attempts  int
}

// QueueMemoryTurns queues turns for a later model pass (when the model was
// unreachable); a turn already queued keeps its place.
func (db *DB) QueueMemoryTurns(ctx context.Context, sessionID string, turnIDs []int64, next time.Time) error {
	return db.inTx(ctx, func(tx *sql.Tx) error {
		for _, id := range turnIDs {
			_, err := tx.ExecContext(ctx, `INSERT INTO memory_pending(turn_id, session_id, next_at, created_at)
				VALUES(?, ?, ?, ?) ON CONFLICT(turn_id) DO NOTHING`, id, sessionID, next.UnixMilli(), nowMillis())
			if err != nil {
				return fmt.Errorf("queue turn %d for memory: %w", id, err)
			}
		}
		return nil
	})
}

// DueMemoryTurns returns up to limit queued turns due at now, grouped by
// session (in session order, then turn order).
func (db *DB) DueMemoryTurns(ctx context.Context, now time.Time, limit int) ([]PendingTurn, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT turn_id, session_id, attempts FROM memory_pending
		WHERE next_at <= ? ORDER BY session_id, turn_id LIMIT ?`, now.UnixMilli(), limit)
	if err != nil {
		return nil, fmt.Errorf("queued memory turns: %w", err)
	}
	defer rows.Close()
	var out []PendingTurn
	for rows.Next() {
		var p PendingTurn
		if err := rows.Scan(&p.TurnID, &p.SessionID, &p.Attempts); err != nil {
			return nil, fmt.Errorf("queued memory turns: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// CountPendingMemoryTurns returns how many turns wait for a model pass.
func (db *DB) CountPendingMemoryTurns(ctx context.Context) (int, error) {
	var n int
	if err := db.sql.QueryRowContext(ctx, "SELECT count(*) FROM memory_pending").Scan(&n); err != nil {
		return 0, fmt.Errorf("count queued memory turns: %w", err)
	}
	return n, nil
}

// DequeueMemoryTurns removes turns from the queue (done, or given up).
func (db *DB) DequeueMemoryTurns(ctx context.Context, turnIDs []int64) error {
	_, err := db.sql.ExecContext(ctx, "DELETE FROM memory_pending WHERE turn_id IN (SELECT value FROM json_each(?))", idsJSON(turnIDs))
	if err != nil {
		return fmt.Errorf("dequeue memory turns: %w", err)
	}
	return nil
}

// RetryMemoryTurns counts a failed attempt and sets the next one.
func (db *DB) RetryMemoryTurns(ctx context.Context, turnIDs []int64, next time.Time) error {
	_, err := db.sql.ExecContext(ctx, `UPDATE memory_pending SET attempts = attempts + 1, next_at = ?
		WHERE turn_id IN (SELECT value FROM json_each(?))`, next.UnixMilli(), idsJSON(turnIDs))
	if err != nil {
		return fmt.Errorf("reschedule memory turns: %w", err)
	}
	return nil
}

// MemoriesFromTurns returns the current memories of a scope, from source,
// that came from any of the given turns.
func (db *DB) MemoriesFromTurns(ctx context.Context, scope, source string, turnIDs []int64) ([]Memory, error) {
	return db.queryMemories(ctx, "SELECT "+memoryCols+` FROM memories WHERE scope = ? AND source = ? AND valid_to IS NULL
		AND EXISTS (SELECT 1 FROM json_each(turn_ids) j WHERE j.value IN (SELECT value FROM json_each(?)))
		ORDER BY id`, scope, source, idsJSON(turnIDs))
}
