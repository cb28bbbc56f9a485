package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Turn types.
const (
	TurnMain = "main"
	TurnSide = "side"
)

// Session groups the turns of one conversation of one client.
type Session struct {
	ID         string
	Client     string
	Scope      string
	StartedAt  time.Time
	LastTurnAt time.Time
	EndedAt    time.Time // zero while the session is open
	EndReason  string
	TurnCount  int
}

// Turn is one request/response exchange that went through the proxy.
type Turn struct {
	ID               int64
	SessionID        string
	TurnNum          int // assigned by RecordTurns when zero
	Type             string
	API              string // "openai" or "anthropic"
	Model            string
	Stream           bool
	Request          []byte // the request body as sent upstream
	ResponseText     string
	Reasoning        string
	ToolCalls        string // JSON array, empty when none
	FinishReason     string
	PromptTokens     int
	CompletionTokens int
	LatencyMS        float64
	TTFBMS           float64
	Status           int
	Error            string
	Injected         string // JSON: ids of injected skills and memories
	CreatedAt        time.Time
	// Client and Scope describe the session when the turn opens a new one.
	Client, Scope string
	// SampleID is the training sample the policy stored for this turn (0:
	// none); RecordTurns links it to the turn.
	SampleID int64
	// CutMessagesBefore and the fields after it say what the proxy cut
	// from the request to fit the model's context: messages and
	// estimated tokens before and after (all 0: nothing was cut).
	CutMessagesBefore, CutMessagesAfter int
	CutTokensBefore, CutTokensAfter     int

	requestForm int // how Request is stored (formRaw, formParts); formRaw once read
}

// ErrNotFound is returned when a requested row does not exist.
var ErrNotFound = errors.New("not found")

// RecordTurns stores turns in one transaction, creating or touching their
// sessions and numbering each turn within its session when TurnNum is 0.
// IDs and turn numbers are written back into the given turns.
func (db *DB) RecordTurns(ctx context.Context, turns []*Turn) error {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("record turns: %w", err)
	}
	defer tx.Rollback()
	// The statements are prepared once per connection, not per batch or
	// turn: parsing the SQL cost a third of the recorder's time.
	session, err := db.txStmt(ctx, tx, upsertSessionSQL)
	if err != nil {
		return fmt.Errorf("record turns: %w", err)
	}
	defer session.Close()
	insert, err := db.txStmt(ctx, tx, insertTurnSQL)
	if err != nil {
		return fmt.Errorf("record turns: %w", err)
	}
	defer insert.Close()
	part, err := db.txStmt(ctx, tx, insertPartSQL)
	if err != nil {
		return fmt.Errorf("record turns: %w", err)
	}
	defer part.Close()
	// One upsert per session in the batch, not per turn: under load a batch
	// holds many turns of few sessions, and the upsert was a quarter of the
	// recorder's time.
	// The turns are then inserted in the order given, so their ids keep
	// the order they arrived in.
	for _, group := range bySession(turns) {
		if err := upsertSession(ctx, session, group); err != nil {
			return err
		}
	}
	added := make(map[[sha256.Size]byte]struct{})
	for _, t := range turns {
		req, form, err := db.storedRequest(ctx, part, t.Request, added)
		if err != nil {
			return fmt.Errorf("record turn %s/%d: %w", t.SessionID, t.TurnNum, err)
		}
		if err := insertTurn(ctx, tx, insert, t, req, form); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("record turns: %w", err)
	}
	// Only now are these parts known to be stored.
	db.parts.add(added)
	return nil
}

// txStmt returns the cached statement for query bound to tx.
func (db *DB) txStmt(ctx context.Context, tx *sql.Tx, query string) (*sql.Stmt, error) {
	st, err := db.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return tx.StmtContext(ctx, st), nil
}

// upsertSessionSQL creates a turn's session or touches it. A turn begun
// after the session ended opens it again; one begun before (a turn of the
// session recorded after its closing turn, whose handler finished later)
// leaves it ended.
const upsertSessionSQL = `INSERT INTO sessions(id, client, scope, started_at, last_turn_at, turn_count)
	VALUES(?, ?, ?, ?, ?, ?)
	ON CONFLICT(id) DO UPDATE SET last_turn_at = max(last_turn_at, excluded.last_turn_at),
		turn_count = turn_count + excluded.turn_count,
		ended_at = CASE WHEN excluded.last_turn_at > ended_at THEN NULL ELSE ended_at END,
		end_reason = CASE WHEN excluded.last_turn_at > ended_at THEN '' ELSE end_reason END
	RETURNING turn_count`

