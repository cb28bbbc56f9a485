package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// referenceDataDir writes a data directory laid out as the Python MetaClaw
// leaves ~/.metaclaw: config.yaml (with its own defaults mode auto and
// proxy.host 0.0.0.0), skills/<name>/SKILL.md in the reference bank's
// categories, memory/memory.db with its memories table, and its state files.
func referenceDataDir(t *testing.T) string {
	t.Helper()
	src := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(src, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("config.yaml", `mode: auto
claw_type: openclaw
llm:
  provider: custom
  model_id: my-model
  api_base: http://127.0.0.1:9/v1
  api_key: sk-ref-secret
proxy:
  port: 30123
  host: 0.0.0.0
skills:
  enabled: true
  top_k: 4
  evolution_every_n_turns: 10
memory:
  enabled: true
  use_embeddings: false
rl:
  tinker_api_key: tk-ref
  batch_size: 8
`)
	for _, s := range []struct{ name, cat string }{{"agent-task-handoff", "agentic"}, {"debug-systematically", "coding"}, {"keep-it-short", "general"}} {
		write("skills/"+s.name+"/SKILL.md", "---\nname: "+s.name+"\ndescription: Use this skill when "+s.name+" matters.\ncategory: "+s.cat+"\n---\n\n# "+s.name+"\n\nDo the thing well.\n")
	}
	write("skills/broken-one/SKILL.md", "no front matter here\n")
	write("scheduler_state.json", `{"state":"idle_wait"}`)
	write("memory/policy.json", `{}`)
	db, err := sql.Open("sqlite", filepath.Join(src, "memory", "memory.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`CREATE TABLE memories (memory_id TEXT PRIMARY KEY, scope_id TEXT NOT NULL, memory_type TEXT NOT NULL, content TEXT NOT NULL,
			summary TEXT DEFAULT '', source_session_id TEXT DEFAULT '', source_turn_start INTEGER DEFAULT 0, source_turn_end INTEGER DEFAULT 0,
			entities_json TEXT DEFAULT '[]', topics_json TEXT DEFAULT '[]', importance REAL DEFAULT 0.5, confidence REAL DEFAULT 0.7,
			access_count INTEGER DEFAULT 0, reinforcement_score REAL DEFAULT 0.0, status TEXT DEFAULT 'active', supersedes_json TEXT DEFAULT '[]',
			superseded_by TEXT DEFAULT '', embedding_json TEXT DEFAULT '[]', created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
			last_accessed_at TEXT DEFAULT '', expires_at TEXT DEFAULT '', tags_json TEXT DEFAULT '[]')`,
		`INSERT INTO memories(memory_id, scope_id, memory_type, content, topics_json, importance, status, created_at, updated_at) VALUES
			('m1', 'default', 'preference', 'The user prefers tabs over spaces.', '["indentation"]', 0.8, 'active', '2026-03-20T10:00:00+00:00', '2026-03-20T10:00:00+00:00'),
			('m2', 'default', 'semantic', 'The user works at Acme on the billing service.', '["employer"]', 0.6, 'active', '2026-03-21T10:00:00+00:00', '2026-03-21T10:00:00+00:00'),
			('m3', 'user:bob', 'project_state', 'The migration to Postgres 16 is half done.', '[]', 0.5, 'active', '2026-03-22T10:00:00+00:00', '2026-03-22T10:00:00+00:00'),
			('m4', 'default', 'preference', 'The user prefers spaces.', '["indentation"]', 0.5, 'superseded', '2026-03-19T10:00:00+00:00', '2026-03-20T10:00:00+00:00')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return src
}

// TestMigrateFromPythonMetaClaw runs `metaclaw migrate` on a data directory
// in the reference's layout and checks what came over, what it says it
// could not bring, and that a second run adds nothing.
func TestMigrateFromPythonMetaClaw(t *testing.T) {
	t.Parallel()
	in := newInstance(t)
	src := referenceDataDir(t)
	r := in.run("migrate", "--from", src)
	if r.code != 1 {
		t.Fatalf("migrate with a broken skill: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"config.yaml: ", "mode: \"auto\" is not allowed", "proxy.host 0.0.0.0: kept at 127.0.0.1",
		"no counterpart in MetaClaw: memory.use_embeddings",
		"skills (" + filepath.Join(src, "skills") + "): 3 added", "not brought: broken-one/SKILL.md",
		"memory (" + filepath.Join(src, "memory", "memory.db") + "): 3 memories brought",
		"1 superseded, archived, expired or unknown-type memories",
		"not brought: " + filepath.Join(src, "scheduler_state.json"), filepath.Join(src, "memory", "policy.json"),
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("migrate output lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout+r.stderr, "sk-ref-secret") {
		t.Error("migrate printed the API key")
	}
	for key, want := range map[string]string{"llm.model_id": "my-model", "proxy.port": "30123", "proxy.host": "127.0.0.1",
		"skills.top_k": "4", "skills.evolution_every_n_turns": "10", "rl.batch_size": "8", "rl.api_key": "********", "mode": "madmax"} {
		if got := strings.TrimSpace(in.must("config", "get", key).stdout); got != want {
			t.Errorf("config %s = %q, want %q", key, got, want)
		}
	}
	if out := in.must("skills", "show", "agent-task-handoff").stdout; !strings.Contains(out, "category: agentic") {
		t.Errorf("skill not migrated:\n%s", out)
	}
	mem := in.must("memory", "list", "--all-scopes").stdout
	for _, want := range []string{"tabs over spaces", "billing service", "Postgres 16"} {
		if !strings.Contains(mem, want) {
			t.Errorf("memory list lacks %q:\n%s", want, mem)
		}
	}
	if strings.Contains(mem, "prefers spaces") {
		t.Error("a superseded memory was brought as current")
	}
	again := in.run("migrate", "--from", src).stdout
	if !strings.Contains(again, "0 added, 0 updated, 3 already there") || !strings.Contains(again, "0 memories brought, 3 already known") {
		t.Errorf("second migrate was not a no-op:\n%s", again)
	}
	in.fails(1, "is not a directory", "migrate", "--from", filepath.Join(src, "nope"))
}

// TestMigrateReferenceBank runs `metaclaw migrate` on a data directory
// whose skills folder is a bank of 36 skills in the reference's layout and
// categories (data_analysis, common_mistakes and one unknown, devops):
// all 36 come over, none is refused, and the unknown category is said
// once, filed under general.
func TestMigrateReferenceBank(t *testing.T) {
	t.Parallel()
	in := newInstance(t)
	src := t.TempDir()
	if err := os.CopyFS(filepath.Join(src, "skills"), os.DirFS("../../learner/skills/testdata/reference-bank-36")); err != nil {
		t.Fatal(err)
	}
	r := in.run("migrate", "--from", src)
	if r.code != 0 {
		t.Fatalf("migrate: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "skills ("+filepath.Join(src, "skills")+"): 36 added, 0 updated, 0 already there") ||
		strings.Contains(r.stdout, "not brought: ") {
		t.Errorf("migrate did not bring the whole bank:\n%s", r.stdout)
	}
	if n := strings.Count(r.stdout, `category "devops"`); n != 1 || !strings.Contains(r.stdout, "container-image-hygiene/SKILL.md: category \"devops\"") {
		t.Errorf("the unknown category was said %d times, want once:\n%s", n, r.stdout)
	}
	for name, cat := range map[string]string{"profile-data-before-modelling": "data-analysis", "do-not-invent-details": "common_mistakes",
		"container-image-hygiene": "general", "plan-then-act": "agentic"} {
		if out := in.must("skills", "show", name).stdout; !strings.Contains(out, "category: "+cat) {
			t.Errorf("skill %s: want category %s:\n%s", name, cat, out)
		}
	}
}
