package web

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/metaclaw/metaclaw/store"
)

func TestDailyScores(t *testing.T) {
	t.Parallel()
	loc := time.UTC
	day := func(d, h int) time.Time { return time.Date(2026, 3, d, h, 0, 0, 0, loc) }
	tests := []struct {
		name    string
		turns   []store.ScoredTurn
		maxDays int
		want    []DayScore
	}{
		{"empty", nil, 10, []DayScore{}},
		{"grouped by day, sorted", []store.ScoredTurn{{Score: 1, At: day(2, 9)}, {Score: -1, At: day(1, 23)}, {Score: 0, At: day(2, 20)}}, 10,
			[]DayScore{{Day: day(1, 0), Mean: -1, Turns: 1}, {Day: day(2, 0), Mean: 0.5, Turns: 2}}},
		{"keeps the last days", []store.ScoredTurn{{Score: 1, At: day(1, 1)}, {Score: 1, At: day(2, 1)}, {Score: -1, At: day(3, 1)}}, 2,
			[]DayScore{{Day: day(2, 0), Mean: 1, Turns: 1}, {Day: day(3, 0), Mean: -1, Turns: 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, dailyScores(tc.turns, loc, tc.maxDays)); diff != "" {
				t.Errorf("dailyScores (-want +got):\n%s", diff)
			}
		})
	}
}

func TestScoreLineGeometry(t *testing.T) {
	t.Parallel()
	days := []DayScore{{Day: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), Mean: 1, Turns: 2},
		{Day: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), Mean: -1, Turns: 1}}
	lc := scoreLine(days)
	// +1 sits at the top of the plot, -1 at the bottom, first and last day
	// at the plot's edges.
	want := "44.0,14.0 688.0,206.0"
	if lc.Path != want {
		t.Errorf("path %q, want %q", lc.Path, want)
	}
	if lc.ZeroY != "110.0" || len(lc.XTicks) != 2 || lc.Summary != "3 scored turns over 2 days" {
		t.Errorf("zero %s ticks %d summary %q", lc.ZeroY, len(lc.XTicks), lc.Summary)
	}
	if one := scoreLine(days[:1]); one.Path != "366.0,14.0" {
		t.Errorf("single day path %q", one.Path)
	}
}

func TestLabelIndexes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n, max int
		want   []int
	}{{0, 6, nil}, {3, 6, []int{0, 1, 2}}, {11, 3, []int{0, 5, 10}}, {60, 6, []int{0, 12, 24, 35, 47, 59}}} {
		if diff := cmp.Diff(tc.want, labelIndexes(tc.n, tc.max)); diff != "" {
			t.Errorf("labelIndexes(%d, %d): %s", tc.n, tc.max, diff)
		}
	}
}

func TestEfficacyBars(t *testing.T) {
	t.Parallel()
	eff := map[string]store.Efficacy{
		"often":   {Injected: 9, ScoredWith: 4, MeanWith: 0.5, ScoredWithout: 2, MeanWithout: -0.5},
		"rare":    {Injected: 2, ScoredWith: 1, MeanWith: -1, ScoredWithout: 5, MeanWithout: math.NaN()},
		"unused":  {Injected: 3, ScoredWith: 0, MeanWith: math.NaN()},
		"another": {Injected: 2, ScoredWith: 2, MeanWith: 0, ScoredWithout: 4, MeanWithout: 0},
	}
	bc := efficacyBars(eff, 10)
	var names []string
	for _, r := range bc.Rows {
		names = append(names, r.Name)
	}
	if diff := cmp.Diff([]string{"often", "another", "rare"}, names); diff != "" {
		t.Fatalf("rows (-want +got):\n%s", diff)
	}
	// The zero line is at the middle of the plot; "often" reaches a
	// quarter of the half-width to the right.
	if bc.ZeroX != "454.0" || bc.Rows[0].WithX != "454.0" || bc.Rows[0].WithW != "117.0" {
		t.Errorf("zero %s with x %s w %s", bc.ZeroX, bc.Rows[0].WithX, bc.Rows[0].WithW)
	}
	if bc.Rows[1].WithW != "1.0" || !strings.Contains(bc.Rows[2].OutT, "–") {
		t.Errorf("zero-width bar %s, NaN title %q", bc.Rows[1].WithW, bc.Rows[2].OutT)
	}
	if got := efficacyBars(eff, 1); len(got.Rows) != 1 {
		t.Errorf("limit: %d rows", len(got.Rows))
	}
}
