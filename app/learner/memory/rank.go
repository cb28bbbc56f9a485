package memory

import (
	"cmp"
	"math/bits"
	"slices"
	"strconv"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/retrieval"
	"github.com/metaclaw/metaclaw/store"
)

// Ranking works on cands, small values that point at the index's
// entries, and turns only the memories a turn injects into Scored (a
// store.Memory is some 250 bytes): a turn used to copy its 64 candidates
// as Scored half a dozen times and render the text once per memory tried,
// some 200 KB of garbage a turn, and the collections it caused were most
// of the retrieval's slow turns (issue 20).

// cand is a memory being ranked.
type cand struct {
	e       *entry
	rel     float64 // Scored.Relevance
	score   float64 // Scored.Score
	matched uint64  // the query terms it matched
}

// scored is the Scored of a cand.
func (c cand) scored(scope string) Scored {
	return Scored{Memory: c.e.memory(scope), Relevance: c.rel, Score: c.score, matched: c.matched}
}

// pinned returns the pinned memories, by importance; ix.mu held (read).
func (r *Retriever) pinned(ix *scopeIndex) []cand {
	out := make([]cand, 0, len(ix.pinned))
	for id := range ix.pinned {
		if e := ix.get(id); e != nil {
			out = append(out, cand{e: e, rel: 1, score: float64(e.importance)})
		}
	}
	sortCands(out)
	return out
}

// rank scores the candidates of a query; ix.mu held (read). Relevance is
// the lexical relevance, or with vectors the embedding relevance (mode
// embedding) or both fused (hybrid; retrieval.Fuse); it is then weighted
// by the question's time (when.go) and the memory's importance, recency
// and confidence. In hybrid mode the lexical relevance admits a memory
// (MinRelevance) and the fused one orders: measured with a real sentence
// encoder, letting the fused relevance admit cut recall@10 on the dev set
// from 0.944 to 0.746 (docs/retrieval.md, round 4).
func (r *Retriever) rank(ix *scopeIndex, query string, qv []float32, limit int) ([]cand, when) {
	now := r.now()
	wh := readWhen(query, now)
	var lexical []hit
	if r.opts.Mode != ModeEmbedding || qv == nil {
		lexical = ix.search(queryOf(query), limit)
	}
	out := make([]cand, 0, len(lexical))
	hybrid := qv != nil && r.opts.Mode != ModeEmbedding
	add := func(e *entry, lex float64, matched uint64) {
		rel := lex
		if qv != nil {
			if cos, ok := ix.ix.Similarity(e.id, qv); ok {
				em := retrieval.EmbeddingRelevance(cos, 0.2, 0.7)
				rel = em
				if hybrid {
					rel = retrieval.Fuse(lex, em)
				}
			}
		}
		admit := rel
		if hybrid {
			admit = lex // the keyword evidence admits, the fused relevance orders
		}
		if admit < r.opts.MinRelevance {
			return
		}
		m := e.memory(ix.scope)
		out = append(out, cand{e: e, rel: rel, score: rel * wh.factor(m.ValidFrom) * r.weight(m, now), matched: matched})
	}
	for _, h := range lexical {
		add(h.e, retrieval.LexicalRelevance(h.score, bm25Half), h.matched)
	}
	if qv != nil && !hybrid { // hybrid admits by words: a memory found by its vector alone never would be
		seen := make(map[*entry]bool, len(lexical))
		for _, h := range lexical {
			seen[h.e] = true
		}
		for _, h := range ix.nearest(qv, limit) {
			if !seen[h.e] {
				add(h.e, 0, 0)
			}
		}
	}
	orderByTime(out, wh.order)
	sortCands(out)
	return out, wh
}

// orderByTime weighs the candidates' scores by their age when the
// question asks for the first (order -1) or the latest (+1).
func orderByTime(out []cand, order int) {
	if order == 0 || len(out) < 2 {
		return
	}
	lo, hi := out[0].e.validFrom, out[0].e.validFrom
	for _, c := range out {
		lo, hi = min(lo, c.e.validFrom), max(hi, c.e.validFrom)
	}
	from := time.UnixMilli(lo)
	span := time.UnixMilli(hi).Sub(from).Seconds()
	if span <= 0 {
		return
	}
	for i := range out {
		x := time.UnixMilli(out[i].e.validFrom).Sub(from).Seconds() / span
		if order < 0 {
			x = 1 - x
		}
		out[i].score *= 1 - orderWeight + orderWeight*x
	}
}

