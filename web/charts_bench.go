package web

import (
	"fmt"
	"strings"

	"github.com/metaclaw/metaclaw/store"
)

// MultiLineChart is several series on one 0..1 axis: a bench run's
// accuracy per day, one line per arm.
type MultiLineChart struct {
	W, H, X0, X1, Y0, Y1 int
	YTicks, XTicks       []Tick
	Series               []ChartSeries
	Summary              string
}

// ChartSeries is one arm's line.
type ChartSeries struct {
	Name, Class string
	Path        string // "x,y x,y ..." for <polyline points>
	Dots        []Dot
}

// armClass is the CSS class of the i-th arm's colour.
func armClass(i int) string { return fmt.Sprintf("arm%d", i%4) }

// benchDayChart draws each arm's accuracy per day of a bench report, the
// days in the benchmark's order; a day an arm has not played yet has no
// point.
func benchDayChart(rep store.BenchReport) MultiLineChart {
	lc := MultiLineChart{W: chartW, H: chartH, X0: padLeft, X1: chartW - padRight, Y0: padTop, Y1: chartH - padBottom}
	n := len(rep.Days)
	x := func(i int) float64 {
		if n < 2 {
			return float64(lc.X0+lc.X1) / 2
		}
		return float64(lc.X0) + float64(i)*float64(lc.X1-lc.X0)/float64(n-1)
	}
	y := func(v float64) float64 { return float64(lc.Y1) - v*float64(lc.Y1-lc.Y0) }
	for _, v := range []float64{0, 0.25, 0.5, 0.75, 1} {
		lc.YTicks = append(lc.YTicks, Tick{Pos: f1(y(v)), Label: fmt.Sprintf("%.0f%%", 100*v)})
	}
	for _, i := range labelIndexes(n, 10) {
		lc.XTicks = append(lc.XTicks, Tick{Pos: f1(x(i)), Label: rep.Days[i].ID})
	}
	var parts []string
	for ai, arm := range rep.Arms {
		s := ChartSeries{Name: arm.Name, Class: armClass(ai)}
		byDay := map[string]store.BenchScore{}
		for _, d := range arm.ByDay {
			byDay[d.Key] = d
		}
		var pts []string
		for di, day := range rep.Days {
			d, ok := byDay[day.ID]
			if !ok {
				continue
			}
			px, py := f1(x(di)), f1(y(d.Accuracy))
			pts = append(pts, px+","+py)
			s.Dots = append(s.Dots, Dot{X: px, Y: py, Title: fmt.Sprintf("%s, %s: accuracy %.1f%% over %d rounds",
				arm.Name, day.ID, 100*d.Accuracy, d.Rounds)})
		}
		s.Path = strings.Join(pts, " ")
		lc.Series = append(lc.Series, s)
		parts = append(parts, fmt.Sprintf("%s %.1f%%", arm.Name, 100*arm.Summary.Accuracy))
	}
	lc.Summary = fmt.Sprintf("accuracy per day over %d days; overall %s", n, strings.Join(parts, ", "))
	return lc
}
