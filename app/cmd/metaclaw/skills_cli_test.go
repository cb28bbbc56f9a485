package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
)

// TestSkillsCLI drives `metaclaw skills`: the starter bank on first use,
// list, search, show, import (valid and broken files), export, disable,
// enable, revert and delete, with refusals.
func TestSkillsCLI(t *testing.T) {
	t.Parallel()
	in := newInstance(t)
	list := in.must("skills", "list").stdout
	if !strings.Contains(list, "debug-failing-test") || !strings.Contains(list, "skill generation 0") {
		t.Fatalf("starter bank not listed:\n%s", list)
	}
	if out := in.must("skills", "search", "my", "pytest", "run", "fails").stdout; !strings.Contains(out, "debug-failing-test@1") {
		t.Errorf("search: %s", out)
	}
	if out := in.must("skills", "search", "thanks,", "bye").stdout; !strings.Contains(out, "no skill fits") {
		t.Errorf("search for small talk: %s", out)
	}
	explained := in.must("skills", "search", "--explain", "write", "a", "git", "commit", "message").stdout
	for _, want := range []string{"write-commit-message@1", "request terms: write git commit message", "rule: coverage ≥",
		"injected", "left out: ", "COVERAGE"} {
		if !strings.Contains(explained, want) {
			t.Errorf("search --explain lacks %q:\n%s", want, explained)
		}
	}
	if strings.Contains(explained, "language:") {
		t.Errorf("an English request's explanation names a language:\n%s", explained)
	}
	german := in.must("skills", "search", "--explain", "mein", "Test", "schlägt", "fehl", "und", "ich", "weiß", "nicht", "warum").stdout
	if !strings.Contains(german, "language: German (the skills' asks in other languages were searched too)") {
		t.Errorf("a German request's explanation does not say so:\n%s", german)
	}
	if !strings.Contains(list, "RANKING") {
		t.Errorf("list lacks the efficacy factor column:\n%s", list)
	}
	r := in.run("skills", "import", filepath.Join("..", "..", "learner", "skills", "testdata", "import"))
	if r.code != 1 || !strings.Contains(r.stdout, "2 added") || !strings.Contains(r.stderr, "bad-yaml/SKILL.md") {
		t.Errorf("import with broken files: %d %q %q", r.code, r.stdout, r.stderr)
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "good-skill"), 0o755)
	os.WriteFile(filepath.Join(dir, "good-skill", "SKILL.md"), []byte("---\nname: good-skill\ndescription: Use when a test in the suite fails, version two.\n---\nRead the first error.\n"), 0o644)
	if out := in.must("skills", "import", dir).stdout; !strings.Contains(out, "1 updated") {
		t.Errorf("re-import: %s", out)
	}
	show := in.must("skills", "show", "good-skill").stdout
	if !strings.Contains(show, "version two") || !strings.Contains(show, "version 2 of 2") {
		t.Errorf("show: %s", show)
	}
	if out := in.must("skills", "show", "good-skill", "--version", "1").stdout; strings.Contains(out, "version two") {
		t.Errorf("show --version 1 shows version 2: %s", out)
	}
	in.must("skills", "revert", "good-skill", "1")
	if out := in.must("skills", "show", "good-skill").stdout; strings.Contains(out, "version two") || !strings.Contains(out, "version 3 of 3") {
		t.Errorf("after revert: %s", out)
	}
	in.must("skills", "disable", "good-skill")
	if strings.Contains(in.must("skills", "list").stdout, "good-skill") || !strings.Contains(in.must("skills", "list", "--all").stdout, "disabled") {
		t.Error("disable did not hide the skill")
	}
	in.must("skills", "enable", "good-skill")
	out := t.TempDir()
	in.must("skills", "export", out)
	if _, err := os.Stat(filepath.Join(out, "good-skill", "SKILL.md")); err != nil {
		t.Errorf("export: %v", err)
	}
	in.must("skills", "delete", "good-skill")
	in.fails(1, "not found", "skills", "show", "good-skill")
	in.fails(1, "not found", "skills", "enable", "good-skill")
	in.fails(2, "positive number", "skills", "revert", "flat-skill", "zero")
	in.fails(1, "has no version 9", "skills", "show", "flat-skill", "--version", "9")
	in.fails(2, "unknown subcommand", "skills", "frobnicate")
}

// TestSkillsSearchHybrid: `skills search` ranks as a turn does, with the
// configured mode and embeddings endpoint, and --explain shows each
// skill's similarity and fused relevance; with the endpoint down it says
// keyword retrieval answered.
func TestSkillsSearchHybrid(t *testing.T) {
	t.Parallel()
	up := fakeupstream.New()
	base, err := up.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	up.SetEmbeddingDim(4096)
	in := newInstance(t)
	in.must("config", "set", "skills.retrieval_mode", "hybrid", "skills.embedding_api_base", base+"/v1",
		"skills.embedding_model", "fake-embed", "skills.embedding_api_key", "sk-embed-test")
	out := in.must("skills", "search", "--explain", "write", "a", "git", "commit", "message").stdout
	for _, want := range []string{"write-commit-message@1", "(hybrid retrieval)", "SIMILARITY", "FUSED", "then fused relevance ≥"} {
		if !strings.Contains(out, want) {
			t.Errorf("hybrid search --explain lacks %q:\n%s", want, out)
		}
	}
	embedded := 0
	for _, r := range up.Requests() {
		if r.Path == "/v1/embeddings" {
			embedded++
		}
	}
	if embedded == 0 {
		t.Error("the search never called the embeddings endpoint")
	}
	// memory search too ranks as a turn does: the memories get their
	// vectors from the endpoint before the search.
	in.must("config", "set", "memory.retrieval_mode", "hybrid")
	in.must("memory", "add", "--type", "preference", "--topic", "editor theme", "The user prefers a dark editor theme.")
	if out := in.must("memory", "search", "which", "editor", "theme").stdout; !strings.Contains(out, "dark editor theme") {
		t.Errorf("hybrid memory search: %s", out)
	}
	memoryEmbedded := false
	for _, r := range up.Requests() {
		memoryEmbedded = memoryEmbedded || r.Path == "/v1/embeddings" && strings.Contains(string(r.Body), "dark editor theme")
	}
	if !memoryEmbedded {
		t.Error("memory search never embedded the memory")
	}
	up.Close()
	out = in.must("skills", "search", "debug", "my", "failing", "pytest", "run").stdout
	if !strings.Contains(out, "keyword retrieval answered") {
		t.Errorf("with the endpoint down the search does not say keyword answered:\n%s", out)
	}
}
