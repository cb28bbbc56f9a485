package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"
)

// Memory types.
const (
	MemoryPreference   = "preference"
	MemoryFact         = "fact"
	MemoryProjectState = "project_state"
	MemoryEpisode      = "episode" // a summary of what happened in a session
	MemoryProcedure    = "procedure"
)

// MemoryTypes lists the memory types in the order they are shown.
var MemoryTypes = []string{MemoryPreference, MemoryFact, MemoryProjectState, MemoryProcedure, MemoryEpisode}

// Reasons a memory stopped being current (Memory.EndReason).
const (
	EndSuperseded = "superseded" // a newer memory contradicts it
	EndEdited     = "edited"     // a person replaced its text
	EndDecayed    = "decayed"    // an episode nobody used faded out
)

// DefaultScope is the scope of memories when none is named.
const DefaultScope = "default"

// Memory is one long-term memory: something the person said or that
// happened, with its provenance and validity interval.
type Memory struct {
	ID           int64
	Scope        string
	Type         string
	Topic        string // what it is about ("editor theme"); may be empty
	Content      string
	Importance   float64 // 0..1
	Confidence   float64 // 0..1
	Pinned       bool
	Source       string // model, rules, user, import, api
	SessionID    string
	TurnIDs      []int64
	Reinforced   int // times it was stated
	CreatedAt    time.Time
	UpdatedAt    time.Time
	ValidFrom    time.Time
	ValidTo      time.Time // zero while current
	EndReason    string
	SupersededBy int64
	LastUsedAt   time.Time // last injected; zero when never
	UseCount     int
}

// Current reports whether the memory is still valid (not superseded,
// edited away or decayed).
func (m Memory) Current() bool { return m.ValidTo.IsZero() }

// MemoryInput is the content and provenance of a new memory.
type MemoryInput struct {
	Scope, Type, Topic, Content string
	Importance, Confidence      float64
	Pinned                      bool
	Source, SessionID           string
	TurnIDs                     []int64
	At                          time.Time // when it was stated; zero = now
}

// ValidMemoryType reports whether t is one of MemoryTypes.
func ValidMemoryType(t string) bool {
	for _, v := range MemoryTypes {
		if v == t {
			return true
		}
	}
	return false
}

// check validates an input and fills its defaults.
func (in *MemoryInput) check() error {
	in.Content = strings.TrimSpace(in.Content)
	in.Topic = strings.TrimSpace(in.Topic)
	if in.Scope == "" {
		in.Scope = DefaultScope
	}
	if in.Content == "" {
		return errors.New("memory content is empty")
	}
	if !ValidMemoryType(in.Type) {
		return fmt.Errorf("memory type %q is not one of %s", in.Type, strings.Join(MemoryTypes, ", "))
	}
	in.Importance = clamp01(in.Importance, 0.5)
	in.Confidence = clamp01(in.Confidence, 0.7)
	if in.At.IsZero() {
		in.At = time.Now()
	}
	return nil
}

func clamp01(v, def float64) float64 {
	switch {
	case v != v || v == 0: // NaN or unset
		return def
	case v < 0:
		return 0
	case v > 1:
		return 1
	}
	return v
}

// NormalizeTopic reduces a topic to the key that decides whether two
// memories are about the same subject: lower-case words without stop words,
// crude singulars, sorted ("Editor themes" and "theme of the editor" both
// give "editor theme").
func NormalizeTopic(topic string) string {
	seen := map[string]bool{}
	var words []string
	for _, w := range strings.FieldsFunc(strings.ToLower(topic), notWordRune) {
		if stopWords[w] {
			continue
		}
		w = singular(w)
		if !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	sort.Strings(words)
	return strings.Join(words, " ")
}

func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

func singular(w string) string {
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us"):
		return w[:len(w)-1]
	}
	return w
}

// ContentKey is the duplicate key of a memory's text: a hash of its words,
// lower-cased, so that case, spacing and punctuation do not matter.
func ContentKey(content string) string {
	words := strings.FieldsFunc(strings.ToLower(content), notWordRune)
	sum := sha256.Sum256([]byte(strings.Join(words, " ")))
	return hex.EncodeToString(sum[:12])
}

