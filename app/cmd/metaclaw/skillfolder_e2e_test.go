package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/metaclaw/metaclaw/store/testutil"
)

// TestSkillsFolderLive runs MetaClaw and uses its skills folder
// (~/.metaclaw/skills, here <home>/skills) as the reference's README says:
// the library appears there as SKILL.md files, a file copied in becomes a
// skill while MetaClaw runs, an edit becomes a new version, a deleted file
// disables its skill, a broken file is reported by status and skipped, and
// a change made through the CLI is written back to the folder.
func TestSkillsFolderLive(t *testing.T) {
	t.Parallel()
	in := newInstance(t)
	in.setup()
	in.must("start", "--daemon")
	defer in.run("stop")
	dir := filepath.Join(in.home, "skills")
	starter := filepath.Join(dir, "debug-failing-test", "SKILL.md")
	testutil.Eventually(t, "the starter bank written to the folder", func() bool { return fileContains(starter, "name: debug-failing-test") })

	skill := filepath.Join(dir, "webhook-retries", "SKILL.md")
	os.MkdirAll(filepath.Dir(skill), 0o755)
	os.WriteFile(skill, []byte("---\nname: webhook-retries\ndescription: Use when a webhook call fails and must be retried.\n---\nRetry with backoff, at most five times.\n"), 0o644)
	testutil.Eventually(t, "the copied file to become a skill", func() bool {
		return strings.Contains(in.run("skills", "show", "webhook-retries").stdout, "version 1 of 1")
	})
	os.WriteFile(skill, []byte("---\nname: webhook-retries\ndescription: Use when a webhook call fails and must be retried.\n---\nRetry with backoff, at most three times.\n"), 0o644)
	testutil.Eventually(t, "the edit to become version 2", func() bool {
		out := in.run("skills", "show", "webhook-retries").stdout
		return strings.Contains(out, "version 2 of 2") && strings.Contains(out, "three times")
	})

	broken := filepath.Join(dir, "half-done", "SKILL.md")
	os.MkdirAll(filepath.Dir(broken), 0o755)
	os.WriteFile(broken, []byte("---\nname: half-done\ndescription: [oops\n---\nBody.\n"), 0o644)
	testutil.Eventually(t, "status to report the broken file", func() bool {
		return strings.Contains(in.run("status").stdout, "skipped half-done/SKILL.md: front matter")
	})
	if r := in.run("skills", "show", "half-done"); r.code == 0 {
		t.Error("a broken file became a skill")
	}

	os.Remove(skill)
	testutil.Eventually(t, "the deleted file to disable its skill", func() bool {
		return strings.Contains(in.run("skills", "show", "webhook-retries").stdout, "version 2 of 2, disabled")
	})
	in.must("skills", "enable", "webhook-retries")
	testutil.Eventually(t, "the re-enabled skill written back", func() bool { return fileContains(skill, "three times") })
	if out := in.must("skills", "show", "webhook-retries").stdout; !strings.Contains(out, "version 2 of 2") {
		t.Errorf("writing the file back made a new version:\n%s", out)
	}
}

func fileContains(path, want string) bool {
	data, err := os.ReadFile(path)
	return err == nil && strings.Contains(string(data), want)
}

// TestSkillsSyncThroughGit shares two MetaClaws' libraries through a bare
// repository on disk with `metaclaw skills sync`: the first pushes its
// library, the second gets it, and an edit both made to one skill is
// reported as a conflict whose other side stays in the history.
func TestSkillsSyncThroughGit(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	bare := filepath.Join(t.TempDir(), "team.git")
	git := func(dir string, args ...string) {
		t.Helper()
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git(".", "init", "-q", "--bare", "-b", "main", bare)
	a, b := newInstance(t), newInstance(t)
	for _, in := range []*instance{a, b} {
		in.env = append(in.env, "GIT_CONFIG_GLOBAL=/dev/null")
		dir := filepath.Join(in.home, "skills")
		os.MkdirAll(dir, 0o755)
		git(dir, "init", "-q", "-b", "main")
		git(dir, "remote", "add", "origin", bare)
	}
	plain := newInstance(t)
	plain.fails(1, "not a git repository", "skills", "sync")
	dir := filepath.Join(a.home, "skills")
	os.MkdirAll(filepath.Join(dir, "team-habit"), 0o755)
	os.WriteFile(filepath.Join(dir, "team-habit", "SKILL.md"), []byte("---\nname: team-habit\ndescription: Use when writing a commit message for the team.\n---\nSay why, not what.\n"), 0o644)
	if out := a.must("skills", "sync").stdout; !strings.Contains(out, "pushed to origin/main") {
		t.Fatalf("first sync: %s", out)
	}
	if out := b.must("skills", "sync").stdout; !strings.Contains(out, "merged origin/main") || !strings.Contains(out, "team-habit") {
		t.Fatalf("second sync: %s", out)
	}
	if out := b.must("skills", "show", "team-habit").stdout; !strings.Contains(out, "Say why, not what.") {
		t.Fatalf("the shared skill did not reach the second library:\n%s", out)
	}
	edit := func(in *instance, body string) {
		p := filepath.Join(in.home, "skills", "team-habit", "SKILL.md")
		data, _ := os.ReadFile(p)
		os.WriteFile(p, []byte(strings.Replace(string(data), "Say why, not what.", body, 1)), 0o644)
	}
	edit(a, "Say why, in one line.")
	a.must("skills", "sync")
	edit(b, "Say why, and link the issue.")
	out := b.must("skills", "sync").stdout
	if !strings.Contains(out, "conflict in team-habit/SKILL.md") || !strings.Contains(out, "kept yours") ||
		!strings.Contains(out, "metaclaw skills revert team-habit") {
		t.Fatalf("conflict not reported:\n%s", out)
	}
	show := b.must("skills", "show", "team-habit").stdout
	if !strings.Contains(show, "link the issue") {
		t.Errorf("the second member's own edit is not current:\n%s", show)
	}
	m := regexp.MustCompile(`the other side is version (\d+) of team-habit`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the conflict names no version:\n%s", out)
	}
	if v := b.must("skills", "show", "team-habit", "--version", m[1]).stdout; !strings.Contains(v, "in one line") {
		t.Errorf("version %s is not the other side:\n%s", m[1], v)
	}
}
