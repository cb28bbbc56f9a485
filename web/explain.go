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
	Mode    string   // how the skills were ranked (keyword, embedding, hybrid)
	Skills  []ExplainedSkill
}

// Vectors reports whether the ranking used embeddings (the table then
// shows each skill's similarity and fused relevance).
func (e SkillExplanation) Vectors() bool { return e.Mode == "embedding" || e.Mode == "hybrid" }

// ExplainedSkill is one ranked skill, its evidence and what became of it.
type ExplainedSkill struct {
	Name                                string
	Version                             int
	Score, Coverage, Relative, Efficacy float64
	Similarity, Fused                   float64 // with embeddings: cosine similarity, hybrid relevance
	Matched                             []string
	ViaAsks                             []string // of Matched, the words found only in the skill's asks
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
