package web

import (
	"context"
	"strings"
	"testing"

	"github.com/metaclaw/metaclaw/store"
)

// fakeExplainer explains every request the same way, recording what it
// was given.
type fakeExplainer struct{ api, request, mode string }

func (f *fakeExplainer) ExplainSkills(_ context.Context, api string, request []byte) (SkillExplanation, error) {
	f.api, f.request = api, string(request)
	return SkillExplanation{Request: "write a commit message", Terms: []string{"write", "commit", "message"}, Mode: f.mode,
		Rule: "coverage ≥ 0.10, score ≥ 6.0 and ≥ 0.55 of the best", Skills: []ExplainedSkill{
			{Name: "write-commit-message", Version: 1, Score: 14.2, Coverage: 0.9, Relative: 1, Efficacy: 1.1, Similarity: 0.61, Fused: 0.91, Matched: []string{"commit", "message", "squash"}, ViaAsks: []string{"squash"}, Injected: true},
			{Name: "write-pr-description", Version: 1, Score: 5.1, Coverage: 0.3, Relative: 0.36, Efficacy: 1, Matched: []string{"commit"}, Reason: "0.36 of the best match"},
		}}, nil
}

// TestTurnPageExplainsSkills: a main turn's page shows why each skill was
// injected or left out, from the explainer given the turn's own request.
func TestTurnPageExplainsSkills(t *testing.T) {
	t.Parallel()
	ex := &fakeExplainer{}
	e := newEnv(t, func(o *Options) { o.Skills = ex })
	req := `{"model":"m","messages":[{"role":"user","content":"write a commit message"}]}`
	turn := &store.Turn{SessionID: "s", Type: store.TurnMain, API: "openai", Model: "m", Status: 200, Request: []byte(req), ResponseText: "ok"}
	if err := e.db.RecordTurns(context.Background(), []*store.Turn{turn}); err != nil {
		t.Fatal(err)
	}
	c := e.login(t)
	p := e.get(t, c, "/turns/"+i64(turn.ID))
	for _, want := range []string{`data-testid="turn-explain"`, "write-commit-message", "injected", "left out: 0.36 of the best match",
		"coverage ≥ 0.10", "×1.10", "commit message squash", "(through its asks: squash)"} {
		if !strings.Contains(p.body, want) {
			t.Errorf("turn page lacks %q", want)
		}
	}
	if ex.api != "openai" || ex.request != req {
		t.Errorf("explainer got %s %q", ex.api, ex.request)
	}
}

// TestTurnPageExplainsHybrid: with embeddings the explanation names the
// mode and shows each skill's similarity and fused relevance; in keyword
// mode those columns are not there.
func TestTurnPageExplainsHybrid(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"hybrid", "keyword"} {
		ex := &fakeExplainer{mode: mode}
		e := newEnv(t, func(o *Options) { o.Skills = ex })
		turn := &store.Turn{SessionID: "s", Type: store.TurnMain, API: "openai", Model: "m", Status: 200,
			Request: []byte(`{"model":"m","messages":[{"role":"user","content":"write a commit message"}]}`), ResponseText: "ok"}
		if err := e.db.RecordTurns(context.Background(), []*store.Turn{turn}); err != nil {
			t.Fatal(err)
		}
		p := e.get(t, e.login(t), "/turns/"+i64(turn.ID))
		columns := strings.Contains(p.body, "<th>Similarity</th>") && strings.Contains(p.body, "0.61") && strings.Contains(p.body, "0.91")
		if columns != (mode == "hybrid") || !strings.Contains(p.body, `data-testid="explain-mode">`+mode) {
			t.Errorf("%s: similarity columns shown %v, or the mode is missing", mode, columns)
		}
	}
}

// TestSkillsPageShowsRankingFactor: the efficacy factor of each skill's
// ranking is on the skills page and the skill's page.
func TestSkillsPageShowsRankingFactor(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *Options) { o.EfficacyFactor = func(store.Efficacy) float64 { return 0.8 } })
	ctx := context.Background()
	if _, _, err := e.db.PutSkill(ctx, store.SkillInput{Name: "a-skill", Description: "When X.", Body: "Do Y.", Source: "test"}); err != nil {
		t.Fatal(err)
	}
	turn := &store.Turn{SessionID: "s", Type: store.TurnMain, API: "openai", Model: "m", Status: 200, Request: []byte(`{}`),
		Injected: `["skill:a-skill@1"]`}
	if err := e.db.RecordTurns(ctx, []*store.Turn{turn}); err != nil {
		t.Fatal(err)
	}
	c := e.login(t)
	if p := e.get(t, c, "/skills"); !strings.Contains(p.body, `data-testid="ranking-a-skill">×0.80`) {
		t.Errorf("skills page lacks the factor:\n%s", p.body)
	}
	if p := e.get(t, c, "/skills/a-skill"); !strings.Contains(p.body, `data-testid="skill-ranking">×0.80`) {
		t.Errorf("skill page lacks the factor")
	}
}
