package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/metaclaw/metaclaw/app/bench/benchtest"
	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/store"
)

// TestBenchRunWithOpenClaw runs `metaclaw bench run --agent openclaw` with
// the real OpenClaw on the first two days of the mini benchmark, in the
// skills+memory arm, against the fake provider scripted as the model
// (benchtest.Model, behind a shim that reads OpenClaw's requests as the
// model would). It checks the round scores against the hand-computed ones,
// the files OpenClaw's write tool left in the workspaces and their checks,
// the session seed reaching the model, the turns recorded by the arm's
// MetaClaw, that day 1's session ended once (one evolution, one memory
// extraction, although the feedback that closes it would call a tool if
// tools were offered), and the calls counted. METACLAW_E2E=1 only: nine
// OpenClaw runs of 11–24 s each on 2 cores.
func TestBenchRunWithOpenClaw(t *testing.T) {
	t.Parallel() // the agent is one node process: it leaves the other core to the rest
	if os.Getenv("METACLAW_E2E") != "1" {
		t.Skip("set METACLAW_E2E=1 to run (installs Node 24 and OpenClaw from npm, ~650 MB, cached)")
	}
	nodeBin, ocBin := installOpenClaw(t)
	m := benchtest.Model(nil)
	up := fakeupstream.New()
	base, err := up.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	up.SetDefault(fakeupstream.Reply{Func: openclawModel(m)})

	in := newInstance(t)
	in.must("config", "set", "llm.provider", "custom", "llm.api_base", base+"/v1", "llm.api_key", "sk-fake",
		"llm.model_id", "fake-model")
	oc := newOpenClawHome(t, in, nodeBin, ocBin)
	dir, err := filepath.Abs(filepath.Join("..", "..", "bench", "testdata", "benchmark", "data", "mini-bench"))
	if err != nil {
		t.Fatal(err)
	}
	work, out := filepath.Join(t.TempDir(), "work"), filepath.Join(t.TempDir(), "report.json")
	start := time.Now()
	oc.exec(15*time.Minute, binary, "bench", "run", dir, "--arms", "skills+memory", "--days", "2", "--agent", "openclaw",
		"--openclaw", ocBin, "--work", work, "--out", out)
	t.Logf("bench run: 7 OpenClaw turns and 2 seed imports in %.0fs", time.Since(start).Seconds())

	rep := readBenchReport(t, out)
	if len(rep.Arms) != 1 || rep.Status != store.BenchDone || rep.Agent != "openclaw" {
		t.Fatalf("report: status %s, agent %s, %d arms", rep.Status, rep.Agent, len(rep.Arms))
	}
	arm := rep.Arms[0]
	checkOpenClawScores(t, arm)
	checkOpenClawWorkspaces(t, filepath.Join(work, "arms", "skills-memory"))
	checkOpenClawLearning(t, m, arm)
	checkOpenClawRequests(t, up.Requests())
	checkOpenClawTurns(t, filepath.Join(work, "arms", "skills-memory", "home"), rep.ID)
	if n := m.Hits(""); n != 0 {
		t.Errorf("%d requests the scripted model did not expect", n)
	}
}

func readBenchReport(t *testing.T, path string) store.BenchReport {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep store.BenchReport
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

// checkOpenClawScores compares the round scores with benchtest.Scores'
// (computed by hand) for the two days run: 0.75, 0, 0 on day 1; on day 2
// the skill and the memory learnt from day 1 make the report pass its
// check and the naming question right.
func checkOpenClawScores(t *testing.T, arm store.BenchArm) {
	t.Helper()
	want := map[string]float64{}
	for k, v := range benchtest.Scores["skills+memory"] {
		if !strings.HasPrefix(k, "day03/") {
			want[k] = v
		}
	}
	got := map[string]float64{}
	for _, r := range arm.Rounds {
		got[r.Day+"/"+r.Round] = r.Score
		if r.Error != "" {
			t.Errorf("%s %s: agent error %s", r.Day, r.Round, r.Error)
		}
	}
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); d != "" {
		t.Errorf("round scores (-want +got):\n%s", d)
	}
	if arm.DaysDone != 2 || arm.Summary.FileChecks != 2 || arm.Summary.FileChecksOK != 1 {
		t.Errorf("days done %d, file checks %d passed of %d; want 2, 1 of 2", arm.DaysDone, arm.Summary.FileChecksOK, arm.Summary.FileChecks)
	}
}

