package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/metaclaw/metaclaw/store"
)

// ExportVersion is the version of the export format.
const ExportVersion = 1

// ExportFile is `metaclaw memory export`'s JSON.
type ExportFile struct {
	Version  int              `json:"version"`
	Exported time.Time        `json:"exported"`
	Memories []ExportedMemory `json:"memories"`
}

// ExportedMemory is one memory in an export.
type ExportedMemory struct {
	ID           int64      `json:"id"`
	Scope        string     `json:"scope"`
	Type         string     `json:"type"`
	Topic        string     `json:"topic,omitempty"`
	Content      string     `json:"content"`
	Importance   float64    `json:"importance"`
	Confidence   float64    `json:"confidence"`
	Pinned       bool       `json:"pinned,omitempty"`
	Source       string     `json:"source,omitempty"`
	SessionID    string     `json:"session_id,omitempty"`
	CreatedAt    time.Time  `json:"created_at"`
	UpdatedAt    time.Time  `json:"updated_at"`
	ValidFrom    time.Time  `json:"valid_from"`
	ValidTo      *time.Time `json:"valid_to,omitempty"`
	EndReason    string     `json:"end_reason,omitempty"`
	SupersededBy int64      `json:"superseded_by,omitempty"`
}

// Exported converts a memory to its export form.
func Exported(m store.Memory) ExportedMemory {
	e := ExportedMemory{ID: m.ID, Scope: m.Scope, Type: m.Type, Topic: m.Topic, Content: m.Content,
		Importance: m.Importance, Confidence: m.Confidence, Pinned: m.Pinned, Source: m.Source, SessionID: m.SessionID,
		CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt, ValidFrom: m.ValidFrom, EndReason: m.EndReason,
		SupersededBy: m.SupersededBy}
	if !m.Current() {
		to := m.ValidTo
		e.ValidTo = &to
	}
	return e
}

// Export writes the memories of a scope ("" = every scope) as JSON; with
// history, superseded and ended memories too.
func Export(ctx context.Context, db *store.DB, w io.Writer, scope string, history bool, now time.Time) (int, error) {
	ms, err := db.Memories(ctx, store.MemoryFilter{Scope: scope, History: history})
	if err != nil {
		return 0, err
	}
	f := ExportFile{Version: ExportVersion, Exported: now, Memories: make([]ExportedMemory, len(ms))}
	for i, m := range ms {
		f.Memories[i] = Exported(m)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		return 0, fmt.Errorf("write export: %w", err)
	}
	return len(ms), nil
}

// ImportReport says what Import did.
type ImportReport struct {
	Added      int
	Duplicates int // the scope already says exactly the same thing: not added again
	SameTopic  int // added next to a current memory on the same topic (both stay current)
	History    int // memories that were not current in the export: skipped
}

// Import reads an export and adds its current memories as they are (type,
// topic, importance, confidence, pin, the date each was said) into their
// scope, or into scope when it is set. It keeps every memory it is given
// and overwrites nothing: one on a topic the scope already has a memory
// for is added beside it (and counted in SameTopic); only one whose text
// the scope already holds is not added again, so importing the same file
// twice adds nothing the second time. An imported memory keeps when it
// was said (ValidFrom, what time questions read) but ages from the
// import: decay and recency count from now, not from its original date.
func (s *Service) Import(ctx context.Context, r io.Reader, scope string) (ImportReport, error) {
	var rep ImportReport
	var f ExportFile
	if err := json.NewDecoder(r).Decode(&f); err != nil {
		return rep, fmt.Errorf("read memory export: %w", err)
	}
	if f.Version != ExportVersion {
		return rep, fmt.Errorf("memory export version %d is not supported (want %d)", f.Version, ExportVersion)
	}
	for _, e := range f.Memories {
		if e.ValidTo != nil {
			rep.History++
			continue
		}
		if scope != "" {
			e.Scope = scope
		}
		if err := s.importOne(ctx, e, &rep); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

func (s *Service) importOne(ctx context.Context, e ExportedMemory, rep *ImportReport) error {
	if e.Scope == "" {
		e.Scope = store.DefaultScope
	}
	typ := NormalizeType(e.Type)
	if typ == "" {
		return fmt.Errorf("memory %d: unknown type %q", e.ID, e.Type)
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	nb, err := s.ret.neighbours(ctx, e.Scope, Candidate{Type: typ, Topic: e.Topic, Content: e.Content}, nil)
	if err != nil {
		return err
	}
	for _, n := range nb.similar {
		if store.ContentKey(n.m.Content) == store.ContentKey(e.Content) {
			rep.Duplicates++
			return nil
		}
	}
	if len(nb.sameTopic) > 0 {
		rep.SameTopic++
	}
	in := store.MemoryInput{Type: typ, Topic: e.Topic, Content: e.Content, Importance: e.Importance,
		Confidence: e.Confidence, Pinned: e.Pinned, Source: SourceImport, SessionID: e.SessionID, At: e.ValidFrom}
	changes, rev, err := s.db.ApplyMemoryOps(ctx, e.Scope, []store.MemoryOp{{Kind: store.MemoryAdd, Input: in}}, s.now())
	if err != nil {
		return err
	}
	s.ret.apply(e.Scope, changes, rev)
	rep.Added++
	return nil
}
