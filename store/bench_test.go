package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestBenchReportsRoundTrip(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	start := time.UnixMilli(1_800_000_000_000).UTC()
	r := BenchReport{ID: "run1", Benchmark: "mini", Status: BenchRunning, StartedAt: start, UpdatedAt: start,
		Days: []BenchDay{{ID: "day01", Arc: "A", Rounds: 2}},
		Arms: []BenchArm{{Name: "base", Summary: BenchScore{Rounds: 2, Accuracy: 0.75},
			Rounds: []BenchRound{{Day: "day01", Round: "r1", Type: "multi_choice", Score: 0.5, Selected: []string{"A"}}}}},
		Diffs: []BenchDiff{{Arm: "skills", Baseline: "base", Rounds: 2, Mean: 0.25, Low: -0.5, High: 1}}}
	if err := db.SaveBenchReport(ctx, &r); err != nil {
		t.Fatal(err)
	}
	got, err := db.BenchReportByID(ctx, "run1")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(r, got); d != "" {
		t.Errorf("stored report differs (-want +got):\n%s", d)
	}
	// A later save replaces it; a second run comes first once updated later.
	r.Status, r.UpdatedAt = BenchDone, start.Add(time.Hour)
	if err := db.SaveBenchReport(ctx, &r); err != nil {
		t.Fatal(err)
	}
	r2 := BenchReport{ID: "run2", Benchmark: "mini", Status: BenchRunning, StartedAt: start, UpdatedAt: start.Add(2 * time.Hour)}
	if err := db.SaveBenchReport(ctx, &r2); err != nil {
		t.Fatal(err)
	}
	all, err := db.BenchReports(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0].ID != "run2" || all[1].ID != "run1" || all[1].Status != BenchDone {
		t.Errorf("reports = %+v", all)
	}
	if _, err := db.BenchReportByID(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing report: err = %v, want ErrNotFound", err)
	}
	bad := BenchReport{ID: "run3", Status: "weird", StartedAt: start, UpdatedAt: start}
	if err := db.SaveBenchReport(ctx, &bad); err == nil {
		t.Error("a report with an unknown status was stored")
	}
}
