package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/metaclaw/metaclaw/app/learner/retrieval"
	"github.com/metaclaw/metaclaw/app/learner/skills"
	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/proxy/learning"
	"github.com/metaclaw/metaclaw/store/config"
)

// TestRetrievalTune searches the abstention rule's parameters on the
// development sets together (never a held-out one) and prints the best settings
// under the aims' constraints. It runs only with METACLAW_TUNE=1.
func TestRetrievalTune(t *testing.T) {
	if os.Getenv("METACLAW_TUNE") != "1" {
		t.Skip("set METACLAW_TUNE=1 to search the abstention parameters on the dev set")
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
	if v := os.Getenv("METACLAW_TUNE_ASKS"); v != "" { // "weight b" of the asks field
		fs := append([]retrieval.Field(nil), skills.IndexFields...)
		fmt.Sscan(v, &fs[4].Weight, &fs[4].B)
		skills.IndexFields = fs
	}
	var sets [][]turnCands
	for _, name := range tuneSets {
		sets = append(sets, tuneTurns(t, filepath.Join("learner", "evalsets", name), opts))
	}
	var results []tuneResult
	eval := func(name string, accept func(c skills.Candidate, first bool) bool) {
		res := tuneResult{name: name}
		for _, turns := range sets {
			res.figs = append(res.figs, tuneFigures(turns, accept))
		}
		results = append(results, res)
	}
	if os.Getenv("METACLAW_TUNE_OTHER") == "1" {
		showTune(t, tuneSets, tuneOtherLanguages(sets))
		return
	}
	eval("none", func(skills.Candidate, bool) bool { return true })
	for _, s1 := range []float64{4, 5, 6, 7, 8, 9, 10, 12} {
		for _, s2 := range []float64{0, 6, 8, 10, 12, 14} {
			for _, r2 := range []float64{0.5, 0.55, 0.6, 0.65, 0.7} {
				for _, c := range []float64{0, 0.1, 0.2} {
					for _, ask := range tuneAskRules {
						name := fmt.Sprintf("first score≥%.0f; others rel≥%.2f score≥%.0f; all cov≥%.1f, a head term, or named", s1, r2, s2, c)
						if ask.terms > 0 {
							name += fmt.Sprintf("; first an ask with %d terms or score≥%.0f", ask.terms, ask.score)
						}
						eval(name, func(x skills.Candidate, first bool) bool {
							named := x.NameTerms > 0 && x.Coverage >= 0.5
							if x.HeadTerms == 0 || x.Coverage < c || x.Score < s1 && !named {
								return false
							}
							if first && len(x.Skill.Asks) > 0 && x.BestAsk < ask.terms && x.Score < ask.score {
								return false
							}
							return first || x.Relative >= r2 && (x.Score >= s2 || named)
						})
					}
				}
			}
		}
	}
	showTune(t, tuneSets, results)
}

// tuneOtherLanguages searches the rule for requests in a language other
// than English (METACLAW_TUNE_OTHER=1), English requests keeping the
// default rule: the first skill's floor, the asks evidence it needs and a
// later skill's floor.
func tuneOtherLanguages(sets [][]turnCands) []tuneResult {
	d := skills.DefaultEvidence
	rule := func(x skills.Candidate, first bool, s1, s2 float64, askTerms int, askScore float64) bool {
		named := x.NameTerms > 0 && x.Coverage >= 0.5
		if x.HeadTerms == 0 || x.Coverage < d.MinCoverage || x.Score < s1 && !named {
			return false
		}
		if first && len(x.Skill.Asks) > 0 && x.BestAsk < askTerms && x.Score < askScore {
			return false
		}
		return first || x.Relative >= d.MinRelative && (x.Score >= s2 || named)
	}
	var results []tuneResult
	eval := func(name string, other func(x skills.Candidate, first bool) bool) {
		res := tuneResult{name: name}
		for _, turns := range sets {
			res.figs = append(res.figs, tuneFiguresBy(turns, func(x skills.Candidate, first, isOther bool) bool {
				if isOther {
					return other(x, first)
				}
				return rule(x, first, d.MinScore, d.MinScoreNext, d.MinAskTerms, d.AskScore)
			}))
		}
		results = append(results, res)
	}
	eval("other languages as English", func(x skills.Candidate, first bool) bool {
		return rule(x, first, d.MinScore, d.MinScoreNext, d.MinAskTerms, d.AskScore)
	})
	for _, s1 := range []float64{8, 9, 10, 11, 12, 14, 16} {
		for _, s2 := range []float64{12, 14, 16, 20} {
			for _, ask := range []struct {
				terms int
				score float64
			}{{2, 11}, {2, 13}, {2, 15}, {2, 99}, {3, 11}, {3, 13}, {3, 15}, {3, 99}} {
				eval(fmt.Sprintf("other languages: first score≥%.0f, an ask with %d terms or score≥%.0f; others score≥%.0f", s1, ask.terms, ask.score, s2),
					func(x skills.Candidate, first bool) bool { return rule(x, first, s1, s2, ask.terms, ask.score) })
			}
		}
	}
	return results
}

// tuneAskRules are the asks evidence searched for the first skill: an ask
// holding this many of the request's terms, or a score that stands
// without (terms 0: no such rule).
var tuneAskRules = []struct {
	terms int
	score float64
}{{0, 0}, {2, 10}, {2, 11}, {2, 12}, {2, 13}, {3, 10}, {3, 11}, {3, 12}, {3, 13}}

// tuneSets are the development sets the rule is searched on.
var tuneSets = []string{"dev", "dev2", "dev3", "dev4"}

// tuneResult is one rule's figures on the development sets, in order.
type tuneResult struct {
	name string
	figs []tuneFig
}

// tuneFig is a set's figures with the recall on clean and noisy turns.
type tuneFig struct {
	skillFigures
	CleanRecall, NoisyRecall float64
}

// tuneFigures applies accept to every turn's candidates, with top_k 6 and
// at most two habits, and returns the figures.
func tuneFigures(turns []turnCands, accept func(c skills.Candidate, first bool) bool) tuneFig {
	return tuneFiguresBy(turns, func(c skills.Candidate, first, _ bool) bool { return accept(c, first) })
}

// tuneFiguresBy is tuneFigures with a rule that also knows whether the
// turn's request is in a language other than English.
func tuneFiguresBy(turns []turnCands, accept func(c skills.Candidate, first, other bool) bool) tuneFig {
	var all, cl, no skillTally
	for _, tc := range turns {
		var got []string
		habits := 0
		for _, c := range tc.cands {
			if len(got) >= 6 {
				break
			}
			if !accept(c, len(got) == 0, tc.other) {
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
	return tuneFig{all.figures(), cl.figures().Recall6, no.figures().Recall6}
}

// showTune logs the rules that keep both sets within the aims on
// injection (precision ≥ METACLAW_TUNE_PREC, default 0.5), best mean
// recall first (METACLAW_TUNE_ALL=1: every rule).
func showTune(t *testing.T, sets []string, results []tuneResult) {
	minPrec, maxNone := 0.5, 0.25
	if v := os.Getenv("METACLAW_TUNE_PREC"); v != "" {
		fmt.Sscan(v, &minPrec)
	}
	if v := os.Getenv("METACLAW_TUNE_NONE"); v != "" {
		fmt.Sscan(v, &maxNone)
	}
	line := func(f tuneFig) string {
		return fmt.Sprintf("recall %.3f (clean %.3f noisy %.3f) prec %.3f inj %.2f none %.2f", f.Recall6, f.CleanRecall, f.NoisyRecall, f.Precision, f.MeanInjectedLabelled, f.MeanInjectedNoSkill)
	}
	mean := func(r tuneResult) float64 {
		sum := 0.0
		for _, f := range r.figs {
			sum += f.Recall6
		}
		return sum / float64(len(r.figs))
	}
	lines := func(r tuneResult) string {
		var b strings.Builder
		for i, f := range r.figs {
			fmt.Fprintf(&b, "\n  %-4s %s", sets[i], line(f))
		}
		return b.String()
	}
	for _, res := range results {
		if res.name == "none" {
			t.Logf("no abstention:%s", lines(res))
		}
	}
	sort.SliceStable(results, func(i, j int) bool { return mean(results[i]) > mean(results[j]) })
	shown := 0
	for _, res := range results {
		ok := true
		for _, f := range res.figs {
			ok = ok && f.Precision >= minPrec && f.MeanInjectedNoSkill <= maxNone && f.MeanInjectedLabelled <= 2.5
		}
		all := os.Getenv("METACLAW_TUNE_ALL") != ""
		if !ok && !all {
			continue
		}
		t.Logf("%s%s", res.name, lines(res))
		if shown++; shown == 15 && !all {
			break
		}
	}
}

// turnCands are a turn's ranked candidates before abstention, with its
// labels.
type turnCands struct {
	cands    []skills.Candidate
	rel, acc map[string]bool
	noisy    bool
	other    bool // the request is in a language other than English
}

// tuneTurns ranks every turn of the set in dir without abstention.
func tuneTurns(t *testing.T, dir string, opts skills.Options) []turnCands {
	t.Helper()
	es := loadSet(t, dir)
	ctx := context.Background()
	db := evalDB(t)
	if _, err := skills.ImportDir(ctx, db, es.SkillsDir); err != nil {
		t.Fatal(err)
	}
	setAsks(t, db, es)
	r := skills.NewRetriever(db, opts, nil)
	defer r.Close()
	var turns []turnCands
	for _, turn := range es.Turns {
		conv, err := proxy.Conversation(turn.API, turn.Request)
		if err != nil {
			t.Fatal(err)
		}
		sel, err := r.Select(ctx, conv)
		if err != nil {
			t.Fatal(err)
		}
		if learning.SideRequest(conv) != "" || retrieval.Read(conv).Closing() {
			// The proxy injects nothing into a side request, nor Select
			// into a message that only closes the exchange.
			sel.Considered = nil
		}
		lang := retrieval.Read(conv).Language()
		turns = append(turns, turnCands{cands: sel.Considered, rel: set(turn.Relevant), acc: set(turn.Acceptable), noisy: turn.Noisy,
			other: lang != "en" && lang != ""})
	}
	return turns
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestRetrievalRankMisses logs the development sets' turns whose relevant
// skills the ranking leaves out of its first six (METACLAW_TUNE=1).
func TestRetrievalRankMisses(t *testing.T) {
	if os.Getenv("METACLAW_TUNE") != "1" {
		t.Skip("set METACLAW_TUNE=1")
	}
	name := os.Getenv("METACLAW_TUNE_SET")
	if name == "" {
		name = "dev2"
	}
	es := loadSet(t, filepath.Join("learner", "evalsets", name))
	ctx := context.Background()
	db := evalDB(t)
	if _, err := skills.ImportDir(ctx, db, es.SkillsDir); err != nil {
		t.Fatal(err)
	}
	opts := skills.OptionsFrom(config.Defaults().Skills)
	opts.Evidence = skills.Evidence{MinCoverage: -1, MinRelative: -1, MinScore: -1, UnknownIDF: 0.5, BodyShare: 0.5}
	r := skills.NewRetriever(db, opts, nil)
	defer r.Close()
	for _, turn := range es.Turns {
		conv, err := proxy.Conversation(turn.API, turn.Request)
		if err != nil {
			t.Fatal(err)
		}
		msgs := make([]skills.Message, len(conv))
		for i, m := range conv {
			msgs[i] = skills.Message(m)
		}
		sel, err := r.Select(ctx, msgs)
		if err != nil {
			t.Fatal(err)
		}
		pos := map[string]int{}
		for i, c := range sel.Considered {
			pos[c.Skill.Name] = i + 1
		}
		var miss []string
		for _, w := range turn.Relevant {
			if p := pos[w]; p == 0 || p > 6 {
				miss = append(miss, fmt.Sprintf("%s@%d", w, p))
			}
		}
		if len(miss) == 0 {
			continue
		}
		var top []string
		for i, c := range sel.Considered {
			if i == 4 {
				break
			}
			top = append(top, fmt.Sprintf("%s %.1f", c.Skill.Name, c.Score))
		}
		t.Logf("%s noisy=%v miss %v\n  query %q\n  top %v", turn.ID, turn.Noisy, miss, sel.Query, top)
	}
}

// TestRetrievalDumpCandidates writes the development sets' ranked
// candidates and their evidence as CSV to METACLAW_TUNE_CSV, for fitting
// the abstention rule outside the test (METACLAW_TUNE=1).
func TestRetrievalDumpCandidates(t *testing.T) {
	path := os.Getenv("METACLAW_TUNE_CSV")
	if os.Getenv("METACLAW_TUNE") != "1" || path == "" {
		t.Skip("set METACLAW_TUNE=1 and METACLAW_TUNE_CSV=file")
	}
	opts := skills.OptionsFrom(config.Defaults().Skills)
	opts.Evidence = skills.Evidence{MinCoverage: -1, MinRelative: -1, MinScore: -1, UnknownIDF: 0.5, BodyShare: 0.5}
	var b strings.Builder
	b.WriteString("set,turn,noisy,nrel,rank,skill,habit,label,score,coverage,head,headterms,nameterms,relative,matched,viaasks,bestask,words\n")
	for _, name := range tuneSets {
		for ti, tc := range tuneTurns(t, filepath.Join("learner", "evalsets", name), opts) {
			for i, c := range tc.cands {
				label := 0
				switch {
				case tc.rel[c.Skill.Name]:
					label = 1
				case tc.acc[c.Skill.Name]:
					label = 2
				}
				fmt.Fprintf(&b, "%s,%d,%v,%d,%d,%s,%v,%d,%.4f,%.4f,%.4f,%d,%d,%.4f,%d,%d,%d,%s\n", name, ti, tc.noisy, len(tc.rel), i, c.Skill.Name,
					skills.IsHabit(c.Skill.Category), label, c.Score, c.Coverage, c.Head, c.HeadTerms, c.NameTerms, c.Relative, len(c.Matched),
					len(c.ViaAsks), c.BestAsk, strings.Join(c.Matched, "|"))
			}
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}
