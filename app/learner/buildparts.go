package learner

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/metaclaw/metaclaw/app/learner/internal/transcript"
	"github.com/metaclaw/metaclaw/app/learner/llm"
	"github.com/metaclaw/metaclaw/app/learner/memory"
	"github.com/metaclaw/metaclaw/app/learner/retrieval"
	"github.com/metaclaw/metaclaw/app/learner/skills"
	"github.com/metaclaw/metaclaw/app/learner/usage"
	"github.com/metaclaw/metaclaw/assets"
	"github.com/metaclaw/metaclaw/store/config"
)

// buildSkills installs the starter bank on first run and returns the
// skill retriever, or nil when skills are off.
func (l *Learning) buildSkills(ctx context.Context, d Deps) *skills.Retriever {
	rep, err := skills.InstallStarter(ctx, d.DB, assets.Skills())
	switch {
	case err != nil:
		l.log.Error("install starter skills", "err", err)
	case len(rep.Added) > 0:
		l.log.Info("starter skills installed", "count", len(rep.Added))
	}
	for _, fe := range rep.Errors {
		l.log.Warn("starter skill skipped", "file", fe.Path, "err", fe.Err)
	}
	if !d.Config.Skills.Enabled {
		return nil
	}
	return l.skillRetriever(d)
}

// skillRetriever is the skill retriever the configuration asks for: its
// mode, and the embeddings client when the mode uses embeddings.
func (l *Learning) skillRetriever(d Deps) *skills.Retriever {
	var e skills.Embedder
	if emb := l.embedder(d, skillsModeKey, skills.UsesEmbeddings(d.Config.Skills.RetrievalMode)); emb != nil {
		e = emb
	}
	return skills.NewRetriever(d.DB, skills.OptionsFrom(d.Config.Skills), e)
}

const skillsModeKey = "skills.retrieval_mode"

// embedder returns the embedding client (skills.embedding_* or llm.*) when
// want says the retrieval mode (named by key, for the log) uses
// embeddings, else nil: keyword search.
func (l *Learning) embedder(d Deps, key string, want bool) *retrieval.Embedder {
	if !want {
		return nil
	}
	cfg := d.Config
	base, apiKey := cfg.Skills.EmbeddingAPIBase, cfg.Skills.EmbeddingAPIKey
	if base == "" {
		base = cfg.LLM.APIBase
		if key == skillsModeKey {
			apiKey = cfg.LLM.APIKey // skills pair llm.api_base with llm.api_key
		}
		if p, ok := config.PresetByName(cfg.LLM.Provider); ok && p.API == "anthropic" {
			l.log.Warn(key + " needs an embeddings endpoint; set skills.embedding_api_base (using keyword search)")
			return nil
		}
	}
	if apiKey == "" {
		apiKey = cfg.LLM.APIKey
	}
	return retrieval.NewEmbedder(d.DB, base, apiKey, cfg.Skills.EmbeddingModel).Metered(l.Meter)
}

// buildMemory makes the memory service: the extraction model (rules only
// when none is configured), the embedder for embedding or hybrid
// retrieval, and learning's pause switch.
func (l *Learning) buildMemory(d Deps, digests *transcript.Digests) *memory.Service {
	cfg := d.Config
	opts := memory.OptionsFrom(cfg)
	opts.DB, opts.Logger, opts.Paused, opts.Now = d.DB, d.Logger.With("part", "memory"), d.Paused, d.Now
	opts.Digests = digests
	if _, err := memory.EndpointFrom(cfg); err != nil {
		l.log.Warn("memory extraction will use the rule-based extractor until a model is configured", "why", err)
	}
	l.extract.set(l.extractor(cfg))
	opts.Completer = l.extract
	opts.Outcome = func(err error) {
		if !errors.Is(err, errNoExtractor) {
			l.Meter.Outcome(usage.Extraction, err)
		}
	}
	if e := l.embedder(d, "memory.retrieval_mode", cfg.Memory.RetrievalMode != memory.ModeKeyword); e != nil {
		opts.Embedder = e
	}
	return memory.New(opts)
}

// extractor is the metered model client memory extraction uses, or nil
// (rules only) when none is configured.
func (l *Learning) extractor(cfg config.Config) usage.Completer {
	ep, err := memory.EndpointFrom(cfg)
	if err != nil {
		return nil
	}
	return l.Meter.Metered(usage.Extraction, llm.New(ep))
}

// liveCompleter is a model client that can be replaced while in use: memory
// extraction keeps it, settings swap what it calls.
type liveCompleter struct {
	c atomic.Pointer[usage.Completer]
}

func (lc *liveCompleter) set(c usage.Completer) {
	if c == nil {
		lc.c.Store(nil)
		return
	}
	lc.c.Store(&c)
}

// Complete calls the current model, or answers errNoExtractor when none
// is configured.
func (lc *liveCompleter) Complete(ctx context.Context, system, user string, opts llm.Options) (string, error) {
	c := lc.c.Load()
	if c == nil {
		return "", errNoExtractor
	}
	return (*c).Complete(ctx, system, user, opts)
}

// errNoExtractor is the answer of memory extraction's client while no
// extraction model is configured: memory uses its rules.
var errNoExtractor = errors.New("no extraction model is configured (memory.extract_* or llm.*)")
