package skills

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/metaclaw/metaclaw/store"
)

// TestLibraryFollowsTheStore: the retriever's library follows changes
// made through another handle on the same database (another process, such
// as the CLI: no epoch, only the stamp) — added, edited, disabled,
// enabled and deleted skills — reading every head again only when a skill
// was deleted.
func TestLibraryFollowsTheStore(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "metaclaw.db")
	open := func() *store.DB {
		db, err := store.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	db, cli := open(), open()
	ctx := context.Background()
	put := func(name, body string) {
		t.Helper()
		if _, _, err := cli.PutSkill(ctx, store.SkillInput{Name: name, Description: "Use when " + name + ".", Body: body}); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"alpha", "beta", "gamma"} {
		put(n, "Steps for "+n+".")
	}
	r := NewRetriever(db, Options{Mode: ModeKeyword, TopK: 6, Candidates: 10, GeneralTopK: 1, MaxTokens: 1500}, nil)
	t.Cleanup(r.Close)
	indexed := func(want ...string) {
		t.Helper()
		if err := r.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		var got []string
		r.lib.cur.Load().ix.Each(func(_ int64, sk store.Skill, _ []float32) bool {
			got = append(got, sk.Name+": "+sk.Body)
			return true
		})
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("indexed %q, want %q", got, want)
		}
	}
	indexed("alpha: Steps for alpha.", "beta: Steps for beta.", "gamma: Steps for gamma.")
	full := r.lib.fullAt

	put("beta", "New steps for beta.")
	must(t, cli.SetSkillEnabled(ctx, "gamma", false))
	indexed("alpha: Steps for alpha.", "beta: New steps for beta.")
	must(t, cli.SetSkillEnabled(ctx, "gamma", true))
	indexed("alpha: Steps for alpha.", "beta: New steps for beta.", "gamma: Steps for gamma.")
	if r.lib.fullAt != full {
		t.Error("an edit, a disable and an enable read every head again")
	}

	// A deletion and an addition between two looks.
	must(t, cli.DeleteSkill(ctx, "alpha"))
	put("delta", "Steps for delta.")
	indexed("beta: New steps for beta.", "delta: Steps for delta.", "gamma: Steps for gamma.")
	if r.lib.fullAt == full {
		t.Error("a deletion did not read every head again")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
