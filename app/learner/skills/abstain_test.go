package skills

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/metaclaw/metaclaw/app/learner/retrieval"
	"github.com/metaclaw/metaclaw/assets"
	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/store"
)

func TestEmbeddingAndHybridRetrieval(t *testing.T) {
	t.Parallel()
	up := fakeupstream.New()
	base, err := up.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	up.SetEmbeddingDim(4096) // the fake hashes words into dimensions: fewer collisions
	db := openDB(t)
	ctx := context.Background()
	if _, err := InstallStarter(ctx, db, assets.Skills()); err != nil {
		t.Fatal(err)
	}
	emb := retrieval.NewEmbedder(db, base+"/v1", "k", "fake-embed")
	// The fake hashes words into dimensions: its similarities are lower
	// than a real model's, so the test calibrates for it.
	ev := DefaultEvidence
	ev.MinCosine, ev.CosineLow, ev.CosineHigh, ev.MinFused = 0.15, 0, 0.5, 0.3
	for _, mode := range []string{ModeEmbedding, ModeHybrid} {
		opts := Options{Mode: mode, TopK: 3, Candidates: 10, GeneralTopK: 1, MaxTokens: 1500, Evidence: ev}
		r := NewRetriever(db, opts, emb)
		defer r.Close()
		sel, err := r.Select(ctx, []Message{{Role: "user", Text: "write a git commit message for my change"}})
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if len(sel.Skills) == 0 || !strings.Contains(strings.Join(sel.IDs, " "), "commit") {
			t.Errorf("%s: selected %v", mode, sel.IDs)
			for _, c := range sel.Considered {
				t.Logf("  %s cos %.2f fused %.2f %s", c.Skill.Name, c.Cosine, c.Fused, c.Reason)
			}
		}
		if sel.Tokens > 1500 {
			t.Errorf("%s: %d tokens over budget", mode, sel.Tokens)
		}
	}
	calls := len(up.Requests())
	r := NewRetriever(db, Options{Mode: ModeEmbedding, TopK: 3, Candidates: 10}, emb)
	if _, err := r.Select(ctx, []Message{{Role: "user", Text: "write a git commit message for my change"}}); err != nil {
		t.Fatal(err)
	}
	if got := len(up.Requests()); got != calls {
		t.Errorf("cached vectors were fetched again: %d new calls", got-calls)
	}
	// Hybrid survives an embeddings outage by falling back to keywords.
	up.Close()
	r = NewRetriever(db, Options{Mode: ModeHybrid, TopK: 3, Candidates: 10}, retrieval.NewEmbedder(db, base+"/v1", "k", "other-model"))
	sel, err := r.Select(ctx, []Message{{Role: "user", Text: "my pytest test fails"}})
	if err != nil || len(sel.Skills) == 0 {
		t.Errorf("hybrid with embeddings down: %v, %v", sel.IDs, err)
	}
}

func TestBudgetAndLimits(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx := context.Background()
	InstallStarter(ctx, db, assets.Skills())
	q := []Message{{Role: "user", Text: "debug the failing pytest test, then write the commit message, review the code and upgrade dependencies"}}
	r := NewRetriever(db, Options{Mode: ModeKeyword, TopK: 6, Candidates: 10, GeneralTopK: 2, MaxTokens: 400}, nil)
	sel, _ := r.Select(ctx, q)
	if sel.Tokens > 400 || len(sel.Skills) == 0 {
		t.Errorf("budget 400: %d tokens, %d skills", sel.Tokens, len(sel.Skills))
	}
	r = NewRetriever(db, Options{Mode: ModeKeyword, TopK: 2, Candidates: 10, GeneralTopK: 0}, nil)
	sel, _ = r.Select(ctx, q)
	if len(sel.Skills) > 2 {
		t.Errorf("top_k 2 gave %d skills", len(sel.Skills))
	}
	for _, s := range sel.Skills {
		if s.Category == "general" {
			t.Errorf("general_top_k 0 let %s in", s.Name)
		}
	}
	if !strings.HasPrefix(sel.Text, "# Skills") || !strings.Contains(sel.Text, "## "+sel.Skills[0].Name) {
		t.Errorf("rendered text:\n%s", sel.Text)
	}
}

