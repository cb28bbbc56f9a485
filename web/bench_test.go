package web

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/metaclaw/metaclaw/store"
)

// benchFixture is a bench report of two days, two arcs and three arms,
// skills+memory not yet through day 2.
func benchFixture(id string, at time.Time) store.BenchReport {
	day := func(d string, acc float64, n int) store.BenchScore {
		return store.BenchScore{Key: d, Rounds: n, Accuracy: acc}
	}
	return store.BenchReport{ID: id, Benchmark: "mini-bench", Dir: "/bench/mini", Agent: "builtin", Model: "kimi-k2.5",
		Status: store.BenchRunning, StartedAt: at, UpdatedAt: at,
		Days: []store.BenchDay{{ID: "day01", Arc: "A", Rounds: 3}, {ID: "day02", Arc: "B", Rounds: 2}},
		Arms: []store.BenchArm{
			{Name: "base", Setup: "no MetaClaw", DaysDone: 2, Summary: store.BenchScore{Rounds: 5, Accuracy: 0.3, FileChecks: 2},
				ByDay: []store.BenchScore{day("day01", 0.25, 3), day("day02", 0.5, 2)}, ByArc: []store.BenchScore{day("A", 0.25, 3), day("B", 0.5, 2)},
				Agent: store.BenchUsage{Calls: 9, PromptTokens: 900, CompletionTokens: 90}},
			{Name: "skills", Setup: "skills_only", DaysDone: 2, Summary: store.BenchScore{Rounds: 5, Accuracy: 0.45, FileChecks: 2, FileChecksOK: 1, FileCheckRate: 0.5},
				ByDay: []store.BenchScore{day("day01", 0.25, 3), day("day02", 0.75, 2)}, ByArc: []store.BenchScore{day("A", 0.25, 3), day("B", 0.75, 2)},
				Learning: store.BenchUsage{Calls: 1, PromptTokens: 50, CompletionTokens: 5},
				Skills:   []store.BenchSkill{{Name: "concise-answers", Source: "starter", Version: 1}, {Name: "dated-report-names", Description: "When writing reports.", Source: "evolver", Version: 1}}},
			{Name: "skills+memory", Setup: "skills and memory", DaysDone: 1, Summary: store.BenchScore{Rounds: 3, Accuracy: 0.25},
				ByDay: []store.BenchScore{day("day01", 0.25, 3)}, ByArc: []store.BenchScore{day("A", 0.25, 3)},
				Memories: []store.BenchMemory{{Type: "preference", Content: "The user wants an owner in every report."}}},
		},
		Diffs: []store.BenchDiff{{Arm: "skills", Baseline: "base", Rounds: 5, Mean: 0.15, Low: 0, High: 0.4, Method: "paired bootstrap over rounds"}},
		Notes: []string{"skills+memory: memory extraction of day01 failed: HTTP 500"}}
}

func TestBenchDayChart(t *testing.T) {
	lc := benchDayChart(benchFixture("r", time.Now()))
	// The plot spans x 44..688 and y 14 (100 %)..206 (0 %).
	got := map[string]string{}
	for _, s := range lc.Series {
		got[s.Name+" "+s.Class] = s.Path
	}
	want := map[string]string{"base arm0": "44.0,158.0 688.0,110.0", "skills arm1": "44.0,158.0 688.0,62.0", "skills+memory arm2": "44.0,158.0"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("series (-want +got):\n%s", d)
	}
	if len(lc.XTicks) != 2 || lc.XTicks[1].Label != "day02" || lc.YTicks[4].Label != "100%" {
		t.Errorf("ticks %+v %+v", lc.XTicks, lc.YTicks)
	}
}

func TestBenchPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.login(t)
	if p := e.get(t, c, "/bench"); p.status != http.StatusOK || !strings.Contains(p.body, `data-testid="bench-empty"`) {
		t.Fatalf("no run yet: status %d, body %.500s", p.status, p.body)
	}
	ctx := context.Background()
	old, cur := benchFixture("run-old", time.Now().Add(-time.Hour)), benchFixture("run-new", time.Now())
	old.Benchmark, old.Status = "older-bench", store.BenchDone
	for _, r := range []*store.BenchReport{&old, &cur} {
		if err := e.db.SaveBenchReport(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	p := e.get(t, c, "/bench")
	for _, w := range []string{`data-testid="bench-chart"`, `data-testid="bench-arm-skills+memory"`, "mini-bench", "45.0%",
		"1/2 (50.0%)", "+15.0", "[+0.0, +40.0]", "dated-report-names", "an owner in every report", "HTTP 500",
		`href="/bench?run=run-old"`, `data-testid="nav-bench"`} {
		if !strings.Contains(p.body, w) {
			t.Errorf("/bench lacks %q", w)
		}
	}
	if strings.Contains(p.body, "concise-answers") {
		t.Error("a starter skill was shown as learnt")
	}
	if p := e.get(t, c, "/bench?run=run-old"); !strings.Contains(p.body, "older-bench") {
		t.Errorf("?run=run-old did not show that run")
	}
	if p := e.get(t, c, "/bench?run=nope"); p.status != http.StatusNotFound {
		t.Errorf("unknown run: status %d", p.status)
	}
}

// TestBrowserBench opens the Bench view from the navigation in chromium
// and reads the chart: one line per arm, one point per day played.
func TestBrowserBench(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t)
	rep := benchFixture("run-1", time.Now())
	if err := e.db.SaveBenchReport(context.Background(), &rep); err != nil {
		t.Fatal(err)
	}
	login, err := e.srv.LoginURL(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sh := newShots(t)
	run(t, ctx, "log in", chromedp.Navigate(login), chromedp.WaitVisible(tid("nav-bench")))
	run(t, ctx, "open Bench", chromedp.Click(tid("nav-bench")), chromedp.WaitVisible(tid("bench-chart")))
	points, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](`[...document.querySelectorAll('[data-testid="bench-chart"] polyline')]
		.map(p => p.points.numberOfItems)`))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]int{2, 2, 1}, points); d != "" {
		t.Errorf("points per arm (-want +got):\n%s", d)
	}
	acc, err := chromedp.Run(ctx, chromedp.Text(tid("bench-accuracy-skills")))
	if err != nil || acc != "45.0%" {
		t.Errorf("skills accuracy cell = %q, %v", acc, err)
	}
	sh.take(ctx, "bench")
}