// sortCands orders candidates best first: by score, then newest id (a
// total order, so any sort gives the same result).
func sortCands(s []cand) {
	slices.SortFunc(s, func(a, b cand) int {
		if a.score != b.score {
			return cmp.Compare(b.score, a.score)
		}
		return cmp.Compare(b.e.id, a.e.id)
	})
}

// fit takes pinned memories, then the ranked ones in diversified order
// (see diversify), while they fit the unit and token limits; a question
// about time gets every memory with its date. It is retrieval.Fit over
// render, without rendering every set it tries (see renderedLen).
func (r *Retriever) fit(sel *Selection, scope string, pinned, ranked []cand, dates bool) {
	isPinned := make(map[int64]bool, len(pinned))
	for _, c := range pinned {
		isPinned[c.e.id] = true
	}
	var kept []cand
	var size renderedLen
tries:
	for i, list := range [][]cand{pinned, diversify(ranked)} {
		for _, c := range list {
			if r.opts.MaxUnits > 0 && len(kept) >= r.opts.MaxUnits {
				break tries
			}
			if i > 0 && isPinned[c.e.id] {
				continue // taken first
			}
			next := size.with(c.e, dates)
			if r.opts.MaxTokens > 0 && estimateLen(next.text()) > r.opts.MaxTokens {
				continue // a shorter one may fit
			}
			kept, size = append(kept, c), next
		}
	}
	sel.Memories = make([]Scored, len(kept))
	for i, c := range kept {
		sel.Memories[i] = c.scored(scope)
	}
	sel.Text = render(sel.Memories, dates)
	sel.Tokens = EstimateTokens(sel.Text)
	for _, s := range sel.Memories {
		sel.IDs = append(sel.IDs, "memory:"+strconv.FormatInt(s.ID, 10))
	}
}

// renderedLen is the length of render's text for a set of memories,
// grown one memory at a time: the header, each section's heading once,
// and each memory's line (render's order changes no length).
type renderedLen struct {
	n        int // memories
	lines    int
	sections uint32 // bit i: section i (0 pinned, then groupTitles) is present
	heads    int
}

// with returns the length with one more memory.
func (l renderedLen) with(e *entry, dates bool) renderedLen {
	l.n++
	sec, title := sectionOf(e)
	if sec < 0 {
		return l // render shows no memory of an unknown type
	}
	if l.sections&(1<<sec) == 0 {
		l.sections |= 1 << sec
		l.heads += len("\n## \n") + len(title)
	}
	m := e.memory("")
	l.lines += len("- \n") + len(line(m, dates))
	return l
}

// text is the rendered length in bytes (0 for no memory, as render's "").
func (l renderedLen) text() int {
	if l.n == 0 {
		return 0
	}
	return len(header) + l.heads + l.lines
}

// estimateLen is EstimateTokens of a text of n bytes.
func estimateLen(n int) int { return (n + 3) / 4 }

// sectionOf returns the section render puts a memory in (0 pinned, i+1
// the i-th of groupTitles) and its title; -1 when none.
func sectionOf(e *entry) (int, string) {
	if e.pinned {
		return 0, "Pinned"
	}
	typ := store.MemoryTypes[e.typ]
	for i, g := range groupTitles {
		if g.typ == typ {
			return i + 1, g.title
		}
	}
	return -1, ""
}

// diversify reorders ranked memories so that a question that needs two
// facts gets both: after the best memory, each next pick is the one whose
// score, discounted for the query terms already covered by the memories
// picked before it, is highest (a memory that repeats the first fact
// falls behind one that brings the second). Memories past the first
// diversifyDepth keep their order.
func diversify(ranked []cand) []cand {
	n := min(len(ranked), diversifyDepth)
	if n < 3 {
		return ranked
	}
	var buf [diversifyDepth]cand
	pool := append(buf[:0], ranked[:n]...)
	out := make([]cand, 0, len(ranked))
	var covered uint64
	for len(pool) > 0 {
		best, bestScore := 0, -1.0
		for i, s := range pool {
			score := s.score
			if total := bits.OnesCount64(s.matched); total > 0 {
				fresh := bits.OnesCount64(s.matched &^ covered)
				score *= diversifyKeep + (1-diversifyKeep)*float64(fresh)/float64(total)
			}
			if score > bestScore {
				best, bestScore = i, score
			}
		}
		covered |= pool[best].matched
		out = append(out, pool[best])
		pool = append(pool[:best], pool[best+1:]...)
	}
	return append(out, ranked[n:]...)
}

// Diversification: how deep it reorders, and the share of a memory's
// score that stays when every term it matches is already covered.
const (
	diversifyDepth = 20
	diversifyKeep  = 0.6
)
