package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/metaclaw/metaclaw/app/learner/retrieval"
	"github.com/metaclaw/metaclaw/app/learner/skills"
	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/store/config"
)

// TestRetrievalTune searches the abstention rule's parameters on the
// development set (never the held-out one) and prints the best settings
// under the aims' constraints. It runs only with METACLAW_TUNE=1.
func TestRetrievalTune(t *testing.T) {
	if os.Getenv("METACLAW_TUNE") != "1" {
		t.Skip("set METACLAW_TUNE=1 to search the abstention parameters on the dev set")
	}
	dev := loadSet(t, filepath.Join("learner", "evalsets", "dev"))
	ctx := context.Background()
	db := evalDB(t)
	if _, err := skills.ImportDir(ctx, db, dev.SkillsDir); err != nil {
		t.Fatal(err)
	}
	opts := skills.OptionsFrom(config.Defaults().Skills)
	opts.Evidence = skills.Evidence{MinCoverage: -1, MinRelative: -1, MinScore: -1, UnknownIDF: 0.5, BodyShare: 0.5}
	if v := os.Getenv("METACLAW_TUNE_BODY"); v != "" {
		fmt.Sscan(v, &opts.Evidence.BodyShare)
	}
	if v := os.Getenv("METACLAW_TUNE_UNKNOWN"); v != "" {
		fmt.Sscan(v, &opts.Evidence.UnknownIDF)
	}
	if v := os.Getenv("METACLAW_TUNE_FIELDS"); v != "" {
		fs := append([]retrieval.Field(nil), skills.IndexFields...)
		fmt.Sscan(v, &fs[0].Weight, &fs[1].Weight, &fs[2].Weight, &fs[3].Weight, &fs[1].B, &fs[3].B)
		skills.IndexFields = fs
	}
	r := skills.NewRetriever(db, opts, nil)
	type turnCands struct {
		cands    []skills.Candidate
		rel, acc map[string]bool
		noisy    bool
	}
	var turns []turnCands
	for _, turn := range dev.Turns {
		conv, err := proxy.Conversation(turn.API, turn.Request)
		if err != nil {
			t.Fatal(err)
		}
		sel, err := r.Select(ctx, conv)
		if err != nil {
			t.Fatal(err)
		}
		turns = append(turns, turnCands{cands: sel.Considered, rel: set(turn.Relevant), acc: set(turn.Acceptable), noisy: turn.Noisy})
	}
	type result struct {
		name                      string
		recall, clean, noisy      float64
		prec, injLab, injNone, ok float64
	}
	var results []result
	eval := func(name string, accept func(c skills.Candidate, first bool) bool) {
		var all, cl, no skillTally
		for _, tc := range turns {
			var got []string
			habits := 0
			for _, c := range tc.cands {
				if len(got) >= 6 {
					break
				}
				if !accept(c, len(got) == 0) {
					continue
				}
				if skills.IsHabit(c.Skill.Category) {
					if habits >= 2 {
						continue
					}
					habits++
				}
				got = append(got, c.Skill.Name)
			}
			rel, acc := keys(tc.rel), keys(tc.acc)
			all.add(got, rel, acc, 0)
			if tc.noisy {
				no.add(got, rel, acc, 0)
			} else {
				cl.add(got, rel, acc, 0)
			}
		}
		f, fc, fn := all.figures(), cl.figures(), no.figures()
		results = append(results, result{name: name, recall: f.Recall6, clean: fc.Recall6, noisy: fn.Recall6, prec: f.Precision,
			injLab: f.MeanInjectedLabelled, injNone: f.MeanInjectedNoSkill})
	}
	eval("none", func(skills.Candidate, bool) bool { return true })
	for _, smin := range []float64{0, 2, 4, 6, 8} {
		for _, name := range []bool{false, true} {
			for _, h1 := range []int{1, 2} {
				for _, r2 := range []float64{0.5, 0.6, 0.7} {
					for _, c2 := range []float64{0, 0.2, 0.3} {
						eval(fmt.Sprintf("first score≥%.0f (head terms≥%d or name %v); others rel≥%.1f cov≥%.1f", smin, h1, name, r2, c2), func(c skills.Candidate, first bool) bool {
							strong := c.HeadTerms >= h1 || name && c.NameTerms > 0
							if c.Score < smin && !(c.NameTerms > 0 && c.Coverage >= 0.5) || c.HeadTerms == 0 || !strong {
								return false
							}
							return first || c.Relative >= r2 && c.Coverage >= c2
						})
					}
				}
			}
		}
	}
	minPrec := 0.6
	if v := os.Getenv("METACLAW_TUNE_PREC"); v != "" {
		fmt.Sscan(v, &minPrec)
	}
	for _, res := range results {
		if res.name == "none" {
			t.Logf("no abstention: recall %.3f (clean %.3f noisy %.3f) precision %.3f inj/lab %.2f", res.recall, res.clean, res.noisy, res.prec, res.injLab)
		}
	}
	sort.Slice(results, func(i, j int) bool { return results[i].recall > results[j].recall })
	shown := 0
	for _, res := range results {
		if res.prec < minPrec || res.injNone > 0.25 || res.injLab > 2.5 {
			continue
		}
		t.Logf("%-55s recall %.3f (clean %.3f noisy %.3f) precision %.3f inj/lab %.2f inj/none %.2f", res.name, res.recall, res.clean, res.noisy, res.prec, res.injLab, res.injNone)
		if shown++; shown == 25 {
			break
		}
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
