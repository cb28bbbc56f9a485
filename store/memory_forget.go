package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ForgetMemories deletes memories: each named memory, every earlier
// version it superseded, their search-index entries and the cached
// embeddings of their text, and returns the ids deleted. The delete runs
// with SQLite's secure_delete on (the freed cells are overwritten with
// zeros) and the index drops its entries at once (FTS5 secure-delete). Copies
// SQLite left earlier in the unused space of pages it reorganised survive
// that; Compact removes them, so call it after forgetting (at once, or
// after a burst of forgets). With a scope, a memory of another scope is not
// found (ErrNotFound) and nothing is deleted. Conversations recorded in
// turns are not touched.
func (db *DB) ForgetMemories(ctx context.Context, scope string, ids []int64, at time.Time) ([]int64, error) {
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("forget memories: %w", err)
	}
	defer conn.Close()
	var prev int
	if err := conn.QueryRowContext(ctx, "PRAGMA secure_delete").Scan(&prev); err != nil {
		return nil, fmt.Errorf("forget memories: %w", err)
	}
	if _, err := conn.ExecContext(ctx, "PRAGMA secure_delete = ON"); err != nil {
		return nil, fmt.Errorf("forget memories: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf("PRAGMA secure_delete = %d", prev))
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("forget memories: %w", err)
	}
	defer tx.Rollback()
	deleted, err := forgetTx(ctx, tx, scope, ids, at)
	if err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("forget memories: %w", err)
	}
	return deleted, nil
}

// Compact rebuilds the database file from its live content (VACUUM), then
// copies the WAL into it and truncates the WAL, so that nothing deleted
// survives in free pages, unused page space or the WAL. It takes time in
// proportion to the file's size (see the README's figures) and makes other
// writers wait meanwhile; readers go on. checkpointed is false when a
// reader kept the WAL from being emptied (the next checkpoint does it).
func (db *DB) Compact(ctx context.Context) (checkpointed bool, err error) {
	if db.path == ":memory:" {
		return true, nil
	}
	if _, err := db.sql.ExecContext(ctx, "VACUUM"); err != nil {
		return false, fmt.Errorf("compact database: %w", err)
	}
	return db.checkpointTruncate(ctx)
}

func forgetTx(ctx context.Context, tx *sql.Tx, scope string, ids []int64, at time.Time) ([]int64, error) {
	for _, id := range ids {
		var s string
		err := tx.QueryRowContext(ctx, "SELECT scope FROM memories WHERE id = ?", id).Scan(&s)
		if errors.Is(err, sql.ErrNoRows) || err == nil && scope != "" && s != scope {
			return nil, fmt.Errorf("memory %d: %w", id, ErrNotFound)
		}
		if err != nil {
			return nil, fmt.Errorf("forget memory %d: %w", id, err)
		}
	}
	victims, err := queryMemoriesOn(ctx, tx, `WITH RECURSIVE chain(id) AS (
			SELECT value FROM json_each(?)
			UNION SELECT m.id FROM memories m JOIN chain c ON m.superseded_by = c.id)
		SELECT `+memoryCols+` FROM memories WHERE id IN (SELECT id FROM chain) ORDER BY id`, idsJSON(ids))
	if err != nil {
		return nil, err
	}
	scopes := map[string]bool{}
	out := make([]int64, 0, len(victims))
	for _, m := range victims {
		if _, err := tx.ExecContext(ctx, "DELETE FROM embeddings WHERE hash = ?", TextHash(m.Content)); err != nil {
			return nil, fmt.Errorf("forget memory %d: %w", m.ID, err)
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM memories WHERE id = ?", m.ID); err != nil {
			return nil, fmt.Errorf("forget memory %d: %w", m.ID, err)
		}
		scopes[m.Scope] = true
		out = append(out, m.ID)
	}
	for s := range scopes {
		if _, err := bumpScope(ctx, tx, s, at); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func idsJSON(ids []int64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprint(id)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// checkpointTruncate copies the WAL into the database file and truncates
// it; it reports false when readers kept the checkpoint from finishing.
func (db *DB) checkpointTruncate(ctx context.Context) (bool, error) {
	var busy, logFrames, done int
	err := db.sql.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logFrames, &done)
	if err != nil {
		return false, fmt.Errorf("checkpoint: %w", err)
	}
	return busy == 0, nil
}
