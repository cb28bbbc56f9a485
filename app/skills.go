package app

import (
	"context"

	"github.com/metaclaw/metaclaw/app/learner/retrieval"
	"github.com/metaclaw/metaclaw/app/learner/skills"
	"github.com/metaclaw/metaclaw/assets"
	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// skillInjector adapts the skill retriever to the proxy's Injector.
type skillInjector struct{ r *skills.Retriever }

var _ proxy.Injector = skillInjector{}

func (s skillInjector) Name() string { return "skills" }

func (s skillInjector) Inject(ctx context.Context, req proxy.InjectRequest) (proxy.Injection, error) {
	msgs := make([]retrieval.Message, len(req.Messages))
	for i, m := range req.Messages {
		msgs[i] = retrieval.Message{Role: m.Role, Text: m.Text}
	}
	sel, err := s.r.Select(ctx, msgs)
	if err != nil {
		return proxy.Injection{}, err
	}
	return proxy.Injection{Text: sel.Text, IDs: sel.IDs}, nil
}

// setupSkills installs the starter bank on first run and returns the
// skill injector, or nil when skills are off.
func (a *App) setupSkills(ctx context.Context, cfg config.Config) proxy.Injector {
	rep, err := skills.InstallStarter(ctx, a.db, assets.Skills())
	switch {
	case err != nil:
		a.log.Error("install starter skills", "err", err)
	case len(rep.Added) > 0:
		a.log.Info("starter skills installed", "count", len(rep.Added))
	}
	for _, fe := range rep.Errors {
		a.log.Warn("starter skill skipped", "file", fe.Path, "err", fe.Err)
	}
	if !cfg.Skills.Enabled {
		return nil
	}
	inj := newSkillInjector(a.db, cfg, a.embedder(cfg))
	a.skills = inj.r
	return inj
}

// newSkillInjector builds the skill retriever of a configuration (emb nil:
// keyword retrieval).
func newSkillInjector(db *store.DB, cfg config.Config, emb *retrieval.Embedder) skillInjector {
	var e skills.Embedder
	if emb != nil {
		e = emb
	}
	return skillInjector{r: skills.NewRetriever(db, skills.OptionsFrom(cfg.Skills), e)}
}

// embedder returns the embedding client for embedding or hybrid retrieval,
// or nil (keyword only) when none is configured.
func (a *App) embedder(cfg config.Config) *retrieval.Embedder {
	mode := cfg.Skills.RetrievalMode
	if mode != skills.ModeEmbedding && mode != skills.ModeHybrid {
		return nil
	}
	base, key := cfg.Skills.EmbeddingAPIBase, cfg.Skills.EmbeddingAPIKey
	if base == "" {
		base, key = cfg.LLM.APIBase, cfg.LLM.APIKey
		if p, ok := config.PresetByName(cfg.LLM.Provider); ok && p.API == "anthropic" {
			a.log.Warn("skills.retrieval_mode needs an embeddings endpoint; set skills.embedding_api_base (using keyword search)")
			return nil
		}
	}
	if key == "" {
		key = cfg.LLM.APIKey
	}
	return retrieval.NewEmbedder(a.db, base, key, cfg.Skills.EmbeddingModel)
}