func starterRetriever(t *testing.T, opts Options) (*store.DB, *Retriever) {
	t.Helper()
	db := openDB(t)
	if _, err := InstallStarter(context.Background(), db, assets.Skills()); err != nil {
		t.Fatal(err)
	}
	r := NewRetriever(db, opts, nil)
	t.Cleanup(r.Close)
	return db, r
}

var defaultOpts = Options{Mode: ModeKeyword, TopK: 6, Candidates: 10, GeneralTopK: 2, MaxTokens: 1500}

// TestAbstention: a skill is injected only when the evidence says it fits;
// turns that need no skill get none, top_k is a ceiling.
func TestAbstention(t *testing.T) {
	t.Parallel()
	_, r := starterRetriever(t, defaultOpts)
	tests := []struct {
		name, text string
		want       []string // exactly these, in order; nil: none
	}{
		{"greeting", "hi there!", nil},
		{"thanks", "thanks, that worked perfectly", nil},
		{"thanks repeating the task's words", "thanks, I rotated the AWS secret key I pushed to github, all good now", nil},
		{"the same words, asking", "I rotated the AWS secret key I pushed to github, all good now?", []string{"handle-secrets-safely"}},
		{"thanks and a new task", "thanks! now write a commit message for the staged changes", []string{"write-commit-message"}},
		{"small talk with a word a skill has", "good night", nil},
		{"quick fact", "What's the capital of Australia?", nil},
		// One word is too little evidence: "is the meeting still at 3?"
		// is one term too, and a meeting skill does not help with it.
		{"one word naming a skill", "/commit", nil},
		{"a few words naming a skill", "/commit the staged changes", []string{"write-commit-message"}},
		{"a clear task gets its skill", "i accidentally pushed my AWS secret key to github, what do i do now??", []string{"handle-secrets-safely"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sel, err := r.Select(context.Background(), []Message{{Role: "user", Text: tt.text}})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range sel.Skills {
				got = append(got, s.Name)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("%q got %v, want %v", tt.text, got, tt.want)
				for _, c := range sel.Considered {
					t.Logf("  %s score %.2f cov %.2f rel %.2f %v %s", c.Skill.Name, c.Score, c.Coverage, c.Relative, c.Matched, c.Reason)
				}
			}
			if tt.want == nil && sel.Text != "" {
				t.Errorf("no skill but text %q", sel.Text)
			}
		})
	}
}

// TestExplanation: every considered skill says why it was or was not
// injected.
func TestExplanation(t *testing.T) {
	t.Parallel()
	_, r := starterRetriever(t, defaultOpts)
	sel, err := r.Select(context.Background(), []Message{{Role: "user", Text: "write a git commit message for my staged changes"}})
	if err != nil || len(sel.Considered) < 2 {
		t.Fatalf("considered %d, %v", len(sel.Considered), err)
	}
	injected := 0
	for _, c := range sel.Considered {
		switch {
		case c.Injected && c.Reason != "", !c.Injected && c.Reason == "":
			t.Errorf("%s: injected %v with reason %q", c.Skill.Name, c.Injected, c.Reason)
		case c.Threshold == "" || len(c.Matched) == 0:
			t.Errorf("%s: threshold %q, matched %v", c.Skill.Name, c.Threshold, c.Matched)
		}
		if c.Injected {
			injected++
		}
	}
	if injected != len(sel.Skills) || sel.Considered[0].Skill.Name != "write-commit-message" || !sel.Considered[0].Injected {
		t.Errorf("first considered %s (injected %v); %d injected of %d", sel.Considered[0].Skill.Name, sel.Considered[0].Injected, injected, len(sel.Skills))
	}
}

