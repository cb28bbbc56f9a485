package bench

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"sort"

	"github.com/metaclaw/metaclaw/store"
)

// Bootstrap settings of the differences' confidence intervals.
const (
	bootstrapResamples = 10000
	bootstrapMethod    = "paired bootstrap over rounds: 95 % percentile interval of 10000 resamples (seeded)"
)

// report builds the run's report from its state and what the arms ended
// with.
func (r *runner) report(ctx context.Context, status string) *store.BenchReport {
	rep := &store.BenchReport{ID: r.st.ID, Benchmark: r.b.Name, Dir: r.b.Dir, Agent: r.opts.Agent,
		Model: r.opts.Person.LLM.ModelID, Status: status, StartedAt: r.st.StartedAt, UpdatedAt: r.opts.Now().UTC()}
	arcOf := map[string]string{}
	for _, d := range r.days {
		rep.Days = append(rep.Days, store.BenchDay{ID: d.ID, Arc: d.Arc, Rounds: d.Rounds()})
		arcOf[d.ID] = d.Arc
	}
	for _, spec := range r.opts.Arms {
		st := r.st.Arms[spec.Name]
		arm := store.BenchArm{Name: spec.Name, Setup: spec.Setup, DaysDone: st.DaysDone, Agent: st.Agent,
			Learning: st.Learning, Rounds: append([]store.BenchRound(nil), st.Rounds...),
			Skills: []store.BenchSkill{}, Memories: []store.BenchMemory{}}
		arm.Summary = summarize("", st.Rounds)
		arm.ByDay = groupScores(st.Rounds, rep.Days, func(b store.BenchRound) string { return b.Day },
			func(d store.BenchDay) string { return d.ID })
		arm.ByArc = groupScores(st.Rounds, rep.Days, func(b store.BenchRound) string { return arcOf[b.Day] },
			func(d store.BenchDay) string { return d.Arc })
		if spec.MetaClaw {
			if err := r.armEnded(ctx, spec, &arm); err != nil {
				rep.Notes = append(rep.Notes, spec.Name+": could not read what it ended with: "+err.Error())
			}
		}
		for _, n := range st.Notes {
			rep.Notes = append(rep.Notes, spec.Name+": "+n)
		}
		rep.Arms = append(rep.Arms, arm)
	}
	rep.Diffs = differences(rep.Arms)
	return rep
}

// armEnded reads an arm's skills, memories and training steps from its
// data directory.
func (r *runner) armEnded(ctx context.Context, spec ArmSpec, arm *store.BenchArm) error {
	if run := r.runs[spec.Name]; run != nil && run.app != nil {
		return run.ended(ctx, arm)
	}
	db, err := store.Open(filepath.Join(r.armHome(spec), "metaclaw.db"))
	if err != nil {
		return err
	}
	defer db.Close()
	return endedFrom(ctx, db, arm)
}

// summarize aggregates rounds under key.
func summarize(key string, rounds []store.BenchRound) store.BenchScore {
	s := store.BenchScore{Key: key}
	var sum, mc float64
	for _, b := range rounds {
		s.Rounds++
		sum += b.Score
		switch b.Type {
		case MultiChoice:
			s.MultiChoice++
			mc += b.Score
		case FileCheck:
			s.FileChecks++
			if b.Passed {
				s.FileChecksOK++
			}
		}
	}
	if s.Rounds > 0 {
		s.Accuracy = sum / float64(s.Rounds)
	}
	if s.MultiChoice > 0 {
		s.MultiChoiceMean = mc / float64(s.MultiChoice)
	}
	if s.FileChecks > 0 {
		s.FileCheckRate = float64(s.FileChecksOK) / float64(s.FileChecks)
	}
	return s
}

// groupScores aggregates rounds by a key, in the order the days give the
// keys, leaving out keys without rounds.
func groupScores(rounds []store.BenchRound, days []store.BenchDay, keyOf func(store.BenchRound) string,
	dayKey func(store.BenchDay) string) []store.BenchScore {
	groups := map[string][]store.BenchRound{}
	for _, b := range rounds {
		groups[keyOf(b)] = append(groups[keyOf(b)], b)
	}
	out := []store.BenchScore{}
	seen := map[string]bool{}
	for _, d := range days {
		k := dayKey(d)
		if seen[k] || len(groups[k]) == 0 {
			continue
		}
		seen[k] = true
		out = append(out, summarize(k, groups[k]))
	}
	return out
}

// differences compares every arm with base, and each MetaClaw arm with
// the one before it (skills+memory with skills, full with skills+memory).
func differences(arms []store.BenchArm) []store.BenchDiff {
	out := []store.BenchDiff{}
	var base *store.BenchArm
	for i := range arms {
		if arms[i].Name == ArmBase {
			base = &arms[i]
		}
	}
	for i := range arms {
		a := &arms[i]
		if base != nil && a != base {
			if d, ok := pairedDiff(a, base); ok {
				out = append(out, d)
			}
		}
		if i > 0 && a.Name != ArmBase && arms[i-1].Name != ArmBase {
			if d, ok := pairedDiff(a, &arms[i-1]); ok {
				out = append(out, d)
			}
		}
	}
	return out
}

// pairedDiff is the mean difference of a's and b's scores on the rounds
// both scored, with its bootstrap interval.
func pairedDiff(a, b *store.BenchArm) (store.BenchDiff, bool) {
	type key struct{ day, round string }
	scores := map[key]float64{}
	for _, r := range b.Rounds {
		scores[key{r.Day, r.Round}] = r.Score
	}
	var d []float64
	for _, r := range a.Rounds {
		if s, ok := scores[key{r.Day, r.Round}]; ok {
			d = append(d, r.Score-s)
		}
	}
	if len(d) == 0 {
		return store.BenchDiff{}, false
	}
	low, high := bootstrapCI(d)
	return store.BenchDiff{Arm: a.Name, Baseline: b.Name, Rounds: len(d), Mean: mean(d), Low: low, High: high,
		Method: bootstrapMethod}, true
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// bootstrapCI is the 95 % percentile interval of the mean of d over
// bootstrapResamples resamples (with replacement, of len(d) rounds each),
// from a fixed seed so that a report does not change when it is rebuilt.
func bootstrapCI(d []float64) (low, high float64) {
	rng := rand.New(rand.NewPCG(22, 2026))
	means := make([]float64, bootstrapResamples)
	for i := range means {
		s := 0.0
		for range d {
			s += d[rng.IntN(len(d))]
		}
		means[i] = s / float64(len(d))
	}
	sort.Float64s(means)
	return quantile(means, 0.025), quantile(means, 0.975)
}

// quantile interpolates linearly between the sorted values' ranks.
func quantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	i := int(pos)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (pos-float64(i))*(sorted[i+1]-sorted[i])
}
