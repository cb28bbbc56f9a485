package skills

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/metaclaw/metaclaw/assets"
	"github.com/metaclaw/metaclaw/proxy/learning"
)

// TestInjectSelectsSkills: as the proxy's injector the retriever answers
// with the text and the "skill:<name>@<version>" ids of what Select chose.
func TestInjectSelectsSkills(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx := context.Background()
	if _, err := InstallStarter(ctx, db, assets.Skills()); err != nil {
		t.Fatal(err)
	}
	r := NewRetriever(db, Options{Mode: ModeKeyword, TopK: 3, Candidates: 10, GeneralTopK: 1, MaxTokens: 1500}, nil)
	t.Cleanup(r.Close)
	var inj learning.Injector = r
	if inj.Name() != "skills" {
		t.Errorf("name %q", inj.Name())
	}
	msgs := []learning.Message{{Role: "system", Text: "You are a coding agent."}, {Role: "user", Text: "write a git commit message for my change"}}
	got, err := inj.Inject(ctx, learning.InjectRequest{API: "openai", Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	sel, err := r.Select(ctx, msgs)
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != sel.Text || !slices.Equal(got.IDs, sel.IDs) || len(got.IDs) == 0 {
		t.Fatalf("inject %v, select %v", got.IDs, sel.IDs)
	}
	if !slices.ContainsFunc(got.IDs, func(id string) bool { return strings.HasPrefix(id, "skill:write-commit-message@") }) {
		t.Errorf("ids %v lack write-commit-message", got.IDs)
	}
}
