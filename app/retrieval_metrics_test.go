package app

import (
	"fmt"
	"strings"
)

// skillTally accumulates the skill metrics over a group of turns.
type skillTally struct {
	turns, labelled, noSkill int
	recall, mrr              float64 // sums over labelled turns
	injectedLabelled         int     // skills injected on labelled turns
	injectedNoSkill          int     // skills injected on turns that need none
	hits, judged             int     // injected relevant / injected not merely acceptable (labelled turns)
	tokens                   int
}

// add counts one turn: the skills injected in order, its labels and the
// tokens injected.
func (t *skillTally) add(got, relevant, acceptable []string, tokens int) {
	t.turns++
	t.tokens += tokens
	if len(relevant) == 0 {
		t.noSkill++
		t.injectedNoSkill += len(got)
		return
	}
	t.labelled++
	t.injectedLabelled += len(got)
	rel, acc := set(relevant), set(acceptable)
	found := 0
	for i, name := range got {
		switch {
		case rel[name]:
			if i < 6 {
				found++
			}
			if t.mrrFirst(i, got, rel) {
				t.mrr += 1 / float64(i+1)
			}
			t.hits++
			t.judged++
		case !acc[name]:
			t.judged++
		}
	}
	t.recall += float64(found) / float64(len(relevant))
}

// mrrFirst reports whether got[i] is the first relevant skill of got.
func (t *skillTally) mrrFirst(i int, got []string, rel map[string]bool) bool {
	for j := 0; j < i; j++ {
		if rel[got[j]] {
			return false
		}
	}
	return true
}

func set(xs []string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// skillFigures are the reported skill metrics of a group of turns.
type skillFigures struct {
	Turns, Labelled, NoSkill                        int
	Recall6, Precision, MRR                         float64
	MeanInjectedLabelled, MeanInjectedNoSkill, Toks float64
}

func (t *skillTally) figures() skillFigures {
	return skillFigures{Turns: t.turns, Labelled: t.labelled, NoSkill: t.noSkill,
		Recall6: ratio(t.recall, float64(t.labelled)), Precision: ratio(float64(t.hits), float64(t.judged)),
		MRR: ratio(t.mrr, float64(t.labelled)), MeanInjectedLabelled: ratio(float64(t.injectedLabelled), float64(t.labelled)),
		MeanInjectedNoSkill: ratio(float64(t.injectedNoSkill), float64(t.noSkill)), Toks: ratio(float64(t.tokens), float64(t.turns))}
}

// skillReport holds the figures for all turns and for clean and noisy ones.
type skillReport struct {
	All, Clean, Noisy skillFigures
	// Other are the turns whose request is in a language other than
	// English (retrieval.Request.Language).
	Other           skillFigures
	Skills, Refused int // skills imported, skill files refused
	Asked           int // skills given asks (asks.jsonl)
}

func (r skillReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "skills: %d imported, %d refused, %d with asks\n", r.Skills, r.Refused, r.Asked)
	fmt.Fprintf(&b, "%-6s %5s %5s %5s %8s %9s %6s %9s %10s %7s\n", "turns", "n", "lab", "none", "recall@6", "precision", "MRR", "inj/lab", "inj/none", "tok/turn")
	for _, g := range []struct {
		name string
		f    skillFigures
	}{{"all", r.All}, {"clean", r.Clean}, {"noisy", r.Noisy}, {"other", r.Other}} {
		fmt.Fprintf(&b, "%-6s %5d %5d %5d %8.3f %9.3f %6.3f %9.2f %10.2f %7.0f\n", g.name, g.f.Turns, g.f.Labelled, g.f.NoSkill,
			g.f.Recall6, g.f.Precision, g.f.MRR, g.f.MeanInjectedLabelled, g.f.MeanInjectedNoSkill, g.f.Toks)
	}
	return b.String()
}

// memoryTally accumulates recall over questions of one kind.
type memoryTally struct {
	n                int
	r5, r10, allIn10 float64
}

func (m *memoryTally) add(ranked []string, evidence []string) {
	m.n++
	want := set(evidence)
	in := func(k int) int {
		c := 0
		for i, u := range ranked {
			if i < k && want[u] {
				c++
			}
		}
		return c
	}
	m.r5 += float64(in(5)) / float64(len(want))
	m.r10 += float64(in(10)) / float64(len(want))
	if in(10) == len(want) {
		m.allIn10++
	}
}

// memoryReport is recall@5/@10 overall and by kind of question, and the
// share of questions with every piece of evidence in the top 10.
type memoryReport struct {
	kinds map[string]*memoryTally
	Units int
}

func (r *memoryReport) tally(kind string) *memoryTally {
	if r.kinds == nil {
		r.kinds = map[string]*memoryTally{}
	}
	if r.kinds[kind] == nil {
		r.kinds[kind] = &memoryTally{}
	}
	return r.kinds[kind]
}

// Recall returns recall@5 and @10 of a kind ("all" for every question).
func (r *memoryReport) Recall(kind string) (r5, r10 float64) {
	t := r.tally(kind)
	return ratio(t.r5, float64(t.n)), ratio(t.r10, float64(t.n))
}

func (r *memoryReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "memory: %d units\n%-9s %4s %9s %10s %12s\n", r.Units, "questions", "n", "recall@5", "recall@10", "all-in-10")
	for _, k := range []string{"all", "single", "multi", "temporal"} {
		t := r.tally(k)
		r5, r10 := r.Recall(k)
		fmt.Fprintf(&b, "%-9s %4d %9.3f %10.3f %12.3f\n", k, t.n, r5, r10, ratio(t.allIn10, float64(t.n)))
	}
	return b.String()
}