// TestHabitAllowance: habits (general, common_mistakes) share general_top_k.
func TestHabitAllowance(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx := context.Background()
	for i, name := range []string{"verify-math-one", "verify-math-two", "verify-math-three"} {
		cat := CategoryGeneral
		if i == 1 {
			cat = CategoryCommonMistakes
		}
		if _, _, err := db.PutSkill(ctx, store.SkillInput{Name: name, Description: "Use when checking arithmetic and unit conversions in a calculation.",
			Category: cat, Body: "Recompute the arithmetic.", Source: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, limit := range []int{0, 1, 2} {
		opts := defaultOpts
		opts.GeneralTopK = limit
		r := NewRetriever(db, opts, nil)
		sel, err := r.Select(ctx, []Message{{Role: "user", Text: "check the arithmetic and unit conversions in this calculation"}})
		r.Close()
		if err != nil || len(sel.Skills) != limit {
			t.Errorf("general_top_k %d: injected %v, %v", limit, sel.IDs, err)
		}
	}
}

func TestEfficacyFactor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		e    store.Efficacy
		want float64
	}{
		{"too few turns", store.Efficacy{ScoredWith: 9, MeanWith: 1, ScoredWithout: 50, MeanWithout: -1}, 1},
		{"no comparison", store.Efficacy{ScoredWith: 30, MeanWith: 1, MeanWithout: math.NaN()}, 1},
		{"helps, shrunk", store.Efficacy{ScoredWith: 20, MeanWith: 0.6, ScoredWithout: 100, MeanWithout: 0.2}, 1 + 0.25*0.4*0.5},
		{"hurts, clamped", store.Efficacy{ScoredWith: 1000, MeanWith: -1, ScoredWithout: 100, MeanWithout: 1}, 0.75},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EfficacyFactor(tt.e); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("EfficacyFactor = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestHybridKeepsTheKeywordRule: in hybrid mode the embedding reorders what
// keyword evidence supports and may veto it, but never adds a skill the
// keyword rule leaves out: a request keyword mode gives nothing gets
// nothing, a skill found by its vector alone is not injected, and the
// share of the best is BM25F's.
func TestHybridKeepsTheKeywordRule(t *testing.T) {
	t.Parallel()
	up := fakeupstream.New()
	base, err := up.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	up.SetEmbeddingDim(4096)
	db := openDB(t)
	ctx := context.Background()
	if _, err := InstallStarter(ctx, db, assets.Skills()); err != nil {
		t.Fatal(err)
	}
	ev := DefaultEvidence
	ev.CosineLow, ev.CosineHigh, ev.MinFused = 0, 0.5, 0.3 // the fake's similarities are low
	opts := Options{TopK: 6, Candidates: 10, GeneralTopK: 2, MaxTokens: 4000, Evidence: ev}
	opts.Mode = ModeKeyword
	kw := NewRetriever(db, opts, nil)
	defer kw.Close()
	opts.Mode = ModeHybrid
	hy := NewRetriever(db, opts, retrieval.NewEmbedder(db, base+"/v1", "k", "fake-embed"))
	defer hy.Close()
	if err := hy.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"write a git commit message for my change",
		"my pytest run fails with ModuleNotFoundError after upgrading",
		"what's the weather in Lisbon tomorrow",
		"thanks, that's all",
		"review this pull request and check the error handling",
		"message me when the change is done",
	} {
		msgs := []Message{{Role: "user", Text: q}}
		k, err := kw.Select(ctx, msgs)
		if err != nil {
			t.Fatal(err)
		}
		h, err := hy.Select(ctx, msgs)
		if err != nil {
			t.Fatal(err)
		}
		if len(k.Skills) == 0 && len(h.Skills) > 0 {
			t.Errorf("%q: keyword mode injects nothing, hybrid %v", q, h.IDs)
		}
		top, vectorOnly := 0.0, 0
		for _, c := range h.Considered {
			top = math.Max(top, c.Score)
			if c.Score == 0 {
				vectorOnly++
			}
		}
		for _, c := range h.Considered {
			if top > 0 && math.Abs(c.Relative-c.Score/top) > 1e-9 {
				t.Errorf("%q: %s relative %.3f, BM25F share %.3f", q, c.Skill.Name, c.Relative, c.Score/top)
			}
			if !c.Injected {
				continue
			}
			if c.Score == 0 || c.HeadTerms == 0 || c.Coverage < ev.MinCoverage || c.Fused < ev.MinFused {
				t.Errorf("%q: %s injected without the evidence: score %.2f head %d coverage %.2f fused %.2f", q, c.Skill.Name, c.Score, c.HeadTerms, c.Coverage, c.Fused)
			}
		}
		t.Logf("%q: keyword %v, hybrid %v (%d candidates by vector only)", q, k.IDs, h.IDs, vectorOnly)
	}
}
