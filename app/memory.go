package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/memory"
	"github.com/metaclaw/metaclaw/app/learner/retrieval"
	"github.com/metaclaw/metaclaw/app/learner/usage"
	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/proxy/learning"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// memoryParts is the memory service and what the proxy gets of it.
type memoryParts struct {
	svc    *memory.Service
	inject bool // memory.enabled: inject memories into main turns
}

// setupMemory builds the memory service from the configuration: the
// extraction model (rules only when none is configured), the embedder for
// embedding or hybrid retrieval, and learning's pause switch.
func (a *App) setupMemory(cfg config.Config) *memoryParts { return a.newMemoryParts(cfg, nil) }

// newMemoryParts is setupMemory with a clock (nil: time.Now).
func (a *App) newMemoryParts(cfg config.Config, now func() time.Time) *memoryParts {
	opts := a.memoryOptions(cfg)
	opts.Now = now
	return &memoryParts{svc: memory.New(opts), inject: cfg.Memory.Enabled}
}

func (a *App) memoryOptions(cfg config.Config) memory.Options {
	opts := memory.OptionsFrom(cfg)
	opts.DB, opts.Logger, opts.Paused = a.db, a.log.With("part", "memory"), a.Paused
	if _, err := memory.EndpointFrom(cfg); err != nil {
		a.log.Warn("memory extraction will use the rule-based extractor until a model is configured", "why", err)
	}
	a.extract.set(a.extractor(cfg))
	opts.Completer = &a.extract
	opts.Outcome = func(err error) {
		if !errors.Is(err, errNoExtractor) {
			a.meter.Outcome(usage.Extraction, err)
		}
	}
	if e := a.memoryEmbedder(cfg); e != nil {
		opts.Embedder = e
	}
	return opts
}

// memoryEmbedder returns the embedding client (skills.embedding_* or
// llm.*) when memory.retrieval_mode asks for embeddings, else nil.
func (a *App) memoryEmbedder(cfg config.Config) *retrieval.Embedder {
	if cfg.Memory.RetrievalMode == memory.ModeKeyword {
		return nil
	}
	base, key := cfg.Skills.EmbeddingAPIBase, cfg.Skills.EmbeddingAPIKey
	if base == "" {
		base = cfg.LLM.APIBase
		if p, ok := config.PresetByName(cfg.LLM.Provider); ok && p.API == "anthropic" {
			a.log.Warn("memory.retrieval_mode needs an embeddings endpoint; set skills.embedding_api_base (using keyword search)")
			return nil
		}
	}
	if key == "" {
		key = cfg.LLM.APIKey
	}
	return retrieval.NewEmbedder(a.db, base, key, cfg.Skills.EmbeddingModel)
}

func (m *memoryParts) injectors() []learning.Injector {
	if !m.inject {
		return nil
	}
	return []learning.Injector{m.svc}
}

func (m *memoryParts) api(db *store.DB) proxy.MemoryService { return memoryAPI{s: m.svc, db: db} }

// startMemory feeds the proxy's events to the memory service and runs it.
func (a *App) startMemory(ctx context.Context, m *memoryParts) {
	a.subscribe(m.svc.Notify)
	a.goService(ctx, "memory", m.svc.Serve)
}

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
