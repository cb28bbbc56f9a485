package skillfolder

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/metaclaw/metaclaw/app/learner/skills"
	"github.com/metaclaw/metaclaw/store"
)

type harness struct {
	t   *testing.T
	db  *store.DB
	dir string
	now time.Time
	f   *Folder
}

// newHarness opens a database and a folder whose clock runs a minute
// ahead, so that every file written counts as settled unless a test says.
func newHarness(t *testing.T) *harness {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "metaclaw.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	h := &harness{t: t, db: db, dir: filepath.Join(t.TempDir(), "skills"), now: time.Now().Add(time.Minute)}
	h.f = h.folder()
	return h
}

func (h *harness) folder() *Folder {
	return New(Options{DB: h.db, Dir: h.dir, Now: func() time.Time { return h.now }})
}

func (h *harness) sync() Report {
	h.t.Helper()
	rep, err := h.f.Sync(context.Background())
	if err != nil {
		h.t.Fatal(err)
	}
	return rep
}

func (h *harness) write(rel, content string) {
	h.t.Helper()
	p := filepath.Join(h.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) read(rel string) string {
	data, err := os.ReadFile(filepath.Join(h.dir, filepath.FromSlash(rel)))
	if err != nil {
		return ""
	}
	return string(data)
}

func (h *harness) skill(name string) (store.Skill, int) {
	h.t.Helper()
	s, err := h.db.Skill(context.Background(), name)
	if err != nil {
		return s, 0
	}
	vs, err := h.db.SkillVersions(context.Background(), name)
	if err != nil {
		h.t.Fatal(err)
	}
	return s, len(vs)
}

func skillFile(name, desc, body string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\ncategory: coding\n---\n" + body + "\n"
}

func (h *harness) put(name, body string) {
	h.t.Helper()
	_, _, err := h.db.PutSkill(context.Background(), store.SkillInput{Name: name, Description: "Use when testing " + name + ".",
		Category: "coding", Body: body, Source: "test"})
	if err != nil {
		h.t.Fatal(err)
	}
}

func TestFilesBecomeSkillsAndSkillsBecomeFiles(t *testing.T) {
	h := newHarness(t)
	h.put("alpha", "Alpha body.")
	h.write("beta/SKILL.md", skillFile("beta", "Use when beta things happen.", "Beta body."))
	h.write("gamma.md", skillFile("gamma", "Use when gamma things happen.", "Gamma body."))
	rep := h.sync()
	want := Report{Imported: []string{"beta", "gamma"}, Written: []string{"alpha/SKILL.md"}}
	if d := cmp.Diff(want, rep); d != "" {
		t.Fatalf("first pass (-want +got):\n%s", d)
	}
	if s, n := h.skill("beta"); s.Source != "folder" || s.Body != "Beta body." || n != 1 || !s.Enabled {
		t.Errorf("beta = %+v (%d versions)", s, n)
	}
	if got := h.read("alpha/SKILL.md"); !strings.Contains(got, "Alpha body.") || !strings.Contains(got, "version: 1\n") {
		t.Errorf("alpha's file:\n%s", got)
	}
	// The files MetaClaw wrote are not imported back, on this pass or after
	// a restart (a new Folder, the same database).
	for i, f := range []*Folder{h.f, h.folder()} {
		h.f = f
		h.now = h.now.Add(time.Minute)
		if rep := h.sync(); rep.Changed() || len(rep.Broken) > 0 {
			t.Errorf("pass %d after the first changed something: %+v", i+2, rep)
		}
	}
	for _, name := range []string{"alpha", "beta", "gamma"} {
		if _, n := h.skill(name); n != 1 {
			t.Errorf("%s has %d versions, want 1", name, n)
		}
	}
}

func TestEditsDeletesAndEvolution(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	h.write("beta/SKILL.md", skillFile("beta", "Use when beta things happen.", "Beta body."))
	h.put("alpha", "Alpha body.")
	h.sync()

	h.write("beta/SKILL.md", skillFile("beta", "Use when beta things happen.", "Beta body, edited."))
	if rep := h.sync(); cmp.Diff([]string{"beta"}, rep.Imported) != "" {
		t.Errorf("edit: %+v", rep)
	}
	if s, n := h.skill("beta"); s.Body != "Beta body, edited." || s.Version != 2 || n != 2 {
		t.Errorf("after edit beta = v%d %q (%d versions)", s.Version, s.Body, n)
	}

	os.Remove(filepath.Join(h.dir, "beta", "SKILL.md"))
	if rep := h.sync(); cmp.Diff([]string{"beta"}, rep.Disabled) != "" {
		t.Errorf("delete: %+v", rep)
	}
	if s, n := h.skill("beta"); s.Enabled || n != 2 {
		t.Errorf("deleted file left beta enabled=%v with %d versions", s.Enabled, n)
	}
	if rep := h.sync(); rep.Changed() {
		t.Errorf("a disabled skill came back: %+v", rep)
	}

	// Evolution's update is written to the file; its retirement removes it.
	if _, err := h.db.ApplyEvolution(ctx, []store.SkillChange{{Op: "update", Input: store.SkillInput{Name: "alpha",
		Description: "Use when testing alpha.", Category: "coding", Body: "Alpha body, evolved.", Source: "evolution"}}},
		store.Evolution{SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
	if rep := h.sync(); cmp.Diff([]string{"alpha/SKILL.md"}, rep.Written) != "" || len(rep.Imported) > 0 {
		t.Errorf("evolution update: %+v", rep)
	}
	if got := h.read("alpha/SKILL.md"); !strings.Contains(got, "Alpha body, evolved.") || !strings.Contains(got, "version: 2") {
		t.Errorf("alpha's file after evolution:\n%s", got)
	}
	if _, err := h.db.ApplyEvolution(ctx, []store.SkillChange{{Op: "retire", Input: store.SkillInput{Name: "alpha"}}},
		store.Evolution{SessionID: "s2"}); err != nil {
		t.Fatal(err)
	}
	if rep := h.sync(); cmp.Diff([]string{"alpha/SKILL.md"}, rep.Removed) != "" {
		t.Errorf("evolution retire: %+v", rep)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "alpha")); !os.IsNotExist(err) {
		t.Errorf("retired skill's folder is still there: %v", err)
	}
	if s, n := h.skill("alpha"); !s.Retired || n != 2 {
		t.Errorf("alpha after retire: retired=%v, %d versions", s.Retired, n)
	}

	// Putting the file back brings the skill back.
	h.write("beta/SKILL.md", skillFile("beta", "Use when beta things happen.", "Beta body, edited."))
	if rep := h.sync(); cmp.Diff([]string{"beta"}, rep.Imported) != "" {
		t.Errorf("file back: %+v", rep)
	}
	if s, n := h.skill("beta"); !s.Enabled || n != 2 {
		t.Errorf("beta back: enabled=%v, %d versions", s.Enabled, n)
	}
}

func TestBrokenFilesAreSkippedWhole(t *testing.T) {
	h := newHarness(t)
	h.write("beta/SKILL.md", skillFile("beta", "Use when beta things happen.", "Beta body."))
	h.sync()
	tests := []struct {
		name, rel, content, wantErr string
	}{
		{"bad yaml", "beta/SKILL.md", "---\nname: beta\ndescription: [unclosed\n---\nBody.\n", "front matter"},
		{"no front matter", "notes.md", "just some notes\n", "missing front matter"},
		{"wrong directory", "delta/SKILL.md", skillFile("epsilon", "Use when epsilon.", "E."), "does not match its directory"},
		{"duplicate name", "zeta.md", skillFile("beta", "Use when beta.", "Other."), `skill "beta" is also in`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.write(tt.rel, tt.content)
			rep := h.sync()
			var found bool
			for _, b := range rep.Broken {
				found = found || (b.Path == tt.rel && strings.Contains(b.Err, tt.wantErr))
			}
			if !found || rep.Changed() {
				t.Errorf("report %+v, want %s broken with %q and nothing changed", rep, tt.rel, tt.wantErr)
			}
			if s, n := h.skill("beta"); !s.Enabled || s.Body != "Beta body." || n != 1 {
				t.Errorf("beta changed by a broken file: %+v (%d versions)", s, n)
			}
			if _, n := h.skill("epsilon"); n != 0 {
				t.Error("a file in the wrong directory became a skill")
			}
			if sum, ok, _ := ReadSummary(context.Background(), h.db); !ok || len(sum.Broken) == 0 {
				t.Errorf("summary %+v lacks the broken file", sum)
			}
			if tt.rel == "beta/SKILL.md" {
				h.write(tt.rel, skillFile("beta", "Use when beta things happen.", "Beta body."))
			} else {
				os.Remove(filepath.Join(h.dir, filepath.FromSlash(tt.rel)))
			}
		})
	}
}

func TestHalfWrittenFileWaits(t *testing.T) {
	h := newHarness(t)
	h.now = time.Now() // files written now are not settled yet
	full := skillFile("beta", "Use when beta things happen.", "First half. Second half.")
	h.write("beta/SKILL.md", full[:len(full)-14]) // an editor mid-save
	if rep := h.sync(); len(rep.Imported) > 0 || cmp.Diff([]string{"beta/SKILL.md"}, rep.Waiting) != "" {
		t.Fatalf("a file being written was read: %+v", rep)
	}
	h.write("beta/SKILL.md", full) // the save goes on: size and time change
	if rep := h.sync(); len(rep.Imported) > 0 {
		t.Fatalf("a file still changing was read: %+v", rep)
	}
	if rep := h.sync(); cmp.Diff([]string{"beta"}, rep.Imported) != "" {
		t.Fatalf("a settled file was not read: %+v", rep)
	}
	if s, n := h.skill("beta"); s.Body != "First half. Second half." || n != 1 {
		t.Errorf("beta = %q (%d versions), want the whole file once", s.Body, n)
	}
}

func TestChangesWhileStopped(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	h.put("alpha", "Alpha body.")
	h.put("omega", "Omega body.")
	h.write("beta/SKILL.md", skillFile("beta", "Use when beta things happen.", "Beta body."))
	h.sync()
	// MetaClaw stops; the person deletes a file, the CLI deletes a skill.
	os.Remove(filepath.Join(h.dir, "beta", "SKILL.md"))
	if err := h.db.DeleteSkill(ctx, "omega"); err != nil {
		t.Fatal(err)
	}
	h.f = h.folder()
	rep := h.sync()
	if cmp.Diff([]string{"beta"}, rep.Disabled) != "" || cmp.Diff([]string{"omega/SKILL.md"}, rep.Removed) != "" {
		t.Errorf("after restart: %+v", rep)
	}
}

// A file whose category is unknown becomes a skill filed under general
// (its category kept as a tag); every pass's report and the saved summary
// list it with the note, and the log says so once per content.
func TestUnknownCategoryFiledUnderGeneral(t *testing.T) {
	h := newHarness(t)
	var logged strings.Builder
	h.f = New(Options{DB: h.db, Dir: h.dir, Now: func() time.Time { return h.now },
		Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	h.write("odd/SKILL.md", "---\nname: odd\ndescription: Use when odd things happen.\ncategory: astrology\n---\nOdd body.\n")
	h.write("data/SKILL.md", "---\nname: data\ndescription: Use when data is analysed.\ncategory: data_analysis\n---\nData body.\n")
	for pass := range 3 {
		h.now = h.now.Add(time.Minute) // past fullEvery: a full pass each time
		rep := h.sync()
		want := []Notice{{Path: "odd/SKILL.md", Note: `category "astrology" is not one of ` + strings.Join(skills.Categories, ", ") +
			`: filed under general (tag "astrology" keeps it)`}}
		if diff := cmp.Diff(want, rep.Notices); diff != "" || len(rep.Broken) > 0 {
			t.Errorf("pass %d: notices (-want +got):\n%s broken %v", pass, diff, rep.Broken)
		}
		if sum, ok, _ := ReadSummary(context.Background(), h.db); !ok || !cmp.Equal(want, sum.Notices) {
			t.Errorf("pass %d: summary notices %+v", pass, sum.Notices)
		}
	}
	if s, _ := h.skill("odd"); s.Category != "general" || !slices.Contains(s.Tags, "astrology") {
		t.Errorf("odd: category %q, tags %v", s.Category, s.Tags)
	}
	if s, _ := h.skill("data"); s.Category != "data-analysis" {
		t.Errorf("data_analysis became %q", s.Category)
	}
	if n := strings.Count(logged.String(), `msg="skill file filed under general"`); n != 1 {
		t.Errorf("the log said it %d times, want once:\n%s", n, logged.String())
	}
}

// TestReferenceBankThroughTheFolder copies a bank of 36 skills written in
// the reference MetaClaw's layout and categories (data_analysis,
// common_mistakes and one unknown, devops) into the folder, as the
// reference's README has people do: every file becomes a skill, none is
// refused, the unknown category is noticed once and filed under general.
func TestReferenceBankThroughTheFolder(t *testing.T) {
	h := newHarness(t)
	if err := os.CopyFS(h.dir, os.DirFS("../skills/testdata/reference-bank-36")); err != nil {
		t.Fatal(err)
	}
	rep := h.sync()
	if len(rep.Imported) != 36 || len(rep.Broken) != 0 || len(rep.Waiting) != 0 {
		t.Fatalf("imported %d, broken %v, waiting %v; want 36 and none", len(rep.Imported), rep.Broken, rep.Waiting)
	}
	if len(rep.Notices) != 1 || rep.Notices[0].Path != "container-image-hygiene/SKILL.md" || !strings.Contains(rep.Notices[0].Note, `"devops"`) {
		t.Errorf("notices %+v, want the devops file once", rep.Notices)
	}
	all, err := h.db.Skills(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	cats := map[string]int{}
	for _, s := range all {
		cats[s.Category]++
	}
	want := map[string]int{"coding": 5, "data-analysis": 4, "agentic": 4, "common_mistakes": 4, "research": 3, "security": 3,
		"communication": 3, "automation": 3, "productivity": 3, "general": 4}
	if diff := cmp.Diff(want, cats); diff != "" {
		t.Errorf("categories (-want +got):\n%s", diff)
	}
}
