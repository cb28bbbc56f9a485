package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// memoryCLI runs `metaclaw memory ...` against a data directory.
type memoryCLI struct {
	t    *testing.T
	home string
}

func (c memoryCLI) run(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Main(append([]string{"memory"}, args...), &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb})
	return code, out.String(), errb.String()
}

func (c memoryCLI) must(args ...string) string {
	c.t.Helper()
	code, out, errs := c.run(args...)
	if code != 0 {
		c.t.Fatalf("memory %v: exit %d\n%s%s", args, code, out, errs)
	}
	return out
}

var idRE = regexp.MustCompile(`memory (\d+)`)

func firstID(t *testing.T, out string) string {
	t.Helper()
	m := idRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no memory id in %q", out)
	}
	return m[1]
}

// TestMemoryCommand drives every memory subcommand on one data directory
// (METACLAW_HOME is process-wide, so it does not run in parallel).
func TestMemoryCommand(t *testing.T) {
	home := t.TempDir()
	t.Setenv("METACLAW_HOME", home)
	c := memoryCLI{t: t, home: home}

	out := c.must("add", "The", "user", "prefers", "dark", "mode", "--type", "preference", "--topic", "editor theme")
	if !strings.HasPrefix(out, "added memory") {
		t.Errorf("add: %q", out)
	}
	dark := firstID(t, out)
	if out := c.must("add", "--type", "preference", "The user prefers dark mode."); !strings.HasPrefix(out, "reinforced memory "+dark) {
		t.Errorf("repeat: %q", out)
	}
	out = c.must("add", "The user now prefers light mode", "--type=preference", "--topic", "Editor Themes", "--pin")
	if !strings.Contains(out, "memory "+dark+" is now history") {
		t.Errorf("supersede: %q", out)
	}
	light := firstID(t, out)
	c.must("add", "Works at Initech", "--scope", "work")

	list := c.must("list")
	if !strings.Contains(list, "light mode") || strings.Contains(list, "dark mode") || strings.Contains(list, "Initech") || !strings.Contains(list, "pinned") {
		t.Errorf("list:\n%s", list)
	}
	if all := c.must("list", "--all-scopes", "--history"); !strings.Contains(all, "dark mode") || !strings.Contains(all, "Initech") {
		t.Errorf("list --all-scopes --history:\n%s", all)
	}
	if s := c.must("search", "which", "editor", "theme"); !strings.Contains(s, "light mode") || strings.Contains(s, "dark mode") {
		t.Errorf("search:\n%s", s)
	}
	if s := c.must("search", "editor", "--history"); !strings.Contains(s, "dark mode") {
		t.Errorf("search --history:\n%s", s)
	}
	show := c.must("show", light)
	if !strings.Contains(show, "history:") || !strings.Contains(show, "superseded") || !strings.Contains(show, "pinned") {
		t.Errorf("show:\n%s", show)
	}
	exported := filepath.Join(t.TempDir(), "mem.json")
	c.must("export", "--all-scopes", "-o", exported)
	if fi, err := os.Stat(exported); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("export file: %v, %v", fi, err)
	}
	if out := c.must("import", exported, "--scope", "copy"); !strings.Contains(out, "imported 2 memories") {
		t.Errorf("import: %q", out)
	}
	if out := c.must("import", exported, "--scope", "copy"); !strings.Contains(out, "imported 0 memories") {
		t.Errorf("second import: %q", out)
	}
	edited := firstID(t, c.must("edit", light, "The user prefers a light theme with large fonts"))
	if s := c.must("show", edited); !strings.Contains(s, "large fonts") || !strings.Contains(s, "edited") {
		t.Errorf("show after edit:\n%s", s)
	}
	c.must("pin", edited, "--off")
	if s := c.must("list"); strings.Contains(s, "pinned") {
		t.Errorf("list after unpin:\n%s", s)
	}

	if s := c.must("scopes"); !strings.Contains(s, "copy") || !strings.Contains(s, "work") {
		t.Errorf("scopes:\n%s", s)
	}

	out = c.must("forget", edited)
	if !strings.Contains(out, "forgot 1 memories (2 earlier versions with them)") {
		t.Errorf("forget: %q", out)
	}
	db, err := os.ReadFile(filepath.Join(home, "metaclaw.db"))
	if err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{"large fonts", "dark mode"} {
		if bytes.Contains(db, []byte(gone)) {
			t.Errorf("%q still in the database file", gone)
		}
	}
	if code, _, errs := c.run("show", edited); code != 1 || !strings.Contains(errs, "not found") {
		t.Errorf("show a forgotten memory: exit %d, %q", code, errs)
	}
	for _, bad := range [][]string{{}, {"frobnicate"}, {"show"}, {"show", "x"}, {"add"}, {"add", "x", "--type", "opinion"}, {"forget"}} {
		if code, _, _ := c.run(bad...); code == 0 {
			t.Errorf("memory %v succeeded", bad)
		}
	}
}