// checkOpenClawWorkspaces checks the files OpenClaw's write tool wrote in
// each day's workspace, which the file checks then ran on.
func checkOpenClawWorkspaces(t *testing.T, armDir string) {
	t.Helper()
	for path, want := range map[string]string{
		"day01/workspace/day01/report.json":                 `{"status": "ok"}`,
		"day02/workspace/day02/20260317_status_report.json": `{"owner": "sam", "status": "ok"}`,
	} {
		data, err := os.ReadFile(filepath.Join(armDir, path))
		if err != nil || string(data) != want {
			t.Errorf("%s: %q, %v; want %q", path, data, err, want)
		}
	}
}

// checkOpenClawLearning checks that MetaClaw learnt from day 1 once: one
// evolver call, one extraction, the asks of the skill it added, no
// evolution of an empty or repeated session, and the calls counted.
func checkOpenClawLearning(t *testing.T, m *fakeupstream.Model, arm store.BenchArm) {
	t.Helper()
	hits := map[string]int{}
	for _, name := range []string{"evolver-day1", "evolver", "extract-day1", "extract", "asks"} {
		hits[name] = m.Hits(name)
	}
	if d := cmp.Diff(map[string]int{"evolver-day1": 1, "evolver": 0, "extract-day1": 1, "extract": 0, "asks": 1}, hits); d != "" {
		t.Errorf("learning calls by rule (-want +got):\n%s", d)
	}
	// Day 1: r1, r2's write and answer, r3, the closing feedback; day 2:
	// r1's write and answer, r2, the feedback. Every agent reply reports
	// benchtest.AgentUsage, every learning reply LearningUsage.
	wantAgent := store.BenchUsage{Calls: 9, PromptTokens: 900, CompletionTokens: 90}
	wantLearning := store.BenchUsage{Calls: 3, PromptTokens: 150, CompletionTokens: 15} // the evolver, and the asks of the skill it added
	if arm.Agent != wantAgent || arm.Learning != wantLearning {
		t.Errorf("spent agent %+v, learning %+v; want %+v and %+v", arm.Agent, arm.Learning, wantAgent, wantLearning)
	}
	var skill, memory bool
	for _, s := range arm.Skills {
		skill = skill || s.Name == benchtest.SkillName
	}
	for _, mem := range arm.Memories {
		memory = memory || strings.Contains(mem.Content, benchtest.MemoryMarker)
	}
	if !skill || !memory {
		t.Errorf("the arm ended with the evolved skill: %v, the memory: %v", skill, memory)
	}
}

// checkOpenClawRequests checks what OpenClaw sent the model: the day's
// session seed before the first round, the bench's headers gone, and no
// tools offered with the feedback that closes a day.
func checkOpenClawRequests(t *testing.T, reqs []fakeupstream.Recorded) {
	t.Helper()
	seeded, feedback := 0, 0
	for _, r := range reqs {
		c := fakeupstream.ParseConversation(openclawRequest(r.Body))
		if strings.Contains(c.LastUser, "[d1r1]") && strings.Contains(string(r.Body), "(seed day01)") {
			seeded++
		}
		if strings.Contains(c.LastUser, "[d2r1]") && strings.Contains(string(r.Body), "(seed day02)") {
			seeded++
		}
		if isFeedback(c) {
			feedback++
			if len(c.Tools) > 0 {
				t.Errorf("the closing feedback was sent with %d tools", len(c.Tools))
			}
		}
		if r.Header.Get("X-Session-Done") != "" || r.Header.Get("X-Metaclaw-Bench") != "" {
			t.Errorf("a request reached the provider with the bench's headers: %v", r.Header)
		}
	}
	if seeded < 2 || feedback != 2 {
		t.Errorf("%d first rounds with their seed (want 2 or more), %d closing feedbacks (want 2)", seeded, feedback)
	}
}

