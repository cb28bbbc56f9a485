package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/metaclaw/metaclaw/app/learner/memory"
	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/store"
)

// memoryAPI adapts the memory service to the proxy's memory endpoints.
type memoryAPI struct {
	s  *memory.Service
	db *store.DB
}

var (
	_ proxy.MemoryService = memoryAPI{}
	_ proxy.MemoryReader  = memoryAPI{}
)

// Memory returns one memory, for the reference's GET /v1/memory/{id}.
func (m memoryAPI) Memory(ctx context.Context, id int64) (store.Memory, error) {
	return m.db.Memory(ctx, id)
}

// ScopeMemories returns a scope's memories with their history, for the
// reference's GET /v1/memory/stats.
func (m memoryAPI) ScopeMemories(ctx context.Context, scope string) ([]store.Memory, error) {
	return m.db.Memories(ctx, store.MemoryFilter{Scope: scope, History: true})
}

func (m memoryAPI) SearchMemories(ctx context.Context, scope, query string, limit int) ([]proxy.MemoryHit, error) {
	hits, err := m.s.Search(ctx, scope, query, limit)
	if err != nil {
		return nil, err
	}
	out := make([]proxy.MemoryHit, len(hits))
	for i, h := range hits {
		out[i] = proxy.MemoryHit{Memory: h.Memory, Relevance: h.Relevance, Score: h.Score}
	}
	return out, nil
}

func (m memoryAPI) AddMemory(ctx context.Context, in store.MemoryInput) (proxy.MemoryChange, error) {
	ch, err := m.s.Add(ctx, in)
	if err != nil {
		return proxy.MemoryChange{}, userError(err)
	}
	return proxy.MemoryChange{Outcome: ch.Outcome, Memory: ch.Memory, Ended: ch.Ended}, nil
}

func (m memoryAPI) ForgetMemory(ctx context.Context, scope string, id int64) ([]int64, error) {
	return m.s.Forget(ctx, scope, []int64{id})
}

func (m memoryAPI) IngestMemories(ctx context.Context, req proxy.MemoryIngest) (proxy.MemoryIngestResult, error) {
	var rep memory.Report
	var err error
	if len(req.Turns) == 0 {
		rep, err = m.s.ExtractSession(ctx, req.SessionID)
	} else {
		exs := make([]memory.Exchange, len(req.Turns))
		for i, t := range req.Turns {
			exs[i] = memory.Exchange{User: t.User, Assistant: t.Assistant}
		}
		rep, err = m.s.IngestExchanges(ctx, req.Scope, req.SessionID, exs)
	}
	if err != nil {
		return proxy.MemoryIngestResult{}, userError(err)
	}
	return proxy.MemoryIngestResult{Extractor: rep.Extractor, Turns: rep.Turns, Added: rep.Added,
		Reinforced: rep.Reinforced, Superseded: rep.Superseded, Queued: rep.Queued}, nil
}

// userError marks the memory service's validation errors for a 400.
func userError(err error) error {
	if errors.Is(err, memory.ErrInvalid) {
		return fmt.Errorf("%w: %v", proxy.ErrInvalidMemory, err)
	}
	return err
}
