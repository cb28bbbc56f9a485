package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// Score is the judge's verdict on one turn.
type Score struct {
	TurnID     int64
	Score      int   // majority of the votes: -1, 0 or 1 (ties 0)
	Votes      []int // the votes that succeeded
	Failed     int   // votes that failed and were not counted
	JudgeModel string
	Evidence   string // next_turn or session_end
	Reasons    []string
	CreatedAt  time.Time
}

// PutScore stores (or replaces) a turn's score.
func (db *DB) PutScore(ctx context.Context, s Score) error {
	votes, _ := json.Marshal(nonNil(s.Votes))
	reasons, _ := json.Marshal(nonNil(s.Reasons))
	_, err := db.sql.ExecContext(ctx, `INSERT INTO scores(turn_id, score, votes, failed, judge_model, evidence, reasons, created_at)
		VALUES(?,?,?,?,?,?,?,?) ON CONFLICT(turn_id) DO UPDATE SET score = excluded.score, votes = excluded.votes,
		failed = excluded.failed, judge_model = excluded.judge_model, evidence = excluded.evidence,
		reasons = excluded.reasons, created_at = excluded.created_at`,
		s.TurnID, s.Score, string(votes), s.Failed, s.JudgeModel, s.Evidence, string(reasons), nowMillis())
	if err != nil {
		return fmt.Errorf("store score of turn %d: %w", s.TurnID, err)
	}
	return nil
}

// TurnScore returns a turn's score.
func (db *DB) TurnScore(ctx context.Context, turnID int64) (Score, error) {
	var s Score
	var votes, reasons string
	var created int64
	err := db.sql.QueryRowContext(ctx, `SELECT turn_id, score, votes, failed, judge_model, evidence, reasons, created_at
		FROM scores WHERE turn_id = ?`, turnID).Scan(&s.TurnID, &s.Score, &votes, &s.Failed, &s.JudgeModel, &s.Evidence, &reasons, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return s, fmt.Errorf("score of turn %d: %w", turnID, ErrNotFound)
	}
	_ = json.Unmarshal([]byte(votes), &s.Votes)
	_ = json.Unmarshal([]byte(reasons), &s.Reasons)
	s.CreatedAt = fromMillis(created)
	return s, err
}

// ScoredTurn is a turn's injected items and score, for efficacy.
type ScoredTurn struct {
	TurnID   int64
	Injected []string
	Score    int
	At       time.Time
}

// ScoredTurns returns every scored main turn, oldest first.
func (db *DB) ScoredTurns(ctx context.Context) ([]ScoredTurn, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT t.id, t.injected, s.score, t.created_at FROM turns t
		JOIN scores s ON s.turn_id = t.id WHERE t.turn_type = 'main' ORDER BY t.id`)
	if err != nil {
		return nil, fmt.Errorf("scored turns: %w", err)
	}
	defer rows.Close()
	var out []ScoredTurn
	for rows.Next() {
		var st ScoredTurn
		var inj string
		var at int64
		if err := rows.Scan(&st.TurnID, &inj, &st.Score, &at); err != nil {
			return nil, err
		}
		if inj != "" {
			_ = json.Unmarshal([]byte(inj), &st.Injected)
		}
		st.At = fromMillis(at)
		out = append(out, st)
	}
	return out, rows.Err()
}

// Efficacy is how a skill fared: turns it was injected in, and the mean
// judge score of scored turns with and without it.
type Efficacy struct {
	Injected      int     // main turns it was injected in
	ScoredWith    int     // of those, scored
	MeanWith      float64 // NaN when ScoredWith is 0
	ScoredWithout int
	MeanWithout   float64 // NaN when ScoredWithout is 0
}

// SkillEfficacy computes efficacy for every skill named in injected ids of
// the form "skill:<name>@<version>".
func (db *DB) SkillEfficacy(ctx context.Context) (map[string]Efficacy, error) {
	counts, err := db.injectionCounts(ctx)
	if err != nil {
		return nil, err
	}
	scored, err := db.ScoredTurns(ctx)
	if err != nil {
		return nil, err
	}
	total, sum := len(scored), 0
	withSum := map[string]int{}
	withN := map[string]int{}
	for _, st := range scored {
		sum += st.Score
		for name := range skillNames(st.Injected) {
			withSum[name] += st.Score
			withN[name]++
		}
	}
	out := make(map[string]Efficacy, len(counts))
	for name, n := range counts {
		e := Efficacy{Injected: n, ScoredWith: withN[name], ScoredWithout: total - withN[name]}
		e.MeanWith = mean(withSum[name], e.ScoredWith)
		e.MeanWithout = mean(sum-withSum[name], e.ScoredWithout)
		out[name] = e
	}
	return out, nil
}

func mean(sum, n int) float64 {
	if n == 0 {
		return math.NaN()
	}
	return float64(sum) / float64(n)
}

func (db *DB) injectionCounts(ctx context.Context) (map[string]int, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT j.value, count(*) FROM turns t, json_each(t.injected) j
		WHERE t.injected != '' AND t.turn_type = 'main' AND j.value LIKE 'skill:%' GROUP BY j.value`)
	if err != nil {
		return nil, fmt.Errorf("count injections: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, err
		}
		for name := range skillNames([]string{id}) {
			out[name] += n
		}
	}
	return out, rows.Err()
}

// skillNames extracts skill names from injected ids ("skill:name@3").
func skillNames(ids []string) map[string]bool {
	out := map[string]bool{}
	for _, id := range ids {
		rest, ok := strings.CutPrefix(id, "skill:")
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(rest, "@")
		out[name] = true
	}
	return out
}

// TextHash is the cache key of a text: hex sha256.
func TextHash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// CachedEmbedding returns the cached vector of text under model.
func (db *DB) CachedEmbedding(ctx context.Context, model, text string) ([]float32, bool, error) {
	var blob []byte
	err := db.sql.QueryRowContext(ctx, "SELECT vector FROM embeddings WHERE model = ? AND hash = ?", model, TextHash(text)).Scan(&blob)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read embedding: %w", err)
	}
	vec := make([]float32, len(blob)/4)
	for i := range vec {
		vec[i] = math.Float32frombits(binary.LittleEndian.Uint32(blob[i*4:]))
	}
	return vec, true, nil
}

// PutEmbedding caches the vector of text under model.
func (db *DB) PutEmbedding(ctx context.Context, model, text string, vec []float32) error {
	blob := make([]byte, 4*len(vec))
	for i, f := range vec {
		binary.LittleEndian.PutUint32(blob[i*4:], math.Float32bits(f))
	}
	_, err := db.sql.ExecContext(ctx, `INSERT INTO embeddings(model, hash, dim, vector, created_at) VALUES(?,?,?,?,?)
		ON CONFLICT(model, hash) DO UPDATE SET vector = excluded.vector, dim = excluded.dim`,
		model, TextHash(text), len(vec), blob, nowMillis())
	if err != nil {
		return fmt.Errorf("cache embedding: %w", err)
	}
	return nil
}
