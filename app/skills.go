package app

import (
	"context"
	"fmt"

	"github.com/metaclaw/metaclaw/app/learner/retrieval"
	"github.com/metaclaw/metaclaw/app/learner/skills"
	"github.com/metaclaw/metaclaw/assets"
	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/proxy/learning"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
	"github.com/metaclaw/metaclaw/web"
)

// skillExplainer adapts the skill retriever to the web page's
// SkillExplainer.
type skillExplainer struct{ r *skills.Retriever }

var _ web.SkillExplainer = skillExplainer{}

// ExplainSkills runs retrieval on a recorded request, read as the proxy
// reads a request (proxy.Conversation; a request recorded translated to
// the other API is read as that one).
func (s skillExplainer) ExplainSkills(ctx context.Context, api string, request []byte) (web.SkillExplanation, error) {
	conv, err := proxy.Conversation(api, request)
	if err != nil {
		other := map[string]string{"openai": "anthropic", "anthropic": "openai"}[api]
		if conv, err = proxy.Conversation(other, request); err != nil {
			return web.SkillExplanation{}, fmt.Errorf("read the request: %w", err)
		}
	}
	sel, err := s.r.Select(ctx, conv)
	if err != nil {
		return web.SkillExplanation{}, err
	}
	out := web.SkillExplanation{Request: sel.Query, Terms: sel.Terms}
	for _, c := range sel.Considered {
		out.Rule = c.Threshold
		out.Skills = append(out.Skills, web.ExplainedSkill{Name: c.Skill.Name, Version: c.Skill.Version, Score: c.Score,
			Coverage: c.Coverage, Relative: c.Relative, Efficacy: c.Efficacy, Matched: c.Matched, Injected: c.Injected, Reason: c.Reason})
	}
	return out, nil
}

// setupSkills installs the starter bank on first run and returns the
// skill injector, or nil when skills are off.
func (a *App) setupSkills(ctx context.Context, cfg config.Config) learning.Injector {
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
	r := newSkillRetriever(a.db, cfg, a.embedder(cfg))
	a.skills, a.explainer = r, skillExplainer{r}
	return r
}

// newSkillRetriever builds the skill retriever of a configuration (emb nil:
// keyword retrieval).
func newSkillRetriever(db *store.DB, cfg config.Config, emb *retrieval.Embedder) *skills.Retriever {
	var e skills.Embedder
	if emb != nil {
		e = emb
	}
	return skills.NewRetriever(db, skills.OptionsFrom(cfg.Skills), e)
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