const insertTurnSQL = `INSERT INTO turns(session_id, turn_num, turn_type, api, model, stream, request, request_form,
	response_text, reasoning, tool_calls, finish_reason, prompt_tokens, completion_tokens, latency_ms, ttfb_ms,
	status, error, injected, created_at, cut_messages_before, cut_messages_after, cut_tokens_before, cut_tokens_after)
	VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`

// bySession splits turns into groups of the same session, each in the
// order given, the groups in the order their sessions first appear.
func bySession(turns []*Turn) [][]*Turn {
	if len(turns) == 1 {
		return [][]*Turn{turns}
	}
	var groups [][]*Turn
	index := make(map[string]int)
	for _, t := range turns {
		g, ok := index[t.SessionID]
		if !ok {
			g = len(groups)
			index[t.SessionID] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], t)
	}
	return groups
}

// upsertSession creates or touches the session of turns (all of one
// session) once, counting all of them, and numbers those whose TurnNum is 0
// as if they had been recorded one by one.
func upsertSession(ctx context.Context, session *sql.Stmt, turns []*Turn) error {
	first := turns[0]
	last := int64(0)
	for _, t := range turns {
		if t.CreatedAt.IsZero() {
			t.CreatedAt = time.Now()
		}
		last = max(last, t.CreatedAt.UnixMilli())
	}
	scope := first.Scope
	if scope == "" {
		scope = "default"
	}
	var count int
	err := session.QueryRowContext(ctx, first.SessionID, first.Client, scope, first.CreatedAt.UnixMilli(), last, len(turns)).Scan(&count)
	if err != nil {
		return fmt.Errorf("record session %s: %w", first.SessionID, err)
	}
	for i, t := range turns {
		if t.TurnNum == 0 {
			t.TurnNum = count - len(turns) + 1 + i
		}
	}
	return nil
}

// insertTurn inserts one numbered turn and links its training sample.
func insertTurn(ctx context.Context, tx *sql.Tx, insert *sql.Stmt, t *Turn, req []byte, form int) error {
	if t.Type == "" {
		t.Type = TurnMain
	}
	res, err := insert.ExecContext(ctx, t.SessionID, t.TurnNum, t.Type, t.API, t.Model, t.Stream, req, form, t.ResponseText, t.Reasoning,
		t.ToolCalls, t.FinishReason, t.PromptTokens, t.CompletionTokens, t.LatencyMS, t.TTFBMS, t.Status,
		t.Error, t.Injected, t.CreatedAt.UnixMilli(), t.CutMessagesBefore, t.CutMessagesAfter, t.CutTokensBefore, t.CutTokensAfter)
	if err != nil {
		return fmt.Errorf("record turn %s/%d: %w", t.SessionID, t.TurnNum, err)
	}
	t.ID, _ = res.LastInsertId()
	if t.SampleID != 0 {
		if _, err := tx.ExecContext(ctx, `UPDATE samples SET turn_id = ? WHERE id = ?`, t.ID, t.SampleID); err != nil {
			return fmt.Errorf("link sample %d to turn %d: %w", t.SampleID, t.ID, err)
		}
	}
	return nil
}

