package web

import (
	"net/http"
	"strings"
	"testing"
)

// The skills page lists the skills folder's files skipped as broken, with
// why, and those filed under general, with the note; without such files
// (or without a kept folder) it shows no folder card.
func TestSkillsPageListsFolderProblems(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.login(t)
	if p := e.get(t, c, "/skills"); p.status != http.StatusOK || strings.Contains(p.body, `data-testid="skills-folder"`) {
		t.Fatalf("without a folder: status %d, card shown", p.status)
	}
	e.ctl.mu.Lock()
	e.ctl.folder = &SkillsFolderStatus{Dir: "/home/u/.metaclaw/skills", Files: 36}
	e.ctl.mu.Unlock()
	if p := e.get(t, c, "/skills"); strings.Contains(p.body, `data-testid="skills-folder"`) {
		t.Error("a folder with nothing to say shows a card")
	}
	e.ctl.mu.Lock()
	e.ctl.folder = &SkillsFolderStatus{Dir: "/home/u/.metaclaw/skills", Files: 35,
		Broken: []FileNote{{Path: "beta/SKILL.md", Text: "front matter: yaml: line 2: did not find expected node content"}},
		Filed:  []FileNote{{Path: "odd/SKILL.md", Text: `category "astrology" is not one of coding, general: filed under general`}}}
	e.ctl.mu.Unlock()
	p := e.get(t, c, "/skills")
	if p.status != http.StatusOK {
		t.Fatalf("status %d", p.status)
	}
	for id, want := range map[string]string{
		"skills-folder-dir":         "/home/u/.metaclaw/skills",
		"skills-folder-broken-path": "beta/SKILL.md",
		"skills-folder-broken-why":  "front matter: yaml: line 2: did not find expected node content",
		"skills-folder-filed-path":  "odd/SKILL.md",
		"skills-folder-filed-note":  `category "astrology" is not one of coding, general: filed under general`,
	} {
		if got := testidText(p.body, id); got != want {
			t.Errorf("%s = %q, want %q", id, got, want)
		}
	}
	if n := strings.Count(p.body, `data-testid="skills-folder-filed-item"`); n != 1 {
		t.Errorf("the filed file is listed %d times, want once", n)
	}
}
