package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/metaclaw/metaclaw/store"
)

// Outcomes of Add.
const (
	OutcomeAdded      = "added"
	OutcomeReinforced = "reinforced" // it said what a memory already says
	OutcomeSuperseded = "superseded" // added, ending the memories it replaces
)

// ErrInvalid marks errors caused by what was asked: empty content, an
// unknown type.
var ErrInvalid = errors.New("invalid memory")

// Change is what Add, Edit or SetPinned did.
type Change struct {
	Outcome string
	Memory  store.Memory // the memory added, reinforced, edited or pinned
	Ended   []int64      // memories that stopped being current
}

// Add consolidates one memory into its scope like an extracted one: a
// repeat reinforces the memory it repeats, one on an existing topic
// supersedes it. in.Source defaults to "user" and its confidence to 1.
func (s *Service) Add(ctx context.Context, in store.MemoryInput) (Change, error) {
	in.Content, in.Type = strings.TrimSpace(in.Content), NormalizeType(in.Type)
	if in.Content == "" {
		return Change{}, fmt.Errorf("%w: content is empty", ErrInvalid)
	}
	if in.Type == "" {
		return Change{}, fmt.Errorf("%w: type must be one of %s", ErrInvalid, strings.Join(store.MemoryTypes, ", "))
	}
	if in.Scope == "" {
		in.Scope = store.DefaultScope
	}
	if in.Source == "" {
		in.Source = SourceUser
	}
	if in.Confidence == 0 {
		in.Confidence = 1
	}
	c := Candidate{Type: in.Type, Topic: in.Topic, Content: in.Content, Importance: in.Importance, Confidence: in.Confidence}
	changes, err := s.consolidate(ctx, in.Scope, []Candidate{c}, Provenance{Source: in.Source, SessionID: in.SessionID, TurnIDs: in.TurnIDs}, nil)
	if err != nil || len(changes) == 0 {
		return Change{}, err
	}
	ch := changes[0]
	out := Change{Outcome: OutcomeAdded, Memory: ch.Memory, Ended: ch.Ended}
	switch ch.Kind {
	case store.MemoryReinforce:
		out.Outcome = OutcomeReinforced
	case store.MemorySupersede:
		out.Outcome = OutcomeSuperseded
	}
	if in.Pinned && !out.Memory.Pinned {
		pinned, err := s.SetPinned(ctx, out.Memory.ID, true)
		if err != nil {
			return out, err
		}
		out.Memory = pinned.Memory
	}
	return out, nil
}

// Edit replaces a current memory's text (and, when not empty, its type and
// topic) with a new version; the old one stays as history, ended "edited".
func (s *Service) Edit(ctx context.Context, id int64, content, typ, topic string) (Change, error) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	m, err := s.db.Memory(ctx, id)
	if err != nil {
		return Change{}, err
	}
	if !m.Current() {
		return Change{}, fmt.Errorf("%w: memory %d was %s; edit the current version (memory %d)", ErrInvalid, id, m.EndReason, m.SupersededBy)
	}
	in := store.MemoryInput{Type: m.Type, Topic: m.Topic, Content: strings.TrimSpace(content), Importance: m.Importance,
		Confidence: 1, Source: SourceUser, SessionID: m.SessionID, TurnIDs: m.TurnIDs}
	if in.Content == "" {
		return Change{}, fmt.Errorf("%w: content is empty", ErrInvalid)
	}
	if typ != "" {
		if in.Type = NormalizeType(typ); in.Type == "" {
			return Change{}, fmt.Errorf("%w: type must be one of %s", ErrInvalid, strings.Join(store.MemoryTypes, ", "))
		}
	}
	if topic != "" {
		in.Topic = topic
	}
	op := store.MemoryOp{Kind: store.MemorySupersede, IDs: []int64{id}, Input: in, Reason: store.EndEdited}
	changes, rev, err := s.db.ApplyMemoryOps(ctx, m.Scope, []store.MemoryOp{op}, s.now())
	if err != nil {
		return Change{}, err
	}
	s.ret.apply(m.Scope, changes, rev)
	return Change{Outcome: "edited", Memory: changes[0].Memory, Ended: changes[0].Ended}, nil
}

// SetPinned pins or unpins a memory: pinned memories are injected first,
// on every turn, and never decay.
func (s *Service) SetPinned(ctx context.Context, id int64, pinned bool) (Change, error) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	m, rev, err := s.db.SetMemoryPinned(ctx, id, pinned, s.now())
	if err != nil {
		return Change{}, err
	}
	s.ret.apply(m.Scope, []store.MemoryChange{{Kind: store.MemoryReinforce, Memory: m}}, rev)
	outcome := "pinned"
	if !pinned {
		outcome = "unpinned"
	}
	return Change{Outcome: outcome, Memory: m}, nil
}

// Forget deletes memories and their earlier versions for good (see
// store.ForgetMemories) and returns the ids deleted. With a scope, only
// that scope's memories can be forgotten. The database is compacted a few
// seconds later by Serve; without Serve, call Compact.
func (s *Service) Forget(ctx context.Context, scope string, ids []int64) ([]int64, error) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	deleted, err := s.db.ForgetMemories(ctx, scope, ids, s.now())
	if err != nil {
		return nil, err
	}
	s.ret.remove(deleted)
	select {
	case s.compactReq <- struct{}{}:
	default:
	}
	return deleted, nil
}

// Compact removes what forgotten memories left in the database file now
// (store.DB.Compact).
func (s *Service) Compact(ctx context.Context) error {
	_, err := s.db.Compact(ctx)
	return err
}

// Search ranks a scope's current memories for a query, with every field
// of each memory read back from the store.
func (s *Service) Search(ctx context.Context, scope, query string, limit int) ([]Scored, error) {
	hits, err := s.ret.Search(ctx, scope, query, limit)
	if err != nil || len(hits) == 0 {
		return hits, err
	}
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	full, err := s.db.MemoriesByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]store.Memory, len(full))
	for _, m := range full {
		byID[m.ID] = m
	}
	out := hits[:0]
	for _, h := range hits {
		if m, ok := byID[h.ID]; ok { // gone meanwhile: skip
			h.Memory = m
			out = append(out, h)
		}
	}
	return out, nil
}

// IngestExchanges extracts memories from exchanges given directly (an
// agent plugin or a benchmark sending its own transcript) into scope.
// They are not recorded turns, so a rule-based fallback is not queued.
func (s *Service) IngestExchanges(ctx context.Context, scope, sessionID string, exs []Exchange) (Report, error) {
	if scope == "" {
		scope = store.DefaultScope
	}
	s.extractMu.Lock()
	defer s.extractMu.Unlock()
	return s.ingest(ctx, scope, sessionID, nil, CleanExchanges(exs))
}
