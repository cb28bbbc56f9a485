package skills

import (
	"context"
	"strings"
	"testing"

	"github.com/metaclaw/metaclaw/assets"
	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
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
	emb := NewEmbedder(db, base+"/v1", "k", "fake-embed")
	for _, mode := range []string{ModeEmbedding, ModeHybrid} {
		opts := Options{Mode: mode, TopK: 3, Candidates: 10, GeneralTopK: 1, MaxTokens: 1500, MinBM25: DefaultMinBM25, MinCosine: 0.2}
		r := NewRetriever(db, opts, emb)
		sel, err := r.Select(ctx, []Message{{Role: "user", Text: "write a git commit message for my change"}})
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if len(sel.Skills) == 0 || !strings.Contains(strings.Join(sel.IDs, " "), "commit") {
			t.Errorf("%s: selected %v", mode, sel.IDs)
		}
		if sel.Tokens > 1500 {
			t.Errorf("%s: %d tokens over budget", mode, sel.Tokens)
		}
	}
	calls := len(up.Requests())
	r := NewRetriever(db, Options{Mode: ModeEmbedding, TopK: 3, Candidates: 10, MinCosine: 0.2}, emb)
	if _, err := r.Select(ctx, []Message{{Role: "user", Text: "write a git commit message for my change"}}); err != nil {
		t.Fatal(err)
	}
	if got := len(up.Requests()); got != calls {
		t.Errorf("cached vectors were fetched again: %d new calls", got-calls)
	}
	// Hybrid survives an embeddings outage by falling back to keywords.
	up.Close()
	r = NewRetriever(db, Options{Mode: ModeHybrid, TopK: 3, Candidates: 10, MinBM25: DefaultMinBM25, MinCosine: 0.2}, NewEmbedder(db, base+"/v1", "k", "other-model"))
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
	r := NewRetriever(db, Options{Mode: ModeKeyword, TopK: 6, Candidates: 10, GeneralTopK: 2, MaxTokens: 400, MinBM25: DefaultMinBM25}, nil)
	sel, _ := r.Select(ctx, q)
	if sel.Tokens > 400 || len(sel.Skills) == 0 {
		t.Errorf("budget 400: %d tokens, %d skills", sel.Tokens, len(sel.Skills))
	}
	r = NewRetriever(db, Options{Mode: ModeKeyword, TopK: 2, Candidates: 10, GeneralTopK: 0, MinBM25: DefaultMinBM25}, nil)
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
