package store

import (
	"context"
	"fmt"
)

// MemoryHit is a search result: a memory and its BM25 relevance (higher is
// better).
type MemoryHit struct {
	Memory
	Score float64
}

// MemorySearch is a full-text search of one scope's memories.
type MemorySearch struct {
	Scope   string
	Query   string // free text; see FTSQuery
	History bool   // include memories that are no longer current
	Limit   int    // 0 = 20
}

// SearchMemories ranks a scope's memories for a free-text query with BM25
// over their content and topic (topic weighted double), Porter-stemmed, any
// word matching. It is the search of record (CLI, duplicate checks); the
// per-turn retrieval of app/learner/memory keeps its own in-memory index,
// because FTS5 scores every matching row before it can sort.
func (db *DB) SearchMemories(ctx context.Context, q MemorySearch) ([]MemoryHit, error) {
	match := FTSQuery(q.Query)
	if match == "" {
		return nil, nil
	}
	if q.Scope == "" {
		q.Scope = DefaultScope
	}
	if q.Limit <= 0 {
		q.Limit = 20
	}
	current := " AND valid_to IS NULL"
	if q.History {
		current = ""
	}
	rows, err := db.sql.QueryContext(ctx, `SELECT `+memoryCols+`, f.score FROM memories JOIN (
			SELECT rowid AS fid, -bm25(memories_fts, 1.0, 2.0) AS score FROM memories_fts WHERE memories_fts MATCH ?) f
		ON f.fid = memories.id WHERE scope = ?`+current+` ORDER BY f.score DESC, id DESC LIMIT ?`,
		match, q.Scope, q.Limit)
	if err != nil {
		return nil, fmt.Errorf("search memories: %w", err)
	}
	defer rows.Close()
	var out []MemoryHit
	for rows.Next() {
		var h MemoryHit
		var score float64
		m, err := scanMemory(scanTail{rows, &score})
		if err != nil {
			return nil, fmt.Errorf("search memories: %w", err)
		}
		h.Memory, h.Score = m, score
		out = append(out, h)
	}
	return out, rows.Err()
}

// scanTail scans a row whose columns are a memory's followed by one more.
type scanTail struct {
	sc   interface{ Scan(...any) error }
	tail any
}

func (s scanTail) Scan(dest ...any) error { return s.sc.Scan(append(dest, s.tail)...) }
