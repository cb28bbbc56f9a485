package skills

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/metaclaw/metaclaw/app/learner/retrieval"
	"github.com/metaclaw/metaclaw/assets"
	"github.com/metaclaw/metaclaw/store"
)

// TestRecentSelections: through an agent's tool loop the query repeats and
// is answered from the library's recent selections; a changed skill makes
// a new library, so the next turn sees the change; a hybrid search that
// lost its embeddings is not remembered.
func TestRecentSelections(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx := context.Background()
	if _, err := InstallStarter(ctx, db, assets.Skills()); err != nil {
		t.Fatal(err)
	}
	r := NewRetriever(db, Options{Mode: ModeKeyword, TopK: 3, Candidates: 10, GeneralTopK: 1, MaxTokens: 1500}, nil)
	t.Cleanup(r.Close)
	loop := []Message{{Role: "user", Text: "write a git commit message for my change"}}
	first, err := r.Select(ctx, loop)
	if err != nil || len(first.Skills) == 0 {
		t.Fatalf("select: %v, %v", first.IDs, err)
	}
	lib, _ := r.lib.current(ctx)
	if _, ok := lib.recent.get(first.Query); !ok {
		t.Fatal("the selection was not remembered")
	}
	// The agent's next turn: an assistant tool call and its result.
	loop = append(loop, Message{Role: "assistant", Text: "Reading the diff."}, Message{Role: "tool", Text: "diff --git a/x b/x"})
	again, err := r.Select(ctx, loop)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first, again, cmpopts.EquateNaNs()); diff != "" {
		t.Errorf("the repeated query chose differently (-first +again):\n%s", diff)
	}

	// Edit the first chosen skill: once the background refresh ran, the
	// next selection shows the new body.
	s := first.Skills[0]
	in := store.SkillInput{Name: s.Name, Description: s.Description, Category: s.Category, Tags: s.Tags,
		Body: s.Body + "\n\nAlways mention the ticket number.", Source: s.Source}
	if _, changed, err := db.PutSkill(ctx, in); err != nil || !changed {
		t.Fatalf("put skill: changed %v, %v", changed, err)
	}
	if err := r.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	edited, err := r.Select(ctx, loop)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(edited.Text, "Always mention the ticket number.") {
		t.Errorf("the edited skill is not in the next selection:\n%s", edited.Text)
	}

	// Hybrid with the embeddings endpoint down falls back to keywords, and
	// that fallback is not remembered.
	down := NewRetriever(db, Options{Mode: ModeHybrid, TopK: 3, Candidates: 10},
		retrieval.NewEmbedder(db, "http://127.0.0.1:1/v1", "k", "unreachable-model"))
	t.Cleanup(down.Close)
	sel, err := down.Select(ctx, loop)
	if err != nil || len(sel.Skills) == 0 {
		t.Fatalf("hybrid with embeddings down: %v, %v", sel.IDs, err)
	}
	lib, _ = down.lib.current(ctx)
	if _, ok := lib.recent.get(sel.Query); ok {
		t.Error("a keyword-only fallback was remembered")
	}
}
