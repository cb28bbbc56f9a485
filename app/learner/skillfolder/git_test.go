package skillfolder

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/metaclaw/metaclaw/store"
)

func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// member is one person's MetaClaw whose skills folder is a clone of the
// team's repository.
func member(t *testing.T, bare string) *harness {
	h := newHarness(t)
	os.MkdirAll(h.dir, 0o755)
	gitRun(t, h.dir, "init", "-q", "-b", "main")
	gitRun(t, h.dir, "remote", "add", "origin", bare)
	return h
}

func (h *harness) gitSync() GitReport {
	h.t.Helper()
	t := h.t
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null") // no author configured: MetaClaw signs
	rep, err := h.f.GitSync(context.Background())
	if err != nil {
		t.Fatalf("git sync: %v", err)
	}
	return rep
}

func TestGitSyncSharesTheLibrary(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ctx := context.Background()
	bare := filepath.Join(t.TempDir(), "team.git")
	gitRun(t, ".", "init", "-q", "--bare", "-b", "main", bare)
	a, b := member(t, bare), member(t, bare)
	a.put("alpha", "Alpha body.")
	a.put("beta", "Beta body.")
	b.put("gamma", "Gamma body.")

	if rep := a.gitSync(); !rep.Committed || !rep.Pushed || rep.Pulled {
		t.Fatalf("first push: %+v", rep)
	}
	rep := b.gitSync()
	if !rep.Pulled || !rep.Pushed || cmp.Diff([]string{"alpha", "beta"}, rep.After.Imported) != "" || len(rep.Conflicts) > 0 {
		t.Fatalf("second member's sync: %+v", rep)
	}
	if rep := a.gitSync(); cmp.Diff([]string{"gamma"}, rep.After.Imported) != "" {
		t.Fatalf("first member got %+v, want gamma", rep.After)
	}

	// A's evolution makes alpha version 2; B edits alpha by hand (its file
	// still says version 1): A's higher version wins, B's edit is history.
	if _, err := a.db.ApplyEvolution(ctx, []store.SkillChange{{Op: "update", Input: store.SkillInput{Name: "alpha",
		Description: "Use when testing alpha.", Category: "coding", Body: "Alpha, evolved by A.", Source: "evolution"}}},
		store.Evolution{SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
	a.gitSync()
	b.write("alpha/SKILL.md", strings.Replace(b.read("alpha/SKILL.md"), "Alpha body.", "Alpha, edited by B.", 1))
	rep = b.gitSync()
	want := []Conflict{{Path: "alpha/SKILL.md", Skill: "alpha", Kept: "theirs", Why: "both changed it; version 2 beats version 1", History: 2}}
	if d := cmp.Diff(want, rep.Conflicts); d != "" {
		t.Fatalf("conflict (-want +got):\n%s", d)
	}
	if s, _ := b.skill("alpha"); s.Body != "Alpha, evolved by A." {
		t.Errorf("B's alpha = %q, want A's evolved version", s.Body)
	}
	if vs, _ := b.db.SkillVersions(ctx, "alpha"); !hasBody(vs, "Alpha, edited by B.") {
		t.Error("B's own edit is not in alpha's history")
	}

	// Both edit beta by hand from the same version: a tie keeps each
	// side's own edit current and the other's in the history.
	a.write("beta/SKILL.md", strings.Replace(a.read("beta/SKILL.md"), "Beta body.", "Beta, A's way.", 1))
	a.gitSync()
	b.write("beta/SKILL.md", strings.Replace(b.read("beta/SKILL.md"), "Beta body.", "Beta, B's way.", 1))
	rep = b.gitSync()
	if len(rep.Conflicts) != 1 || rep.Conflicts[0].Kept != "yours" || rep.Conflicts[0].History == 0 {
		t.Fatalf("tie: %+v", rep.Conflicts)
	}
	if s, _ := b.skill("beta"); s.Body != "Beta, B's way." {
		t.Errorf("B's beta = %q", s.Body)
	}
	if vs, _ := b.db.SkillVersions(ctx, "beta"); !hasBody(vs, "Beta, A's way.") {
		t.Error("A's edit is not in B's beta history")
	}
	for _, h := range []*harness{a, b} {
		h.gitSync()
		for _, name := range []string{"alpha", "beta", "gamma"} {
			if got := h.read(name + "/SKILL.md"); strings.Contains(got, "<<<<<<<") || got == "" {
				t.Errorf("%s's file is missing or has conflict markers:\n%s", name, got)
			}
		}
	}
	if sa, _ := a.skill("beta"); sa.Body != "Beta, B's way." {
		t.Errorf("after both synced, A's beta = %q, want the merged one", sa.Body)
	}
}

func TestGitSyncRefusesAPlainFolder(t *testing.T) {
	h := newHarness(t)
	os.MkdirAll(h.dir, 0o755)
	if _, err := h.f.GitSync(context.Background()); err == nil || !strings.Contains(err.Error(), "not a git repository") {
		t.Errorf("git sync of a plain folder: %v", err)
	}
}

func hasBody(vs []store.SkillVersion, body string) bool {
	for _, v := range vs {
		if v.Body == body {
			return true
		}
	}
	return false
}
