package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	eventually(t, "the starter bank written to the folder", func() bool { return fileContains(starter, "name: debug-failing-test") })

	skill := filepath.Join(dir, "webhook-retries", "SKILL.md")
	os.MkdirAll(filepath.Dir(skill), 0o755)
	os.WriteFile(skill, []byte("---\nname: webhook-retries\ndescription: Use when a webhook call fails and must be retried.\n---\nRetry with backoff, at most five times.\n"), 0o644)
	eventually(t, "the copied file to become a skill", func() bool {
		return strings.Contains(in.run("skills", "show", "webhook-retries").stdout, "version 1 of 1")
	})
	os.WriteFile(skill, []byte("---\nname: webhook-retries\ndescription: Use when a webhook call fails and must be retried.\n---\nRetry with backoff, at most three times.\n"), 0o644)
	eventually(t, "the edit to become version 2", func() bool {
		out := in.run("skills", "show", "webhook-retries").stdout
		return strings.Contains(out, "version 2 of 2") && strings.Contains(out, "three times")
	})

	broken := filepath.Join(dir, "half-done", "SKILL.md")
	os.MkdirAll(filepath.Dir(broken), 0o755)
	os.WriteFile(broken, []byte("---\nname: half-done\ndescription: [oops\n---\nBody.\n"), 0o644)
	eventually(t, "status to report the broken file", func() bool {
		return strings.Contains(in.run("status").stdout, "skipped half-done/SKILL.md: front matter")
	})
	if r := in.run("skills", "show", "half-done"); r.code == 0 {
		t.Error("a broken file became a skill")
	}

	os.Remove(skill)
	eventually(t, "the deleted file to disable its skill", func() bool {
		return strings.Contains(in.run("skills", "show", "webhook-retries").stdout, "version 2 of 2, disabled")
	})
	in.must("skills", "enable", "webhook-retries")
	eventually(t, "the re-enabled skill written back", func() bool { return fileContains(skill, "three times") })
	if out := in.must("skills", "show", "webhook-retries").stdout; !strings.Contains(out, "version 2 of 2") {
		t.Errorf("writing the file back made a new version:\n%s", out)
	}
}

func fileContains(path, want string) bool {
	data, err := os.ReadFile(path)
	return err == nil && strings.Contains(string(data), want)
}

// eventually waits up to 20 s for cond, checking every 200 ms.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 20 s for %s", what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
