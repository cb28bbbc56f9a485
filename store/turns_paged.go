package store

import (
	"context"
	"fmt"
)

// TurnHead is a turn without its bodies: enough to count and order a
// session's turns without loading every request (a long session's requests
// add up to hundreds of megabytes).
type TurnHead struct {
	ID      int64
	TurnNum int
	Type    string
}

// SessionTurnHeads lists a session's turns in order, without bodies.
func (db *DB) SessionTurnHeads(ctx context.Context, sessionID string) ([]TurnHead, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT id, turn_num, turn_type FROM turns
		WHERE session_id = ? ORDER BY turn_num`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("list turn heads: %w", err)
	}
	defer rows.Close()
	var out []TurnHead
	for rows.Next() {
		var h TurnHead
		if err := rows.Scan(&h.ID, &h.TurnNum, &h.Type); err != nil {
			return nil, fmt.Errorf("list turn heads: %w", err)
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// RecentSessionTurns returns the last limit turns of a session of the given
// type ("" for any), with their bodies, oldest first.
func (db *DB) RecentSessionTurns(ctx context.Context, sessionID, turnType string, limit int) ([]Turn, error) {
	return db.queryTurns(ctx, "SELECT * FROM (SELECT "+turnCols+` FROM turns
		WHERE session_id = ? AND (? = '' OR turn_type = ?) ORDER BY turn_num DESC LIMIT ?) ORDER BY turn_num`,
		sessionID, turnType, turnType, limit)
}

// RecentSessionTurnsBrief is RecentSessionTurns without the requests
// (Request is nil), for readers that need them only for some turns
// (TurnsByID).
func (db *DB) RecentSessionTurnsBrief(ctx context.Context, sessionID, turnType string, limit int) ([]Turn, error) {
	return db.queryTurns(ctx, "SELECT * FROM (SELECT "+turnColsBrief+` FROM turns
		WHERE session_id = ? AND (? = '' OR turn_type = ?) ORDER BY turn_num DESC LIMIT ?) ORDER BY turn_num`,
		sessionID, turnType, turnType, limit)
}