const memoryCols = `id, scope, type, topic, content, importance, confidence, pinned, source, session_id, turn_ids,
	reinforced, created_at, updated_at, valid_from, coalesce(valid_to, 0), end_reason, coalesce(superseded_by, 0),
	last_used_at, use_count`

func scanMemory(sc interface{ Scan(...any) error }) (Memory, error) {
	var m Memory
	var turns string
	var created, updated, from, to, used int64
	err := sc.Scan(&m.ID, &m.Scope, &m.Type, &m.Topic, &m.Content, &m.Importance, &m.Confidence, &m.Pinned,
		&m.Source, &m.SessionID, &turns, &m.Reinforced, &created, &updated, &from, &to, &m.EndReason,
		&m.SupersededBy, &used, &m.UseCount)
	if err != nil {
		return m, err
	}
	_ = json.Unmarshal([]byte(turns), &m.TurnIDs)
	m.CreatedAt, m.UpdatedAt, m.ValidFrom = fromMillis(created), fromMillis(updated), fromMillis(from)
	m.ValidTo, m.LastUsedAt = fromMillis(to), fromMillis(used)
	return m, nil
}

// Memory returns one memory by id, current or not.
func (db *DB) Memory(ctx context.Context, id int64) (Memory, error) {
	m, err := scanMemory(db.sql.QueryRowContext(ctx, "SELECT "+memoryCols+" FROM memories WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return m, fmt.Errorf("memory %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return m, fmt.Errorf("read memory %d: %w", id, err)
	}
	return m, nil
}

// MemoryFilter selects memories for Memories.
type MemoryFilter struct {
	Scope   string // "" = every scope
	Type    string // "" = every type
	History bool   // include memories that are no longer current
	Limit   int    // 0 = no limit
	Offset  int
}

// Memories lists memories, pinned first, then the most recently updated.
func (db *DB) Memories(ctx context.Context, f MemoryFilter) ([]Memory, error) {
	var where []string
	var args []any
	if f.Scope != "" {
		where, args = append(where, "scope = ?"), append(args, f.Scope)
	}
	if f.Type != "" {
		where, args = append(where, "type = ?"), append(args, f.Type)
	}
	if !f.History {
		where = append(where, "valid_to IS NULL")
	}
	q := "SELECT " + memoryCols + " FROM memories"
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY valid_to IS NOT NULL, pinned DESC, updated_at DESC, id DESC"
	if f.Limit > 0 {
		q += fmt.Sprintf(" LIMIT %d OFFSET %d", f.Limit, max(f.Offset, 0))
	}
	return db.queryMemories(ctx, q, args...)
}

func (db *DB) queryMemories(ctx context.Context, q string, args ...any) ([]Memory, error) {
	return queryMemoriesOn(ctx, db.sql, q, args...)
}

type querier interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

func queryMemoriesOn(ctx context.Context, q querier, query string, args ...any) ([]Memory, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("list memories: %w", err)
	}
	defer rows.Close()
	var out []Memory
	for rows.Next() {
		m, err := scanMemory(rows)
		if err != nil {
			return nil, fmt.Errorf("list memories: %w", err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// CurrentMemories returns every current memory of a scope together with the
// scope's revision, read in one snapshot: a reader that indexes them knows
// exactly which changes it has seen.
func (db *DB) CurrentMemories(ctx context.Context, scope string) ([]Memory, int64, error) {
	tx, err := db.sql.BeginTx(ctx, &sql.TxOptions{ReadOnly: true}) // a deferred read: no write lock
	if err != nil {
		return nil, 0, fmt.Errorf("read memories: %w", err)
	}
	defer tx.Rollback()
	rev, err := scopeRev(ctx, tx, scope)
	if err != nil {
		return nil, 0, err
	}
	ms, err := queryMemoriesOn(ctx, tx, "SELECT "+memoryCols+" FROM memories WHERE scope = ? AND valid_to IS NULL ORDER BY id", scope)
	return ms, rev, err
}

// MemoryHistory returns the versions of a memory: the memories it
// superseded (oldest first), itself, then those that superseded it.
func (db *DB) MemoryHistory(ctx context.Context, id int64) ([]Memory, error) {
	older, err := db.queryMemories(ctx, `WITH RECURSIVE chain(id) AS (
			SELECT id FROM memories WHERE superseded_by = ?
			UNION SELECT m.id FROM memories m JOIN chain c ON m.superseded_by = c.id)
		SELECT `+memoryCols+` FROM memories WHERE id IN (SELECT id FROM chain) ORDER BY valid_from, id`, id)
	if err != nil {
		return nil, err
	}
	m, err := db.Memory(ctx, id)
	if err != nil {
		return nil, err
	}
	out := append(older, m)
	for next := m.SupersededBy; next != 0 && len(out) < 1000; {
		n, err := db.Memory(ctx, next)
		if err != nil {
			break
		}
		out = append(out, n)
		next = n.SupersededBy
	}
	return out, nil
}

// MemoryScope is a scope and how many memories it holds.
type MemoryScope struct {
	Scope         string
	Current, All  int
	Rev           int64
	LastChangedAt time.Time
}

// MemoryScopes lists the scopes that have memories or had some.
func (db *DB) MemoryScopes(ctx context.Context) ([]MemoryScope, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT s.scope, s.rev, s.updated_at,
			(SELECT count(*) FROM memories m WHERE m.scope = s.scope AND m.valid_to IS NULL),
			(SELECT count(*) FROM memories m WHERE m.scope = s.scope)
		FROM memory_scopes s ORDER BY s.scope`)
	if err != nil {
		return nil, fmt.Errorf("list memory scopes: %w", err)
	}
	defer rows.Close()
	var out []MemoryScope
	for rows.Next() {
		var s MemoryScope
		var at int64
		if err := rows.Scan(&s.Scope, &s.Rev, &at, &s.Current, &s.All); err != nil {
			return nil, fmt.Errorf("list memory scopes: %w", err)
		}
		s.LastChangedAt = fromMillis(at)
		out = append(out, s)
	}
	return out, rows.Err()
}

// MemoryScopeRev returns a scope's revision: it grows with every change to
// the scope's memories (0 for a scope that never had any).
func (db *DB) MemoryScopeRev(ctx context.Context, scope string) (int64, error) {
	return scopeRev(ctx, db.sql, scope)
}

func scopeRev(ctx context.Context, q queryRower, scope string) (int64, error) {
	var rev int64
	err := q.QueryRowContext(ctx, "SELECT rev FROM memory_scopes WHERE scope = ?", scope).Scan(&rev)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read memory revision: %w", err)
	}
	return rev, nil
}

// bumpScope records a change in a scope and returns its new revision.
func bumpScope(ctx context.Context, tx *sql.Tx, scope string, at time.Time) (int64, error) {
	var rev int64
	err := tx.QueryRowContext(ctx, `INSERT INTO memory_scopes(scope, rev, updated_at) VALUES(?, 1, ?)
		ON CONFLICT(scope) DO UPDATE SET rev = rev + 1, updated_at = excluded.updated_at RETURNING rev`,
		scope, at.UnixMilli()).Scan(&rev)
	if err != nil {
		return 0, fmt.Errorf("bump memory revision: %w", err)
	}
	return rev, nil
}

// MemoriesOnTopic returns a scope's current memories whose topic
// normalises like topic (see NormalizeTopic); none for an empty topic.
func (db *DB) MemoriesOnTopic(ctx context.Context, scope, topic string) ([]Memory, error) {
	key := NormalizeTopic(topic)
	if key == "" {
		return nil, nil
	}
	return db.queryMemories(ctx, "SELECT "+memoryCols+` FROM memories WHERE scope = ? AND topic_key = ?
		AND valid_to IS NULL ORDER BY id`, scope, key)
}

// MemoriesByID returns the memories with the given ids, in the order of
// ids; missing ids are skipped.
func (db *DB) MemoriesByID(ctx context.Context, ids []int64) ([]Memory, error) {
	ms, err := db.queryMemories(ctx, "SELECT "+memoryCols+" FROM memories WHERE id IN (SELECT value FROM json_each(?))", idsJSON(ids))
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]Memory, len(ms))
	for _, m := range ms {
		byID[m.ID] = m
	}
	out := make([]Memory, 0, len(ms))
	for _, id := range ids {
		if m, ok := byID[id]; ok {
			out = append(out, m)
		}
	}
	return out, nil
}
