package skills

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNormalizeCategory(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		known    bool
	}{
		{"coding", "coding", true},
		{"data_analysis", "data-analysis", true},
		{" Data-Analysis ", "data-analysis", true},
		{"common_mistakes", "common_mistakes", true},
		{"common-mistakes", "common_mistakes", true},
		{"", "", true},
		{"DevOps", "devops", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, known := NormalizeCategory(tt.in)
			if got != tt.want || known != tt.known {
				t.Errorf("NormalizeCategory(%q) = %q, %v; want %q, %v", tt.in, got, known, tt.want, tt.known)
			}
		})
	}
}

// TestImportReferenceBank imports a bank in the reference MetaClaw's
// layout and categories (data_analysis, common_mistakes, general, none, and
// one it does not know): every skill is imported, none refused; the
// unknown category is said once and filed under general with its name
// kept as a tag.
func TestImportReferenceBank(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx := context.Background()
	rep, err := ImportDir(ctx, db, "testdata/reference-bank")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(rep.Added)
	want := []string{"avoid-guessing-names", "container-image-size", "data-validation-check", "plain-skill", "structured-reasoning"}
	if diff := cmp.Diff(want, rep.Added); diff != "" || len(rep.Errors) > 0 {
		t.Fatalf("added (-want +got):\n%s\nerrors: %v", diff, rep.Errors)
	}
	if len(rep.Notices) != 1 || rep.Notices[0].Path != "container-image-size/SKILL.md" ||
		!strings.Contains(rep.Notices[0].Err.Error(), `"devops"`) || !strings.Contains(rep.Notices[0].Err.Error(), "general") {
		t.Errorf("notices: %v", rep.Notices)
	}
	cats := map[string]string{}
	for _, name := range want {
		s, err := db.Skill(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		cats[name] = s.Category
		if name == "container-image-size" && !strings.Contains(strings.Join(s.Tags, ","), "devops") {
			t.Errorf("the unknown category was lost: tags %v", s.Tags)
		}
	}
	wantCats := map[string]string{"avoid-guessing-names": "common_mistakes", "container-image-size": "general",
		"data-validation-check": "data-analysis", "plain-skill": "", "structured-reasoning": "general"}
	if diff := cmp.Diff(wantCats, cats); diff != "" {
		t.Errorf("categories (-want +got):\n%s", diff)
	}
	again, err := ImportDir(ctx, db, "testdata/reference-bank")
	if err != nil || len(again.Unchanged) != 5 {
		t.Errorf("second import: %+v, %v", again, err)
	}
}
