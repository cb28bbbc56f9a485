package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/store"
)

// TestRolloutThroughOpenClaw runs a rollout folder of two tasks through the
// real OpenClaw (installed and cached as TestOpenClawThroughProxy does):
// claw_type openclaw, OpenClaw connected to the proxy, and the running
// MetaClaw runs each task with OpenClaw's non-interactive agent command
// against a fake provider behind the proxy. Both episodes finish, status
// says so, and the turns carrying each task's instruction are recorded.
// openclaw_env_concurrency is 2, but OpenClaw runs one local agent at a
// time, so MetaClaw runs the episodes one after the other: none fails. Each
// OpenClaw agent command takes about a minute on a loaded two-core
// machine. It runs only with METACLAW_E2E=1.
func TestRolloutThroughOpenClaw(t *testing.T) {
	if os.Getenv("METACLAW_E2E") != "1" {
		t.Skip("set METACLAW_E2E=1 to run (installs Node 24 and OpenClaw from npm, ~650 MB, cached)")
	}
	nodeBin, ocBin := installOpenClaw(t)
	up := fakeupstream.New()
	base, err := up.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	tasks := t.TempDir()
	lines := `{"task_id": "greet", "instruction": "Say hello to the rollout ROLLOUT-TASK-ONE."}
{"task_id": "thank", "instruction": "Say thank you to the rollout ROLLOUT-TASK-TWO."}
`
	if err := os.WriteFile(filepath.Join(tasks, "train.jsonl"), []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	in := newInstance(t)
	in.must("config", "set", "llm.provider", "custom", "llm.api_base", base+"/v1", "llm.api_key", "sk-fake",
		"llm.model_id", "fake-model", "mode", "skills_only", "proxy.port", strconv.Itoa(in.port), "claw_type", "openclaw",
		"skills.auto_evolve", "false", "memory.auto_extract", "false", "openclaw_env_data_dir", tasks, "openclaw_env_concurrency", "2")
	oc := newOpenClawHome(t, in, nodeBin, ocBin)
	oc.quietConfig()
	// Connected before start, so that the first episode already finds
	// OpenClaw pointed at the proxy; start then changes nothing.
	oc.metaclaw("connect", "openclaw", "--openclaw", ocBin)
	oc.metaclaw("start", "--daemon")
	defer in.run("stop")

	want := "rollout:  2 episodes done of 2, 0 running, 0 failed (2 tasks in " + tasks + ")"
	var status string
	for end := time.Now().Add(4 * time.Minute); time.Now().Before(end); time.Sleep(time.Second) {
		if status = in.run("status").stdout; strings.Contains(status, want) || strings.Contains(status, "last error:") {
			break
		}
	}
	if !strings.Contains(status, want) {
		t.Fatalf("status never showed both episodes done:\n%s\nlog:\n%s", status, tailOf(readLog(in), 4000))
	}
	if log := readLog(in); !strings.Contains(log, "OpenClaw runs one local agent at a time") {
		t.Errorf("the log does not say why the episodes ran one at a time:\n%s", tailOf(log, 2000))
	}
	for _, task := range []string{"ROLLOUT-TASK-ONE", "ROLLOUT-TASK-TWO"} {
		var reached bool
		for _, r := range up.Requests() {
			reached = reached || (r.Path == "/v1/chat/completions" && bytes.Contains(r.Body, []byte(task)))
		}
		if !reached {
			t.Errorf("no request reached the provider with %s", task)
		}
	}
	in.must("stop")
	checkRolloutTurns(t, in.home, "ROLLOUT-TASK-ONE", "ROLLOUT-TASK-TWO")
}

// checkRolloutTurns checks that the stopped MetaClaw recorded a turn whose
// request carries each instruction marker.
func checkRolloutTurns(t *testing.T, home string, markers ...string) {
	t.Helper()
	db, err := store.Open(filepath.Join(home, "metaclaw.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	sessions, err := db.RecentSessions(ctx, 20)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, s := range sessions {
		turns, err := db.SessionTurns(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, tu := range turns {
			for _, m := range markers {
				seen[m] = seen[m] || bytes.Contains(tu.Request, []byte(m))
			}
		}
	}
	for _, m := range markers {
		if !seen[m] {
			t.Errorf("no recorded turn carries %s (%d sessions)", m, len(sessions))
		}
	}
}

// readLog returns the instance's log file.
func readLog(in *instance) string {
	data, _ := os.ReadFile(filepath.Join(in.home, "metaclaw.log"))
	return string(data)
}