// EndSession marks a session as ended; ending an ended or unknown session is
// not an error and changes nothing.
func (db *DB) EndSession(ctx context.Context, id, reason string, at time.Time) (bool, error) {
	res, err := db.sql.ExecContext(ctx, `UPDATE sessions SET ended_at = ?, end_reason = ?
		WHERE id = ? AND ended_at IS NULL`, at.UnixMilli(), reason, id)
	if err != nil {
		return false, fmt.Errorf("end session %s: %w", id, err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// IdleSessions returns the open sessions whose last turn is older than before.
func (db *DB) IdleSessions(ctx context.Context, before time.Time) ([]string, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT id FROM sessions
		WHERE ended_at IS NULL AND last_turn_at < ? ORDER BY last_turn_at`, before.UnixMilli())
	if err != nil {
		return nil, fmt.Errorf("idle sessions: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("idle sessions: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

const sessionCols = `id, client, scope, started_at, last_turn_at, coalesce(ended_at, 0), end_reason, turn_count`

func scanSession(sc interface{ Scan(...any) error }) (Session, error) {
	var s Session
	var started, last, ended int64
	err := sc.Scan(&s.ID, &s.Client, &s.Scope, &started, &last, &ended, &s.EndReason, &s.TurnCount)
	s.StartedAt, s.LastTurnAt, s.EndedAt = fromMillis(started), fromMillis(last), fromMillis(ended)
	return s, err
}

// Session returns one session by id.
func (db *DB) Session(ctx context.Context, id string) (Session, error) {
	s, err := scanSession(db.sql.QueryRowContext(ctx, "SELECT "+sessionCols+" FROM sessions WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return s, fmt.Errorf("session %s: %w", id, ErrNotFound)
	}
	return s, err
}

// RecentSessions returns up to limit sessions, most recently active first.
func (db *DB) RecentSessions(ctx context.Context, limit int) ([]Session, error) {
	rows, err := db.sql.QueryContext(ctx, "SELECT "+sessionCols+" FROM sessions ORDER BY last_turn_at DESC LIMIT ?", limit)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		s, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

const turnCols = `id, session_id, turn_num, turn_type, api, model, stream, request, request_form, response_text, reasoning,
	tool_calls, finish_reason, prompt_tokens, completion_tokens, latency_ms, ttfb_ms, status, error, injected, created_at,
	cut_messages_before, cut_messages_after, cut_tokens_before, cut_tokens_after`

// turnColsBrief is turnCols with no request (see SessionTurnsBrief).
var turnColsBrief = strings.Replace(turnCols, "request, request_form", "NULL, 0", 1)

func scanTurn(sc interface{ Scan(...any) error }) (Turn, error) {
	var t Turn
	var created int64
	err := sc.Scan(&t.ID, &t.SessionID, &t.TurnNum, &t.Type, &t.API, &t.Model, &t.Stream, &t.Request, &t.requestForm,
		&t.ResponseText, &t.Reasoning, &t.ToolCalls, &t.FinishReason, &t.PromptTokens, &t.CompletionTokens,
		&t.LatencyMS, &t.TTFBMS, &t.Status, &t.Error, &t.Injected, &created,
		&t.CutMessagesBefore, &t.CutMessagesAfter, &t.CutTokensBefore, &t.CutTokensAfter)
	t.CreatedAt = fromMillis(created)
	return t, err
}

// SessionTurns returns a session's turns in order.
func (db *DB) SessionTurns(ctx context.Context, sessionID string) ([]Turn, error) {
	return db.queryTurns(ctx, "SELECT "+turnCols+" FROM turns WHERE session_id = ? ORDER BY turn_num", sessionID)
}

// SessionTurnsBrief returns a session's turns in order without their
// requests (Request is nil), for lists that show only the other columns:
// rebuilding the requests of a long agent session reads megabytes.
func (db *DB) SessionTurnsBrief(ctx context.Context, sessionID string) ([]Turn, error) {
	return db.queryTurns(ctx, "SELECT "+turnColsBrief+" FROM turns WHERE session_id = ? ORDER BY turn_num", sessionID)
}

// TurnByID returns one turn.
func (db *DB) TurnByID(ctx context.Context, id int64) (Turn, error) {
	ts, err := db.queryTurns(ctx, "SELECT "+turnCols+" FROM turns WHERE id = ?", id)
	switch {
	case err != nil:
		return Turn{}, err
	case len(ts) == 0:
		return Turn{}, fmt.Errorf("turn %d: %w", id, ErrNotFound)
	}
	return ts[0], nil
}

// queryTurns runs a query of turnCols and returns its turns with their
// requests as recorded.
func (db *DB) queryTurns(ctx context.Context, q string, args ...any) ([]Turn, error) {
	var out []Turn
	err := queryRows(ctx, db.sql, q, args, func(rows *sql.Rows) error {
		t, err := scanTurn(rows)
		out = append(out, t)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list turns: %w", err)
	}
	if err := db.joinRequests(ctx, out); err != nil {
		return nil, fmt.Errorf("list turns: %w", err)
	}
	return out, nil
}

// queryRows runs a query, calls scan for each row, and closes the rows
// before it returns (an in-memory database has one connection, which the
// next query needs).
func queryRows(ctx context.Context, db *sql.DB, query string, args []any, scan func(*sql.Rows) error) error {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return rows.Close()
}

// Counts summarises the database for status displays.
type Counts struct {
	Sessions, OpenSessions, Turns, TurnsSince int
}

// CountTurns returns totals, with TurnsSince counting turns at or after since.
func (db *DB) CountTurns(ctx context.Context, since time.Time) (Counts, error) {
	var c Counts
	err := db.sql.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM sessions), (SELECT count(*) FROM sessions WHERE ended_at IS NULL),
		(SELECT count(*) FROM turns), (SELECT count(*) FROM turns WHERE created_at >= ?)`,
		since.UnixMilli()).Scan(&c.Sessions, &c.OpenSessions, &c.Turns, &c.TurnsSince)
	if err != nil {
		return c, fmt.Errorf("count turns: %w", err)
	}
	return c, nil
}
