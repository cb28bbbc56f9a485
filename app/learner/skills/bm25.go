package skills

import (
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/metaclaw/metaclaw/app/learner/internal/stem"
	"github.com/metaclaw/metaclaw/store"
)

// The keyword index is an in-memory BM25 index over the enabled skills'
// name, description, tags and body (weighted 6, 4, 3, 1, as in the store's
// FTS5 search), with English stemming. It answers in microseconds where
// SQLite's FTS5 bm25() costs milliseconds once the library grows, because
// FTS5 scores every matching row before sorting (see the README's
// figures). The store's FTS5 index remains the search of record for the
// CLI, the web page and the evolver's duplicate check.

const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

var fieldWeights = [4]float64{6, 4, 3, 1}

type posting struct {
	doc int32
	tf  [4]uint16 // term frequency per field
}

type bm25Index struct {
	docs     []store.Skill
	postings map[string][]posting
	lens     [][4]float64 // field lengths per document
	avg      [4]float64   // average field length
}

func buildIndex(skills []store.Skill) *bm25Index {
	ix := &bm25Index{docs: skills, postings: map[string][]posting{}, lens: make([][4]float64, len(skills))}
	for d, s := range skills {
		fields := [4]string{strings.ReplaceAll(s.Name, "-", " "), s.Description, strings.Join(s.Tags, " "), s.Body}
		tfs := map[string]*posting{}
		for f, text := range fields {
			terms := tokenize(text, false)
			ix.lens[d][f] = float64(len(terms))
			ix.avg[f] += float64(len(terms))
			for _, t := range terms {
				p := tfs[t]
				if p == nil {
					p = &posting{doc: int32(d)}
					tfs[t] = p
				}
				if p.tf[f] < math.MaxUint16 {
					p.tf[f]++
				}
			}
		}
		for t, p := range tfs {
			ix.postings[t] = append(ix.postings[t], *p)
		}
	}
	for f := range ix.avg {
		if len(skills) > 0 {
			ix.avg[f] /= float64(len(skills))
		}
		if ix.avg[f] == 0 {
			ix.avg[f] = 1
		}
	}
	return ix
}

// search returns up to limit documents ranked by BM25 for the query.
func (ix *bm25Index) search(query string, limit int) []candidate {
	terms := tokenize(query, true)
	if len(terms) == 0 || len(ix.docs) == 0 || limit <= 0 {
		return nil
	}
	n := float64(len(ix.docs))
	buf := scorePool.Get().(*[]float64)
	scores := (*buf)[:0]
	scores = append(scores, make([]float64, len(ix.docs))...)
	for _, t := range dedupe(terms) {
		ps := ix.postings[t]
		if len(ps) == 0 {
			continue
		}
		df := float64(len(ps))
		idf := math.Max(math.Log((n-df+0.5)/(df+0.5)), 1e-6)
		for _, p := range ps {
			scores[p.doc] += idf * ix.termScore(p)
		}
	}
	out := topK(ix.docs, scores, limit)
	*buf = scores
	scorePool.Put(buf)
	return out
}

var scorePool = sync.Pool{New: func() any { s := make([]float64, 0, 1024); return &s }}

// topK picks the limit best-scoring documents (score > 0), best first.
func topK(docs []store.Skill, scores []float64, limit int) []candidate {
	best := make([]candidate, 0, limit+1)
	for d, s := range scores {
		if s <= 0 || len(best) == limit && s <= best[limit-1].score {
			continue
		}
		i := sort.Search(len(best), func(i int) bool { return best[i].score < s })
		best = append(best, candidate{})
		copy(best[i+1:], best[i:])
		best[i] = candidate{skill: docs[d], score: s}
		if len(best) > limit {
			best = best[:limit]
		}
	}
	return best
}

func (ix *bm25Index) termScore(p posting) float64 {
	var s float64
	for f, tf := range p.tf {
		if tf == 0 {
			continue
		}
		x := float64(tf)
		norm := bm25K1 * (1 - bm25B + bm25B*ix.lens[p.doc][f]/ix.avg[f])
		s += fieldWeights[f] * x * (bm25K1 + 1) / (x + norm)
	}
	return s
}

// tokenize returns the terms of text (see stem.Terms), without stop
// words for queries.
func tokenize(text string, query bool) []string {
	if query {
		return stem.Terms(text, store.IsStopWord)
	}
	return stem.Terms(text, nil)
}

func dedupe(terms []string) []string {
	seen := make(map[string]bool, len(terms))
	out := terms[:0]
	for _, t := range terms {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	if len(out) > 64 {
		out = out[:64]
	}
	return out
}
