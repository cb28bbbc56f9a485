package web

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/metaclaw/metaclaw/store"
)

// The charts are inline SVG computed here, as pure functions of the data:
// no JavaScript, nothing fetched.

// DayScore is the judge's mean score of one day's scored turns.
type DayScore struct {
	Day   time.Time // local midnight
	Mean  float64   // -1..1
	Turns int
}

// dailyScores groups scored turns by local day, oldest first, keeping the
// last maxDays days that have scores.
func dailyScores(turns []store.ScoredTurn, loc *time.Location, maxDays int) []DayScore {
	sums := map[time.Time]int{}
	counts := map[time.Time]int{}
	for _, t := range turns {
		at := t.At.In(loc)
		day := time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, loc)
		sums[day] += t.Score
		counts[day]++
	}
	out := make([]DayScore, 0, len(counts))
	for day, n := range counts {
		out = append(out, DayScore{Day: day, Mean: float64(sums[day]) / float64(n), Turns: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Day.Before(out[j].Day) })
	if len(out) > maxDays {
		out = out[len(out)-maxDays:]
	}
	return out
}

// Chart geometry shared by both charts.
const (
	chartW    = 720
	chartH    = 240
	padLeft   = 44
	padRight  = 32
	padTop    = 14
	padBottom = 34
)

// LineChart is a drawn time series: the polyline, its dots and labels.
type LineChart struct {
	W, H    int
	Path    string // "x,y x,y ..." for <polyline points>
	Dots    []Dot
	YTicks  []Tick
	XTicks  []Tick
	X0, X1  int // plot area
	Y0, Y1  int
	ZeroY   string
	Band    string // "x,y ..." for <polygon points>: a ± spread around the series; "" for none
	Summary string // text alternative
}

// Dot is one point with its tooltip.
type Dot struct{ X, Y, Title string }

// Tick is an axis label at a position.
type Tick struct{ Pos, Label string }

func f1(v float64) string { return fmt.Sprintf("%.1f", v) }

// signed labels an axis value: "+0.5", "0", "-1".
func signed(v float64) string {
	if v == 0 {
		return "0"
	}
	return fmt.Sprintf("%+g", v)
}

// scoreLine draws daily mean scores on a -1..1 axis.
func scoreLine(days []DayScore) LineChart {
	lc := LineChart{W: chartW, H: chartH, X0: padLeft, X1: chartW - padRight, Y0: padTop, Y1: chartH - padBottom}
	y := func(v float64) float64 { return float64(lc.Y0) + (1-v)/2*float64(lc.Y1-lc.Y0) }
	x := func(i int) float64 {
		if len(days) < 2 {
			return float64(lc.X0+lc.X1) / 2
		}
		return float64(lc.X0) + float64(i)*float64(lc.X1-lc.X0)/float64(len(days)-1)
	}
	lc.ZeroY = f1(y(0))
	for _, v := range []float64{1, 0.5, 0, -0.5, -1} {
		lc.YTicks = append(lc.YTicks, Tick{Pos: f1(y(v)), Label: signed(v)})
	}
	turns := 0
	for i, d := range days {
		px, py := f1(x(i)), f1(y(d.Mean))
		if i > 0 {
			lc.Path += " "
		}
		lc.Path += px + "," + py
		lc.Dots = append(lc.Dots, Dot{X: px, Y: py, Title: fmt.Sprintf("%s: mean %+.2f over %d turns", d.Day.Format("2006-01-02"), d.Mean, d.Turns)})
		turns += d.Turns
	}
	for _, i := range labelIndexes(len(days), 6) {
		lc.XTicks = append(lc.XTicks, Tick{Pos: f1(x(i)), Label: days[i].Day.Format("Jan 2")})
	}
	lc.Summary = fmt.Sprintf("%d scored turns over %d days", turns, len(days))
	return lc
}

// labelIndexes picks at most max evenly spread indexes of n, the first
// and last included.
func labelIndexes(n, max int) []int {
	if n == 0 {
		return nil
	}
	if n <= max {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	var out []int
	for k := 0; k < max; k++ {
		out = append(out, int(math.Round(float64(k)*float64(n-1)/float64(max-1))))
	}
	return out
}

// BarChart is the per-skill efficacy chart: for each skill, the mean score
// of turns with it and without it, on a -1..1 axis centred at 0.
type BarChart struct {
	W, H   int
	Rows   []BarRow
	ZeroX  string
	X0, X1 int
	Ticks  []Tick
}

// BarRow is one skill's two bars.
type BarRow struct {
	Name, Link          string
	Y, OutY, LabelY     string
	WithX, WithW, WithT string
	OutX, OutW, OutT    string
	BarH                string
}

const (
	barRowH  = 30
	barLabel = 220 // room for the skill names
)

// efficacyBars draws the skills with scored turns, most injected first.
func efficacyBars(eff map[string]store.Efficacy, limit int) BarChart {
	names := make([]string, 0, len(eff))
	for n, e := range eff {
		if e.ScoredWith > 0 {
			names = append(names, n)
		}
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := eff[names[i]], eff[names[j]]
		if a.Injected != b.Injected {
			return a.Injected > b.Injected
		}
		return names[i] < names[j]
	})
	if len(names) > limit {
		names = names[:limit]
	}
	bc := BarChart{W: chartW, X0: barLabel, X1: chartW - padRight}
	bc.H = padTop + len(names)*barRowH + padBottom
	x := func(v float64) float64 { return float64(bc.X0) + (v+1)/2*float64(bc.X1-bc.X0) }
	bc.ZeroX = f1(x(0))
	for _, v := range []float64{-1, -0.5, 0, 0.5, 1} {
		bc.Ticks = append(bc.Ticks, Tick{Pos: f1(x(v)), Label: signed(v)})
	}
	for i, n := range names {
		e := eff[n]
		top := float64(padTop + i*barRowH)
		r := BarRow{Name: n, Link: skillURL(n), Y: f1(top + 4), OutY: f1(top + 15), LabelY: f1(top + barRowH/2 + 4), BarH: "10"}
		r.WithX, r.WithW = span(x(0), x(e.MeanWith))
		r.WithT = fmt.Sprintf("%s — with it: mean %s over %d scored turns", n, fmtMean(e.MeanWith), e.ScoredWith)
		r.OutX, r.OutW = span(x(0), x(nanTo0(e.MeanWithout)))
		r.OutT = fmt.Sprintf("%s — without it: mean %s over %d scored turns", n, fmtMean(e.MeanWithout), e.ScoredWithout)
		bc.Rows = append(bc.Rows, r)
	}
	return bc
}

// span returns the left edge and width of a bar between two x positions;
// a zero-length bar is drawn 1px wide so it stays visible.
func span(a, b float64) (string, string) {
	lo, w := math.Min(a, b), math.Abs(b-a)
	if w < 1 {
		w = 1
	}
	return f1(lo), f1(w)
}

func nanTo0(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}
