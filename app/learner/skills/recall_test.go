package skills

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/metaclaw/metaclaw/assets"
)

type labelled struct {
	Query  string   `json:"query"`
	Expect []string `json:"expect"`
}

func loadQueries(t testing.TB) []labelled {
	t.Helper()
	data, err := os.ReadFile("testdata/queries.json")
	if err != nil {
		t.Fatal(err)
	}
	var qs []labelled
	if err := json.Unmarshal(data, &qs); err != nil {
		t.Fatal(err)
	}
	return qs
}

// TestRecallAt6 measures keyword retrieval over the starter bank on the
// labelled queries: recall@6 of the expected skills, and how many of the
// queries that need no skill get none. Run with -v to see the figures.
func TestRecallAt6(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx := context.Background()
	rep, err := InstallStarter(ctx, db, assets.Skills())
	if err != nil || len(rep.Errors) > 0 || len(rep.Added) < 40 {
		t.Fatalf("starter bank: %d added, errors %v, %v", len(rep.Added), rep.Errors, err)
	}
	qs := loadQueries(t)
	if len(qs) < 30 {
		t.Fatalf("only %d labelled queries", len(qs))
	}
	opts := Options{Mode: ModeKeyword, TopK: 6, Candidates: 10, GeneralTopK: 2, MaxTokens: 0}
	r := NewRetriever(db, opts, nil)
	t.Cleanup(r.Close)
	found, expected, quiet, noSkill := 0, 0, 0, 0
	for _, q := range qs {
		sel, err := r.Select(ctx, []Message{{Role: "user", Text: q.Query}})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for i, s := range sel.Skills {
			if i < 6 {
				got[s.Name] = true
			}
		}
		if len(q.Expect) == 0 {
			noSkill++
			if len(sel.Skills) == 0 {
				quiet++
			} else {
				t.Logf("no-skill query %q got %v", q.Query, sel.IDs)
			}
			continue
		}
		for _, name := range q.Expect {
			if _, err := db.Skill(ctx, name); err != nil {
				t.Errorf("label %q of %q is not in the bank", name, q.Query)
			}
			expected++
			if got[name] {
				found++
			} else {
				t.Logf("missed %s for %q (got %v)", name, q.Query, sel.IDs)
			}
		}
	}
	recall := float64(found) / float64(expected)
	t.Logf("recall@6 = %.3f (%d of %d expected skills); %d of %d no-skill queries got none", recall, found, expected, quiet, noSkill)
	if recall < 0.8 {
		t.Errorf("recall@6 = %.3f, want ≥ 0.8", recall)
	}
	if noSkill < 6 || quiet < noSkill-1 {
		t.Errorf("%d of %d no-skill queries got none", quiet, noSkill)
	}
}
