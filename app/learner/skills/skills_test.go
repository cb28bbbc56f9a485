package skills

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

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

func TestSkillFileAsks(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", MaxAskLen)
	file := "---\nname: tls-renewal\ndescription: Renew a TLS certificate.\nasks:\n  - the browser says my shop is not secure\n" +
		"  - '  the browser says my shop is NOT secure '\n  - ''\n  - " + long + "\n---\nRun certbot renew.\n"
	in, err := Parse([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Asks) != 2 || in.Asks[0] != "the browser says my shop is not secure" || len(in.Asks[1]) > MaxAskLen ||
		!utf8.ValidString(in.Asks[1]) {
		t.Errorf("asks = %q", in.Asks)
	}
	out := Format(store.Skill{Name: in.Name, Description: in.Description, Body: in.Body, Asks: in.Asks})
	again, err := Parse(out)
	if err != nil || !slices.Equal(again.Asks, in.Asks) {
		t.Errorf("round trip: %q, %v\n%s", again.Asks, err, out)
	}
	// The key is ours: a value of another shape is ignored, never refused.
	for _, v := range []string{"one ask as a string", "{a: 1}", "[1, [2]]"} {
		in, err := Parse([]byte("---\nname: a\ndescription: d\nasks: " + v + "\n---\nbody\n"))
		if err != nil {
			t.Errorf("asks: %s refused the skill: %v", v, err)
		}
		if v == "one ask as a string" && !slices.Equal(in.Asks, []string{v}) {
			t.Errorf("asks: %s = %q", v, in.Asks)
		}
	}
	if f := Format(store.Skill{Name: "a", Description: "d", Body: "b"}); strings.Contains(string(f), "asks") {
		t.Errorf("a skill without asks has an asks: key:\n%s", f)
	}
	many := make([]string, MaxAsks+5)
	for i := range many {
		many[i] = strings.Repeat("x", i+1)
	}
	if got := NormAsks(many); len(got) != MaxAsks {
		t.Errorf("NormAsks kept %d of %d", len(got), len(many))
	}
}
