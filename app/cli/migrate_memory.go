package cli

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/memory"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// refMemoryTypes maps the reference's memory types (metaclaw/memory/models.py
// MemoryType) to ours.
var refMemoryTypes = map[string]string{
	"episodic": store.MemoryEpisode, "working_summary": store.MemoryEpisode,
	"semantic": store.MemoryFact, "preference": store.MemoryPreference,
	"project_state": store.MemoryProjectState, "procedural_observation": store.MemoryProcedure,
}

// memory imports the reference's memory store (memory.store_path, default
// <memory.dir>/memory.db): its active memories, with scope, type, first
// topic, importance, confidence and dates, through the same import as
// `metaclaw memory import` (a memory the scope already holds is skipped).
func (m *migration) memory(ctx context.Context) error {
	p := m.raw["memory.store_path"]
	if p == "" {
		p = filepath.Join(m.path("memory.dir", "memory"), "memory.db")
	}
	if _, err := os.Stat(p); err != nil {
		m.say("memory: no store at %s", p)
		return nil
	}
	file, history, err := readRefMemories(ctx, p, time.Now())
	if err != nil {
		m.failed = true
		m.say("memory (%s): not brought: %v", p, err)
		return nil
	}
	cfg, _, err := config.Load(ctx, m.db)
	if err != nil {
		return err
	}
	opts := memory.OptionsFrom(cfg)
	opts.DB = m.db
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(file); err != nil {
		return err
	}
	rep, err := memory.New(opts).Import(ctx, &buf, "")
	if err != nil {
		return fmt.Errorf("import memories: %w", err)
	}
	m.say("memory (%s): %d memories brought, %d already known word for word; %d of those brought sit beside a memory on the same topic",
		p, rep.Added, rep.Duplicates, rep.SameTopic)
	if history > 0 {
		m.say("  not brought: %d superseded, archived, expired or unknown-type memories", history)
	}
	return nil
}

// readRefMemories reads the reference's memories table, read-only.
func readRefMemories(ctx context.Context, path string, now time.Time) (memory.ExportFile, int, error) {
	f := memory.ExportFile{Version: memory.ExportVersion, Exported: now}
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro")
	if err != nil {
		return f, 0, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT memory_id, scope_id, memory_type, content, topics_json, importance,
		confidence, status, source_session_id, created_at, updated_at, coalesce(expires_at, '') FROM memories ORDER BY created_at`)
	if err != nil {
		return f, 0, fmt.Errorf("read the memories table: %w", err)
	}
	defer rows.Close()
	history := 0
	for rows.Next() {
		var id, scope, typ, content, topics, status, session, created, updated, expires string
		var imp, conf float64
		if err := rows.Scan(&id, &scope, &typ, &content, &topics, &imp, &conf, &status, &session, &created, &updated, &expires); err != nil {
			return f, 0, fmt.Errorf("read the memories table: %w", err)
		}
		exp, _ := time.Parse(time.RFC3339, expires)
		ours, known := refMemoryTypes[typ]
		if status != "active" || !known || (!exp.IsZero() && exp.Before(now)) {
			history++
			continue
		}
		e := memory.ExportedMemory{Scope: scope, Type: ours, Content: content, Importance: imp, Confidence: conf,
			Pinned: imp >= 0.99, Source: "migrate", SessionID: session}
		var ts []string
		if json.Unmarshal([]byte(topics), &ts) == nil && len(ts) > 0 {
			e.Topic = ts[0]
		}
		e.CreatedAt, _ = time.Parse(time.RFC3339, created)
		e.UpdatedAt, _ = time.Parse(time.RFC3339, updated)
		e.ValidFrom = e.CreatedAt
		f.Memories = append(f.Memories, e)
	}
	return f, history, rows.Err()
}
