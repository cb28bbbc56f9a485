package web

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/metaclaw/metaclaw/store"
)

// stepPoint is one training step's value on a chart, with its spread
// (half the height of the ± band; 0 for none).
type stepPoint struct {
	Step      int
	V, Spread float64
	Samples   int
}

// lossPoints returns the loss of each finished step that has one, oldest
// first; steps arrive newest first, as store.DB.Steps returns them.
func lossPoints(steps []store.TrainingStep) []stepPoint {
	var out []stepPoint
	for _, st := range slices.Backward(steps) {
		if finished(st) && finite(st.Loss) {
			out = append(out, stepPoint{Step: st.Step, V: st.Loss, Samples: st.SamplesUsed})
		}
	}
	return out
}

// rewardPoints returns the reward mean and standard deviation of each
// finished step that has a mean, oldest first (an unknown deviation draws
// no band).
func rewardPoints(steps []store.TrainingStep) []stepPoint {
	var out []stepPoint
	for _, st := range slices.Backward(steps) {
		if !finished(st) || !finite(st.RewardMean) {
			continue
		}
		p := stepPoint{Step: st.Step, V: st.RewardMean, Samples: st.SamplesUsed}
		if finite(st.RewardStd) {
			p.Spread = math.Abs(st.RewardStd)
		}
		out = append(out, p)
	}
	return out
}

// finished reports whether a step ran to its end (a discarded step did,
// its weights were lost later): a failed step's loss means nothing.
func finished(st store.TrainingStep) bool {
	return st.Status == store.StepDone || st.Status == store.StepDiscarded
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// lossLine draws the loss per step.
func lossLine(pts []stepPoint) LineChart {
	lc := stepLine(pts, false, func(p stepPoint) string {
		return fmt.Sprintf("step %d: loss %s over %d samples", p.Step, fmtFloat(p.V), p.Samples)
	})
	if n := len(pts); n > 0 {
		lc.Summary = fmt.Sprintf("loss of %d steps, %s at step %d", n, fmtFloat(pts[n-1].V), pts[n-1].Step)
	}
	return lc
}

// rewardLine draws the reward mean per step with a ± one standard
// deviation band.
func rewardLine(pts []stepPoint) LineChart {
	lc := stepLine(pts, true, func(p stepPoint) string {
		return fmt.Sprintf("step %d: reward mean %s ± %s over %d samples", p.Step, fmtSigned(p.V), fmtFloat(p.Spread), p.Samples)
	})
	if n := len(pts); n > 0 {
		lc.Summary = fmt.Sprintf("reward mean ± standard deviation of %d steps, %s ± %s at step %d", n,
			fmtSigned(pts[n-1].V), fmtFloat(pts[n-1].Spread), pts[n-1].Step)
	}
	return lc
}

// stepLine draws one dot per point, oldest left, on a value axis fitted to
// the points (and to their bands when band is set).
func stepLine(pts []stepPoint, band bool, title func(stepPoint) string) LineChart {
	lc := LineChart{W: chartW, H: chartH, X0: padLeft, X1: chartW - padRight, Y0: padTop, Y1: chartH - padBottom}
	if len(pts) == 0 {
		return lc
	}
	lo, hi := pointRange(pts, band)
	ticks, step := niceTicks(lo, hi)
	lo, hi = ticks[0], ticks[len(ticks)-1]
	y := func(v float64) string { return f1(float64(lc.Y1) - (v-lo)/(hi-lo)*float64(lc.Y1-lc.Y0)) }
	x := func(i int) string { return f1(lc.xAt(i, len(pts))) }
	if lo < 0 && hi > 0 {
		lc.ZeroY = y(0)
	}
	for _, t := range ticks {
		lc.YTicks = append(lc.YTicks, Tick{Pos: y(t), Label: tickLabel(t, step)})
	}
	line := make([]string, len(pts))
	var upper, lower []string
	for i, p := range pts {
		line[i] = x(i) + "," + y(p.V)
		lc.Dots = append(lc.Dots, Dot{X: x(i), Y: y(p.V), Title: title(p)})
		if band {
			upper = append(upper, x(i)+","+y(p.V+p.Spread))
			lower = append(lower, x(i)+","+y(p.V-p.Spread))
		}
	}
	lc.Path = strings.Join(line, " ")
	if band {
		slices.Reverse(lower)
		lc.Band = strings.Join(append(upper, lower...), " ")
	}
	for _, i := range labelIndexes(len(pts), 8) {
		lc.XTicks = append(lc.XTicks, Tick{Pos: x(i), Label: strconv.Itoa(pts[i].Step)})
	}
	return lc
}

// xAt is the x position of the i-th of n evenly spread points; a single
// point sits in the middle.
func (lc LineChart) xAt(i, n int) float64 {
	if n < 2 {
		return float64(lc.X0+lc.X1) / 2
	}
	return float64(lc.X0) + float64(i)*float64(lc.X1-lc.X0)/float64(n-1)
}

// pointRange is the smallest and largest value drawn.
func pointRange(pts []stepPoint, band bool) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, p := range pts {
		s := 0.0
		if band {
			s = p.Spread
		}
		lo, hi = math.Min(lo, p.V-s), math.Max(hi, p.V+s)
	}
	return lo, hi
}

// niceTicks returns at least two axis ticks, spaced by step (1, 2 or
// 5 × 10ⁿ), whose first and last cover lo..hi: they are the axis ends. A
// flat range is widened around its value.
func niceTicks(lo, hi float64) (ticks []float64, step float64) {
	if hi-lo < 1e-9 {
		pad := math.Max(math.Abs(lo)*0.1, 1e-3)
		lo, hi = lo-pad, hi+pad
	}
	step = niceStep((hi - lo) / 4)
	from, to := math.Floor(lo/step+1e-9), math.Ceil(hi/step-1e-9) // 1e-9: 1.8/0.1 is 17.999…
	for k := from; k <= to; k++ {
		ticks = append(ticks, k*step)
	}
	return ticks, step
}

// niceStep rounds raw up to 1, 2 or 5 × 10ⁿ.
func niceStep(raw float64) float64 {
	mag := math.Pow(10, math.Floor(math.Log10(raw)+1e-9))
	switch f := raw / mag; { // 1e-9: 0.4/4 is 0.10000000000000003
	case f <= 1+1e-9:
		return mag
	case f <= 2+1e-9:
		return 2 * mag
	case f <= 5+1e-9:
		return 5 * mag
	}
	return 10 * mag
}

// tickLabel formats an axis value with the decimals its tick spacing
// needs: "0.5" for a step of 0.5, "20" for 10.
func tickLabel(v, step float64) string {
	decimals := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.Trim(s, "-0.") == "" {
		return "0"
	}
	return s
}

// fmtFloat formats a measured value with four significant digits, "–"
// when it is unknown.
func fmtFloat(v float64) string {
	if !finite(v) {
		return "–"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// fmtSigned formats a reward: "+0.25", "-1", "–" when unknown.
func fmtSigned(v float64) string {
	if !finite(v) {
		return "–"
	}
	if v > 0 {
		return "+" + fmtFloat(v)
	}
	return fmtFloat(v)
}
