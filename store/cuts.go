package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Cuts summarises the turns whose history the proxy cut to fit the
// model's context.
type Cuts struct {
	Turns    int       `json:"turns"`              // cut turns since the time asked
	Sessions int       `json:"sessions"`           // sessions they belong to
	LastAt   time.Time `json:"last_at,omitzero"`   // the latest one
	LastTurn int64     `json:"last_turn,omitzero"` // its id
	// LastMessages and LastTokens are the latest cut: messages and
	// estimated tokens before and after.
	LastMessages [2]int `json:"last_messages"`
	LastTokens   [2]int `json:"last_tokens"`
}

// CutsSince counts the turns cut at or after since.
func (db *DB) CutsSince(ctx context.Context, since time.Time) (Cuts, error) {
	var c Cuts
	err := db.sql.QueryRowContext(ctx, `SELECT count(*), count(DISTINCT session_id) FROM turns
		WHERE cut_messages_before > 0 AND created_at >= ?`, since.UnixMilli()).Scan(&c.Turns, &c.Sessions)
	if err != nil {
		return c, fmt.Errorf("count cut turns: %w", err)
	}
	var at int64
	err = db.sql.QueryRowContext(ctx, `SELECT id, created_at, cut_messages_before, cut_messages_after, cut_tokens_before, cut_tokens_after
		FROM turns WHERE cut_messages_before > 0 AND created_at >= ? ORDER BY id DESC LIMIT 1`, since.UnixMilli()).
		Scan(&c.LastTurn, &at, &c.LastMessages[0], &c.LastMessages[1], &c.LastTokens[0], &c.LastTokens[1])
	if errors.Is(err, sql.ErrNoRows) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("read the latest cut turn: %w", err)
	}
	c.LastAt = fromMillis(at)
	return c, nil
}
