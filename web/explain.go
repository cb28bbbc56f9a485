package web

import (
	"context"

	"github.com/metaclaw/metaclaw/store"
)

// SkillExplainer re-runs skill retrieval on a recorded request and says
// why each skill would be injected or left out (app passes the skill
// retriever's; nil: the turn page shows no explanation).
type SkillExplainer interface {
	ExplainSkills(ctx context.Context, api string, request []byte) (SkillExplanation, error)
}

// SkillExplanation is retrieval's reasoning for one request.
type SkillExplanation struct {
	Request string   // the request read out of the conversation
	Terms   []string // its terms
	Rule    string   // the evidence a skill must show
	Skills  []ExplainedSkill
}

// ExplainedSkill is one ranked skill, its evidence and what became of it.
type ExplainedSkill struct {
	Name                                string
	Version                             int
	Score, Coverage, Relative, Efficacy float64
	Matched                             []string
	Injected                            bool
	Reason                              string // why it was left out
}

// efficacyFactor returns a skill's ranking factor as the options say,
// 1 when they say nothing.
func (s *Server) efficacyFactor(e store.Efficacy) float64 {
	if s.opts.EfficacyFactor == nil {
		return 1
	}
	return s.opts.EfficacyFactor(e)
}
