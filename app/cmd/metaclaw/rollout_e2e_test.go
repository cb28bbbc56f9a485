package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/testutil"
)

// TestProgrammaticRollout sets openclaw_env_data_dir to a folder with a
// train.jsonl of two tasks and claw_type none: the running MetaClaw runs
// each task once through its built-in tool loop against a fake provider
// behind its own proxy (the first task runs a command with the exec tool,
// then answers),
// status shows the progress, and the episodes are recorded as sessions
// whose last turn ended them.
func TestProgrammaticRollout(t *testing.T) {
	t.Parallel()
	up := fakeupstream.New()
	base, err := up.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	up.Enqueue(fakeupstream.Reply{ToolCalls: []fakeupstream.ToolCall{{Name: "exec", Arguments: `{"command":"echo rollout-ok > out.txt && echo written"}`}}})
	up.Enqueue(fakeupstream.Reply{Text: "Wrote rollout-ok into out.txt."})
	tasks := t.TempDir()
	os.WriteFile(filepath.Join(tasks, "train.jsonl"), []byte(`{"task_id": "write_file", "instruction": "Write rollout-ok into out.txt"}
not json
{"task_id": "say_hi", "instruction": "Say hi"}
`), 0o600)
	in := newInstance(t)
	in.must("config", "set", "llm.provider", "custom", "llm.api_base", base+"/v1", "llm.api_key", "sk-fake", "llm.model_id", "fake-model",
		"mode", "skills_only", "proxy.port", strconv.Itoa(in.port), "claw_type", "none", "skills.auto_evolve", "false",
		"memory.auto_extract", "false", "openclaw_env_data_dir", tasks, "openclaw_env_concurrency", "1")
	in.must("start", "--daemon")
	defer in.run("stop")
	testutil.Eventually(t, "both episodes done", func() bool {
		return strings.Contains(in.run("status").stdout, "rollout:  2 episodes done of 2, 0 running, 0 failed (2 tasks in "+tasks+")")
	})
	if data, _ := os.ReadFile(filepath.Join(in.home, "rollout", "write_file", "out.txt")); string(data) != "rollout-ok\n" {
		t.Errorf("the task's command did not run in its folder: %q", data)
	}
	var sawOutput bool
	for _, r := range up.Requests() {
		sawOutput = sawOutput || (r.Path == "/v1/chat/completions" && bytes.Contains(r.Body, []byte(`"content":"exit code 0\nwritten\n"`)))
	}
	if !sawOutput {
		t.Error("no request carried the command's output back to the model")
	}
	in.must("stop")
	db, err := store.Open(filepath.Join(in.home, "metaclaw.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sessions, err := db.RecentSessions(context.Background(), 10)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]int{}
	for _, s := range sessions {
		for _, task := range []string{"write_file", "say_hi"} {
			if strings.HasPrefix(s.ID, "env-"+task+"-") {
				turns, _ := db.SessionTurns(context.Background(), s.ID)
				found[task] = len(turns)
				if s.EndedAt.IsZero() {
					t.Errorf("session %s was not ended by its last turn", s.ID)
				}
			}
		}
	}
	if found["write_file"] != 3 || found["say_hi"] != 2 {
		t.Errorf("recorded turns per task = %v, want write_file 3 (command, answer, close) and say_hi 2", found)
	}
}
