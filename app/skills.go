package app

import (
	"context"
	"fmt"

	"github.com/metaclaw/metaclaw/app/learner/skills"
	"github.com/metaclaw/metaclaw/proxy"
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
