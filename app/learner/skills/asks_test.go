package skills

import (
	"context"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/metaclaw/metaclaw/assets"
	"github.com/metaclaw/metaclaw/proxy/learning"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// TestAsksFindASkill: a request in words only a skill's asks use finds the
// skill once it has them — the snapshot takes new asks without a new
// version — and only then.
func TestAsksFindASkill(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx := context.Background()
	if _, err := InstallStarter(ctx, db, assets.Skills()); err != nil {
		t.Fatal(err)
	}
	sk, _, err := db.PutSkill(ctx, store.SkillInput{Name: "tls-certificate-renewal", Description: "Renew an expiring TLS certificate.",
		Category: "devops", Tags: []string{"tls", "certbot"}, Body: "Check the expiry with openssl, run certbot renew, reload the server."})
	if err != nil {
		t.Fatal(err)
	}
	r := NewRetriever(db, OptionsFrom(config.Defaults().Skills), nil)
	t.Cleanup(r.Close)
	msgs := []learning.Message{{Role: "user", Text: "safari tells my shop's visitors the connection isn't private since this morning"}}
	has := func() bool {
		if err := r.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		sel, err := r.Select(ctx, msgs)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range sel.Considered {
			t.Logf("%s %.2f cov %.2f %v %s", c.Skill.Name, c.Score, c.Coverage, c.Matched, c.Reason)
		}
		return slices.ContainsFunc(sel.Skills, func(s store.Skill) bool { return s.Name == sk.Name })
	}
	if has() {
		t.Fatal("found without asks: the request shares no word with the skill's text, so the test proves nothing")
	}
	if err := db.SetSkillAsks(ctx, sk.Name, sk.Version, []string{"my browser says the connection isn't private",
		"visitors of my shop see a security warning", "el navegador dice que la conexión no es privada"}); err != nil {
		t.Fatal(err)
	}
	if !has() {
		t.Error("not found through its asks")
	}
	sel, _ := r.Select(ctx, msgs)
	for _, c := range sel.Considered {
		if c.Skill.Name == sk.Name && (!slices.Contains(c.ViaAsks, "private") || !strings.Contains(MatchedText(c), "(through its asks: ")) {
			t.Errorf("the explanation does not say the words came through its asks: %q / %q", c.ViaAsks, MatchedText(c))
		}
	}
}

// TestStarterAsksReachOldLibraries: a library installed before the starter
// bank had asks gets the bank's asks once, for the starter skills still as
// the bank has them; an edited one keeps its content and gets none.
func TestStarterAsksReachOldLibraries(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx := context.Background()
	file := func(name, body, asks string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("---\nname: " + name + "\ndescription: When " + name + ".\n" + asks + "---\n" + body + "\n")}
	}
	old := fstest.MapFS{"a/SKILL.md": file("a", "Do a.", ""), "b/SKILL.md": file("b", "Do b.", "")}
	if rep, err := InstallStarter(ctx, db, old); err != nil || len(rep.Added) != 2 {
		t.Fatalf("install = %+v, %v", rep, err)
	}
	if _, _, err := db.PutSkill(ctx, store.SkillInput{Name: "b", Description: "When b.", Body: "Do b, edited."}); err != nil {
		t.Fatal(err)
	}
	// Make the database look installed by a version without this pass.
	if err := db.SetMeta(ctx, metaStarterAsks, ""); err != nil {
		t.Fatal(err)
	}
	bank := fstest.MapFS{"a/SKILL.md": file("a", "Do a.", "asks: [first ask, second ask]\n"),
		"b/SKILL.md": file("b", "Do b.", "asks: [b ask]\n")}
	if _, err := InstallStarter(ctx, db, bank); err != nil {
		t.Fatal(err)
	}
	a, _ := db.Skill(ctx, "a")
	b, _ := db.Skill(ctx, "b")
	if !slices.Equal(a.Asks, []string{"first ask", "second ask"}) || a.Version != 1 || b.Asks != nil || b.Body != "Do b, edited." {
		t.Errorf("a = %+v\nb = %+v", a, b)
	}
	if err := db.SetSkillAsks(ctx, "a", 1, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallStarter(ctx, db, bank); err != nil {
		t.Fatal(err)
	}
	if a, _ := db.Skill(ctx, "a"); a.Asks != nil {
		t.Errorf("the pass ran twice: %q", a.Asks)
	}
}

// TestAskEvidence: the first skill to fit, when it has asks, needs one ask
// holding MinAskTerms of the request's terms unless its score reaches
// AskScore; a skill without asks, and a later skill, are not held to it.
func TestAskEvidence(t *testing.T) {
	t.Parallel()
	r := &Retriever{opts: Options{Evidence: DefaultEvidence}}
	ev := DefaultEvidence
	withAsks := store.Skill{Name: "s", Asks: []string{"one ask", "another ask"}}
	mid := (ev.MinScore + ev.AskScore) / 2 // above the floor, below AskScore
	tests := []struct {
		name    string
		c       Candidate
		fits    int
		refused bool
	}{
		{"words spread over its asks", Candidate{Skill: withAsks, Score: mid, BestAsk: ev.MinAskTerms - 1}, 0, true},
		{"words in one ask", Candidate{Skill: withAsks, Score: mid, BestAsk: ev.MinAskTerms}, 0, false},
		{"a score that stands alone", Candidate{Skill: withAsks, Score: ev.AskScore, BestAsk: 0}, 0, false},
		{"no asks to hold it to", Candidate{Skill: store.Skill{Name: "s"}, Score: mid}, 0, false},
		{"a later skill", Candidate{Skill: withAsks, Score: ev.MinScoreNext, BestAsk: 0}, 1, false},
	}
	for _, tt := range tests {
		c := tt.c
		c.HeadTerms, c.Coverage, c.Relative = 2, 0.5, 1
		r.keywordRule(&c, tt.fits)
		if refused := c.Reason != ""; refused != tt.refused {
			t.Errorf("%s: reason %q, want refused %v", tt.name, c.Reason, tt.refused)
		}
		if tt.refused && !strings.Contains(c.Reason, "no ask of it holds") {
			t.Errorf("%s: reason %q does not name the asks", tt.name, c.Reason)
		}
		if tt.fits == 0 && len(c.Skill.Asks) > 0 && !strings.Contains(c.Threshold, "an ask holding") {
			t.Errorf("%s: threshold %q does not say the asks rule", tt.name, c.Threshold)
		}
	}
}
