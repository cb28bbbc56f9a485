package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/metaclaw/metaclaw/app/bench"
	"github.com/metaclaw/metaclaw/app/bench/benchtest"
	"github.com/metaclaw/metaclaw/app/instance"
	"github.com/metaclaw/metaclaw/app/learner/toolloop"
	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

const miniBench = "../bench/testdata/benchmark/data/mini-bench"

// benchHome makes a data directory configured for the fake provider, with
// the scripted model answering.
func benchHome(t *testing.T, m *fakeupstream.Model) (string, *fakeupstream.Server) {
	t.Helper()
	up := fakeupstream.New()
	base, err := up.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { up.Close() })
	up.SetDefault(fakeupstream.Reply{Func: m.Reply})
	home := t.TempDir()
	db, err := store.Open(filepath.Join(home, instance.DBName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := config.Save(context.Background(), db, map[string]string{"llm.provider": "custom",
		"llm.api_base": base + "/v1", "llm.api_key": "sk-fake", "llm.model_id": "fake-model"}); err != nil {
		t.Fatal(err)
	}
	t.Setenv("METACLAW_HOME", home)
	return home, up
}

func isolationFlag(t *testing.T) []string {
	if err := toolloop.ProbeIsolation(context.Background()); err != nil {
		t.Logf("no network isolation here (%v): running with --allow-network", err)
		return []string{"--allow-network"}
	}
	return nil
}

// TestBenchRunScoresEveryRound runs `metaclaw bench run` on the mini
// benchmark with three arms against the scripted model and checks every
// score, aggregate and count against the values computed by hand (see
// benchtest.Model), the messages the rounds sent, and that the report
// reached the database.
func TestBenchRunScoresEveryRound(t *testing.T) {
	m := benchtest.Model(nil)
	home, up := benchHome(t, m)
	out := filepath.Join(t.TempDir(), "report.json")
	args := append([]string{"bench", "run", miniBench, "--arms", "base,skills,skills+memory", "--out", out}, isolationFlag(t)...)
	var stdout, stderr bytes.Buffer
	if code := Main(args, &Env{Stdout: &stdout, Stderr: &stderr, Version: "test"}); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	if n := m.Hits(""); n != 0 {
		t.Errorf("%d requests the scripted model did not expect", n)
	}
	rep := readReport(t, out)
	if rep.Status != store.BenchDone || len(rep.Days) != 3 || len(rep.Arms) != 3 {
		t.Fatalf("report: status %s, %d days, %d arms", rep.Status, len(rep.Days), len(rep.Arms))
	}
	checkRoundScores(t, rep)
	checkAggregates(t, rep)
	checkSpending(t, rep)
	checkLearnt(t, rep)
	checkMessages(t, up.Requests())
	checkProgressAndText(t, stderr.String(), stdout.String())
	checkStored(t, home, rep)
	t.Logf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	if _, err := os.Stat(filepath.Join(home, "bench", "mini-bench", "arms", "base", "day02", "workspace", "day02", "naming_rules.md")); err != nil {
		t.Errorf("day 2's workspace update was not applied: %v", err)
	}
}

func readReport(t *testing.T, path string) store.BenchReport {
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

var approx = cmpopts.EquateApprox(0, 1e-9)

func checkRoundScores(t *testing.T, rep store.BenchReport) {
	t.Helper()
	for _, arm := range rep.Arms {
		got := map[string]float64{}
		for _, r := range arm.Rounds {
			got[r.Day+"/"+r.Round] = r.Score
		}
		if d := cmp.Diff(benchtest.Scores[arm.Name], got, approx); d != "" {
			t.Errorf("%s: round scores (-want +got):\n%s", arm.Name, d)
		}
		for _, r := range arm.Rounds {
			if r.Day == "day01" && r.Round == "r3" && (r.Format || r.Selected != nil) {
				t.Errorf("%s: day01 r3 had no \\bbox, yet format_ok %v selected %v", arm.Name, r.Format, r.Selected)
			}
			if r.Day == "day01" && r.Round == "r1" && (!cmp.Equal(r.Selected, []string{"A"}) || !cmp.Equal(r.Expected, []string{"A", "C"})) {
				t.Errorf("%s: day01 r1 selected %v expected %v", arm.Name, r.Selected, r.Expected)
			}
		}
	}
}

func checkAggregates(t *testing.T, rep store.BenchReport) {
	t.Helper()
	// Hand-computed: base rounds .75 0 0 | 0 2/3 | .75 0; skills .75 0 0 |
	// 0 1 | .75 0; skills+memory .75 0 0 | 1 1 | 1 1.
	type agg struct {
		Acc, MC  float64
		FC, FCOK int
		Days     []float64
		Arcs     []float64
	}
	want := map[string]agg{
		"base":          {Acc: (0.75 + 2.0/3 + 0.75) / 7, MC: (0.75 + 2.0/3 + 0.75) / 4, FC: 3, FCOK: 0, Days: []float64{0.25, 1.0 / 3, 0.375}, Arcs: []float64{(0.75 + 2.0/3) / 5, 0.375}},
		"skills":        {Acc: 2.5 / 7, MC: 2.5 / 4, FC: 3, FCOK: 0, Days: []float64{0.25, 0.5, 0.375}, Arcs: []float64{1.75 / 5, 0.375}},
		"skills+memory": {Acc: 4.75 / 7, MC: 2.75 / 4, FC: 3, FCOK: 2, Days: []float64{0.25, 1, 1}, Arcs: []float64{2.75 / 5, 1}},
	}
	for _, arm := range rep.Arms {
		got := agg{Acc: arm.Summary.Accuracy, MC: arm.Summary.MultiChoiceMean, FC: arm.Summary.FileChecks, FCOK: arm.Summary.FileChecksOK}
		for _, d := range arm.ByDay {
			got.Days = append(got.Days, d.Accuracy)
		}
		for _, a := range arm.ByArc {
			got.Arcs = append(got.Arcs, a.Accuracy)
		}
		if d := cmp.Diff(want[arm.Name], got, approx); d != "" {
			t.Errorf("%s: aggregates (-want +got):\n%s", arm.Name, d)
		}
		if arm.DaysDone != 3 || arm.Summary.Rounds != 7 || arm.ByArc[0].Key != "A" || arm.ByArc[1].Key != "B" {
			t.Errorf("%s: days done %d, rounds %d, arcs %+v", arm.Name, arm.DaysDone, arm.Summary.Rounds, arm.ByArc)
		}
	}
	// Paired differences: skills − base gains 1/3 on one round of seven;
	// skills+memory − base 1, 1/3, 1/4 and 1; skills+memory − skills 1,
	// 1/4 and 1.
	wantDiffs := map[string]float64{"skills−base": (1.0 / 3) / 7, "skills+memory−base": (1 + 1.0/3 + 0.25 + 1) / 7,
		"skills+memory−skills": 2.25 / 7}
	got := map[string]float64{}
	for _, d := range rep.Diffs {
		got[d.Arm+"−"+d.Baseline] = d.Mean
		if d.Rounds != 7 || d.Low < 0 || d.Low > d.Mean || d.High < d.Mean || !strings.Contains(d.Method, "bootstrap") {
			t.Errorf("difference %+v: want 7 rounds, 0 ≤ low ≤ mean ≤ high (no round got worse)", d)
		}
	}
	if d := cmp.Diff(wantDiffs, got, approx); d != "" {
		t.Errorf("differences (-want +got):\n%s", d)
	}
}

func checkSpending(t *testing.T, rep store.BenchReport) {
	t.Helper()
	// 13 agent calls per arm: day 1 five (r1, r2's tool call and answer,
	// r3, the feedback), days 2 and 3 four each. Learning: the evolver
	// after days 1 and 2, the asks of the skill day 1 added, and in
	// skills+memory the extractor too.
	agent := store.BenchUsage{Calls: 13, PromptTokens: 1300, CompletionTokens: 130}
	learning := map[string]store.BenchUsage{"base": {}, "skills": {Calls: 3, PromptTokens: 150, CompletionTokens: 15},
		"skills+memory": {Calls: 5, PromptTokens: 250, CompletionTokens: 25}}
	for _, arm := range rep.Arms {
		if arm.Agent != agent || arm.Learning != learning[arm.Name] {
			t.Errorf("%s spent agent %+v, learning %+v; want %+v and %+v", arm.Name, arm.Agent, arm.Learning, agent, learning[arm.Name])
		}
	}
}

func checkLearnt(t *testing.T, rep store.BenchReport) {
	t.Helper()
	for _, arm := range rep.Arms {
		var evolved []string
		for _, s := range arm.Skills {
			if s.Source == "evolver" {
				evolved = append(evolved, s.Name)
			}
		}
		var mems []string
		for _, m := range arm.Memories {
			mems = append(mems, m.Content)
		}
		wantSkills, wantMems := []string(nil), []string(nil)
		if arm.Name != "base" {
			wantSkills = []string{benchtest.SkillName}
		}
		if arm.Name == "skills+memory" {
			wantMems = []string{"The user wants every status report to name its owner (MEMORY-MARKER)."}
		}
		if !cmp.Equal(evolved, wantSkills) || !cmp.Equal(mems, wantMems) {
			t.Errorf("%s ended with evolved skills %q and memories %q; want %q and %q", arm.Name, evolved, mems, wantSkills, wantMems)
		}
		if arm.Name != "base" && len(arm.Skills) < 2 {
			t.Errorf("%s: the starter skills are missing: %+v", arm.Name, arm.Skills)
		}
	}
}

// checkMessages checks what the rounds sent: the feedback prefix built
// from the previous round's result, the feedback message after the last
// round, the session seed and the workspace's files in the system prompt.
func checkMessages(t *testing.T, reqs []fakeupstream.Recorded) {
	t.Helper()
	const remind = "\nKeep this in mind for the tasks that follow."
	want := map[string]bool{
		"[Previous Feedback] You missed option C: C is right: ISO dates." + remind + "\n\n[d1r2] Write today's status report for day01 into the day01/ folder as JSON.": false,
		"[Previous Feedback] Status report files are named YYYYMMDD_status_report.json and name their owner." + remind + "\n\n[d1r3]":                                   false,
		"[Previous Feedback] Note: your previous answer had no \\bbox{X} with your choice":                                                                              false,
		"[Previous Feedback] You missed option D: D is right.\nYou wrongly selected option C: C has no date prefix." + remind:                                           false,
		"[Previous Feedback] Correct!\n\n[d3r2]": false,
	}
	seeded := false
	for _, r := range reqs {
		if r.Header.Get(bench.BenchHeader) != "" {
			t.Errorf("the provider saw the bench header on %s", r.Path)
		}
		c := fakeupstream.ParseConversation(r.Body)
		for w := range want {
			if strings.HasPrefix(c.LastUser, w) {
				want[w] = true
			}
		}
		if strings.Contains(c.LastUser, "[d2r1]") && len(c.Messages) > 1 && strings.Contains(c.Messages[0].Text, "seed day02") &&
			strings.Contains(c.System, "keep daily status reports in order") {
			seeded = true
		}
	}
	for w, seen := range want {
		if !seen {
			t.Errorf("no round sent %q", w)
		}
	}
	if !seeded {
		t.Error("day 2's first request lacked its session seed or the workspace's AGENTS.md")
	}
}

func checkProgressAndText(t *testing.T, progress, text string) {
	t.Helper()
	for _, w := range []string{"[day01 1/3] base", "[day03 3/3] skills+memory r2", "running accuracy: base 0.310 (7)"} {
		if !strings.Contains(progress, w) {
			t.Errorf("progress lacks %q:\n%s", w, progress)
		}
	}
	for _, w := range []string{"skills+memory", "0.679", "Accuracy per day", "Accuracy per preference arc", "paired bootstrap",
		"skill " + benchtest.SkillName, "MEMORY-MARKER"} {
		if !strings.Contains(text, w) {
			t.Errorf("the text report lacks %q:\n%s", w, text)
		}
	}
}

func checkStored(t *testing.T, home string, rep store.BenchReport) {
	t.Helper()
	db, err := store.Open(filepath.Join(home, instance.DBName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := db.BenchReportByID(context.Background(), rep.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(rep, got); d != "" {
		t.Errorf("stored report differs from --out (-file +db):\n%s", d)
	}
}

func TestBenchRunRefuses(t *testing.T) {
	m := benchtest.Model(nil)
	benchHome(t, m)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no folder", []string{"bench", "run"}, 2, "usage: metaclaw bench run DIR"},
		{"unknown arm", []string{"bench", "run", miniBench, "--arms", "base,magic"}, 2, `unknown arm "magic"`},
		{"full without a training key", []string{"bench", "run", miniBench, "--arms", "base,full"}, 1, "needs a training service key (rl.api_key)"},
		{"not a benchmark", []string{"bench", "run", t.TempDir()}, 1, "all_tests.json"},
		{"unknown subcommand", []string{"bench", "walk"}, 2, "unknown bench command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Main(tt.args, &Env{Stdout: &stdout, Stderr: &stderr})
			if code != tt.code || !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr.String(), tt.code, tt.want)
			}
		})
	}
}
