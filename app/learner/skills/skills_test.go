package skills

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/metaclaw/metaclaw/store"
)

func openDB(t testing.TB) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "metaclaw.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, file, errHas string }{
		{"ok", "---\nname: a-b\ndescription: When X.\ncategory: coding\ntags: [x]\n---\nDo Y.\n", ""},
		{"crlf", "---\r\nname: a-b\r\ndescription: When X.\r\n---\r\nDo Y.\r\n", ""},
		{"no front matter", "# title\n", "missing front matter"},
		{"unclosed", "---\nname: a\n", "not closed"},
		{"bad yaml", "---\nname: [a\n---\nbody\n", "front matter"},
		{"no name", "---\ndescription: d\n---\nbody\n", "name is missing"},
		{"bad name", "---\nname: Not_Kebab\ndescription: d\n---\nbody\n", "kebab-case"},
		{"no description", "---\nname: a\n---\nbody\n", "description is missing"},
		{"empty body", "---\nname: a\ndescription: d\n---\n\n", "body is empty"},
		{"unknown category is kept, not refused", "---\nname: a\ndescription: d\ncategory: cooking\n---\nbody\n", ""},
		{"invalid utf8", "---\nname: a\ndescription: \xff\n---\nbody\n", "UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.file))
			if tt.errHas == "" && err != nil || tt.errHas != "" && (err == nil || !strings.Contains(err.Error(), tt.errHas)) {
				t.Errorf("Parse error = %v, want %q", err, tt.errHas)
			}
		})
	}
}

func TestImportAndExport(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx := context.Background()
	rep, err := ImportDir(ctx, db, "testdata/import")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"flat-skill", "good-skill"}, rep.Added); diff != "" {
		t.Errorf("added: %s", diff)
	}
	var bad []string
	for _, e := range rep.Errors {
		bad = append(bad, e.Path)
	}
	sort.Strings(bad)
	if diff := cmp.Diff([]string{"Bad_Name.md", "bad-yaml/SKILL.md", "no-front/SKILL.md", "wrong-dir/SKILL.md"}, bad); diff != "" {
		t.Errorf("reported errors: %s\n%v", diff, rep.Errors)
	}
	for _, name := range []string{"bad-yaml", "other-name", "Bad_Name"} {
		if _, err := db.Skill(ctx, name); err == nil {
			t.Errorf("invalid skill %s was half-imported", name)
		}
	}
	s, _ := db.Skill(ctx, "good-skill")
	if diff := cmp.Diff([]string{"testing", "pytest"}, s.Tags); diff != "" || s.Source != "import" {
		t.Errorf("tags/source: %s %s", diff, s.Source)
	}
	rep, _ = ImportDir(ctx, db, "testdata/import")
	if len(rep.Unchanged) != 2 || len(rep.Added) != 0 {
		t.Errorf("re-import: %+v", rep)
	}
	out := t.TempDir()
	if n, err := ExportDir(ctx, db, out); err != nil || n != 2 {
		t.Fatalf("export = %d, %v", n, err)
	}
	db2 := openDB(t)
	rep, err = ImportDir(ctx, db2, out)
	if err != nil || len(rep.Added) != 2 || len(rep.Errors) != 0 {
		t.Fatalf("re-import of export: %+v, %v", rep, err)
	}
	back, _ := db2.Skill(ctx, "good-skill")
	if back.Body != s.Body || back.Description != s.Description || back.Category != s.Category || !cmp.Equal(back.Tags, s.Tags) {
		t.Errorf("round trip changed the skill:\n%+v\n%+v", s, back)
	}
	if _, err := ImportDir(ctx, db, "testdata/import/flat-skill.md"); err == nil {
		t.Error("importing a file as a directory succeeded")
	}
	os.RemoveAll(out)
}
