package control

import (
	"context"
	"testing"

	"github.com/metaclaw/metaclaw/app/learner/skills"
	"github.com/metaclaw/metaclaw/assets"
	"github.com/metaclaw/metaclaw/store/config"
)

// TestExplainSkills: the turn page's explanation reads a recorded request
// as the proxy does, in either API (and in the other one when the turn
// was recorded translated), and says what was injected and why the rest
// was not.
func TestExplainSkills(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx := context.Background()
	if _, err := skills.InstallStarter(ctx, db, assets.Skills()); err != nil {
		t.Fatal(err)
	}
	r := skills.NewRetriever(db, skills.OptionsFrom(config.Defaults().Skills), nil)
	defer r.Close()
	inj := SkillExplainer{r}
	openaiBody := `{"model":"m","messages":[{"role":"system","content":"You are helpful."},{"role":"user","content":"[Sun 2026-11-29 20:59 UTC] write a git commit message for my staged changes"}]}`
	anthropicBody := `{"model":"m","max_tokens":9,"system":"x","messages":[{"role":"user","content":[{"type":"text","text":"write a git commit message for my staged changes"}]}]}`
	for _, tc := range []struct{ name, api, body string }{
		{"openai", "openai", openaiBody}, {"anthropic", "anthropic", anthropicBody}, {"recorded translated", "anthropic", openaiBody},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex, err := inj.ExplainSkills(ctx, tc.api, []byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if ex.Request != "write a git commit message for my staged changes" || ex.Rule == "" || len(ex.Skills) < 2 {
				t.Fatalf("explanation: %+v", ex)
			}
			if first := ex.Skills[0]; first.Name != "write-commit-message" || !first.Injected {
				t.Errorf("first: %+v", first)
			}
			for _, s := range ex.Skills {
				if !s.Injected && s.Reason == "" {
					t.Errorf("%s left out without a reason", s.Name)
				}
			}
		})
	}
	if _, err := inj.ExplainSkills(ctx, "openai", []byte("not json")); err == nil {
		t.Error("a request that reads in neither API explained")
	}
}