// checkOpenClawTurns opens the arm's database and checks the turns its
// MetaClaw recorded: five on day 1 (the write among them) in a session
// that ended on the bench's marker, four on day 2.
func checkOpenClawTurns(t *testing.T, home, runID string) {
	t.Helper()
	db, err := store.Open(filepath.Join(home, "metaclaw.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	for day, want := range map[string]int{"day01": 5, "day02": 4} {
		id := "bench-" + runID + "-skills-memory-" + day
		turns, err := db.SessionTurns(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		wrote := false
		for _, tu := range turns {
			wrote = wrote || strings.Contains(tu.ToolCalls, `"write"`)
		}
		if len(turns) != want || !wrote {
			t.Errorf("%s: %d turns recorded (want %d), a write among them: %v", id, len(turns), want, wrote)
		}
		s, err := db.Session(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if day == "day01" && s.EndReason != "done" {
			t.Errorf("%s ended %q, want done", id, s.EndReason)
		}
	}
}

// openclawModel answers OpenClaw's requests with the scripted model m, as
// a model reads them: without OpenClaw's internal-context message, date
// prefixes and Runtime line (openclawRequest). The feedback that closes a
// group is answered with a read of AGENTS.md first when tools are offered
// (a model that checks the workspace before it answers), then with a
// short text.
func openclawModel(m *fakeupstream.Model) func(*http.Request, []byte) fakeupstream.Reply {
	return func(r *http.Request, body []byte) fakeupstream.Reply {
		body = openclawRequest(body)
		c := fakeupstream.ParseConversation(body)
		if !isFeedback(c) {
			return m.Reply(r, body)
		}
		if c.Steps == 0 && len(c.Tools) > 0 {
			return fakeupstream.Reply{Usage: &benchtest.AgentUsage,
				ToolCalls: []fakeupstream.ToolCall{{Name: "read", Arguments: `{"path":"AGENTS.md"}`}}}
		}
		return fakeupstream.Reply{Text: "Noted, thank you.", Usage: &benchtest.AgentUsage}
	}
}

var (
	roundTagRE = regexp.MustCompile(`\[d\dr\d\]`)
	// OpenClaw's "[Wed 2026-12-02 06:19 UTC] " before the user's text.
	ocDateRE = regexp.MustCompile(`^\[[A-Z][a-z]{2} \d{4}-\d{2}-\d{2} \d{2}:\d{2}[^\]]*\] `)
	// OpenClaw's "\n\nRuntime: agent=… | …" after a session's first text.
	ocRuntimeRE = regexp.MustCompile(`\n\nRuntime: [^\n]*$`)
)

// isFeedback reports whether the request answers a group's closing
// feedback (or the day's closing message): no round in it.
func isFeedback(c fakeupstream.Conversation) bool {
	return (strings.HasPrefix(c.LastUser, "[Previous Feedback]") || strings.HasPrefix(c.LastUser, "That is all for today")) &&
		!roundTagRE.MatchString(c.LastUser)
}

// openclawRequest rewrites an OpenClaw chat request as the model reads it:
// the internal-context user messages dropped, and the date prefix and
// Runtime line cut from the user's texts. Other requests pass unchanged.
func openclawRequest(body []byte) []byte {
	var req map[string]any
	if json.Unmarshal(body, &req) != nil {
		return body
	}
	msgs, _ := req["messages"].([]any)
	var kept []any
	for _, raw := range msgs {
		msg, _ := raw.(map[string]any)
		if msg["role"] == "user" {
			if s, ok := msg["content"].(string); ok {
				msg["content"] = ocRuntimeRE.ReplaceAllString(ocDateRE.ReplaceAllString(s, ""), "")
			} else if internalContext(msg["content"]) {
				continue
			}
		}
		kept = append(kept, msg)
	}
	req["messages"] = kept
	out, err := json.Marshal(req)
	if err != nil {
		return body
	}
	return out
}

// internalContext reports whether content parts hold OpenClaw's internal
// context.
func internalContext(content any) bool {
	parts, _ := content.([]any)
	for _, p := range parts {
		part, _ := p.(map[string]any)
		if text, _ := part["text"].(string); strings.Contains(text, "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>") {
			return true
		}
	}
	return false
}
