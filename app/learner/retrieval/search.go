package retrieval

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"sync"
)

// Query is a weighted bag of terms; at most MaxQueryTerms.
type Query struct {
	Terms []QueryTerm
	// Optional also searches the index's Optional fields.
	Optional bool
}

// QueryTerm is one term of a query with its weight (1 for the latest
// instruction, less for context) and the word it came from (for
// explanations).
type QueryTerm struct {
	Term, Word string
	Weight     float64
}

// MaxQueryTerms bounds a query: a search costs one posting list per term.
const MaxQueryTerms = 64

// Hit is a document that matched a query.
type Hit[D any] struct {
	Key         int64
	Doc         D
	Score       float64 // BM25F
	Matched     uint64  // bit i set: the query's term i occurs in the document
	MatchedHead uint64  // bit i set: it occurs in a Head field
	// MatchedField[f]: bit i set: the query's term i occurs in field f.
	MatchedField [maxFields]uint64
	// BestPassage is the most of the query's terms one line of a Passages
	// field holds (0 without such a field or a match in it).
	BestPassage int
}

// Stats are a query's collection statistics at search time: the idf of
// each term (0 for a term no document has) and the number of documents.
type Stats struct {
	IDF  []float64
	Docs int
}

// idf is BM25's idf, kept positive: log(1 + (N - df + 0.5)/(df + 0.5)),
// with N at least minCorpus.
func idf(n, df float64) float64 {
	return math.Log(1 + (math.Max(n, minCorpus)-df+0.5)/(df+0.5))
}

// Search returns up to limit documents ranked by BM25F for q, best first
// (ties by key), and the query's statistics.
func (ix *Index[D]) Search(q Query, limit int) ([]Hit[D], Stats) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	st := Stats{IDF: make([]float64, len(q.Terms)), Docs: ix.live}
	n := float64(len(ix.docs)) // deleted documents count until compaction
	if len(q.Terms) == 0 || ix.live == 0 || limit <= 0 {
		return nil, st
	}
	var avg [maxFields]float64
	for f := range ix.fields {
		avg[f] = math.Max(ix.lenSum[f]/math.Max(ix.lenDocs[f], 1), 1)
	}
	var skip uint8 // the fields not searched
	for f, fd := range ix.fields {
		if fd.Optional && !q.Optional {
			skip |= 1 << f
		}
	}
	acc := ix.spares.get(len(ix.docs))
	defer ix.spares.put(acc)
	for i, qt := range q.Terms {
		if i >= MaxQueryTerms {
			break
		}
		ps := ix.post[qt.Term]
		df := ix.df[qt.Term]
		if q.Optional {
			df += ix.dfOpt[qt.Term]
		}
		if len(ps) == 0 || df == 0 {
			continue
		}
		w := idf(n, float64(df))
		st.IDF[i] = w
		ix.scoreTerm(acc, ps, avg, w*qt.Weight, uint64(1)<<i, skip)
	}
	return topHits(acc, ix, q, limit), st
}

// bestPassage is the most of q's terms one line of a Passages field of
// the document in slot holds, from the lines its matched terms' postings
// occur in (matched[f]: the terms found in field f). A term's postings
// are in slot order, so each is found by a binary search: a few per hit,
// after the ranking.
func (ix *Index[D]) bestPassage(q Query, slot int32, matched [maxFields]uint64) int {
	best := 0
	for f, fd := range ix.fields {
		if !fd.Passages {
			continue
		}
		var per [MaxPassages]int
		for m := matched[f]; m != 0; m &= m - 1 {
			ps := ix.post[q.Terms[bits.TrailingZeros64(m)].Term]
			i, _ := slices.BinarySearchFunc(ps, slot, func(p posting, s int32) int { return cmp.Compare(p.slot, s) })
			for ; i < len(ps) && ps[i].slot == slot; i++ {
				if int(ps[i].field) != f {
					continue
				}
				for b := ps[i].passages; b != 0; b &= b - 1 {
					line := bits.TrailingZeros16(b)
					per[line]++
					best = max(best, per[line])
				}
			}
		}
	}
	return best
}

// scoreTerm adds one term's BM25F contribution to every document of its
// postings: the weighted, length-normalised frequencies of its fields are
// summed, then saturated. A document's postings of a term are adjacent.
func (ix *Index[D]) scoreTerm(acc *accumulator, ps []posting, avg [maxFields]float64, w float64, bit uint64, skip uint8) {
	for i := 0; i < len(ps); {
		slot := ps[i].slot
		var tf float64
		var fields uint8
		for ; i < len(ps) && ps[i].slot == slot; i++ {
			p := ps[i]
			if skip&(1<<p.field) != 0 {
				continue
			}
			fd := ix.fields[p.field]
			norm := 1 - fd.B + fd.B*float64(ix.lens[slot][p.field])/avg[p.field]
			tf += fd.Weight * float64(p.tf) / norm
			fields |= 1 << p.field
		}
		if !ix.alive[slot] || fields == 0 {
			continue
		}
		acc.add(slot, float32(w*tf*(k1+1)/(tf+k1)), bit, fields)
	}
}

// accumulator sums scores per slot, remembering which slots it touched so
// that resetting costs only what was used.
type accumulator struct {
	scores  []float32
	masks   []uint64
	fields  [][maxFields]uint64
	touched []int32
}

// spareAccumulators keeps an index's accumulators between searches. It
// is not a sync.Pool: a collection empties a pool, and the next search
// then allocated and zeroed arrays the size of the index (4 MB at 100,000
// memories), which made collections come sooner and cost that search a
// millisecond.
type spareAccumulators struct {
	mu   sync.Mutex // guards list
	list []*accumulator
}

// maxSpares bounds the accumulators kept: one per concurrent search.
const maxSpares = 4

func (sp *spareAccumulators) get(n int) *accumulator {
	sp.mu.Lock()
	a := &accumulator{}
	if k := len(sp.list); k > 0 {
		a, sp.list = sp.list[k-1], sp.list[:k-1]
	}
	sp.mu.Unlock()
	if cap(a.scores) < n {
		a.scores, a.masks, a.fields = make([]float32, n), make([]uint64, n), make([][maxFields]uint64, n)
	}
	a.scores, a.masks, a.fields = a.scores[:n], a.masks[:n], a.fields[:n]
	return a
}

func (sp *spareAccumulators) put(a *accumulator) {
	for _, s := range a.touched {
		a.scores[s], a.masks[s], a.fields[s] = 0, 0, [maxFields]uint64{}
	}
	a.touched = a.touched[:0]
	sp.mu.Lock()
	if len(sp.list) < maxSpares {
		sp.list = append(sp.list, a)
	}
	sp.mu.Unlock()
}

func (a *accumulator) add(slot int32, s float32, bit uint64, fields uint8) {
	if a.masks[slot] == 0 {
		a.touched = append(a.touched, slot)
	}
	a.scores[slot] += s
	a.masks[slot] |= bit
	for m := fields; m != 0; m &= m - 1 {
		a.fields[slot][bits.TrailingZeros8(m)] |= bit
	}
}

type scored struct {
	slot  int32
	score float64
	key   int64
}

// minHeap keeps the best hits seen, the worst on top.
type minHeap []scored

func (h minHeap) Len() int { return len(h) }
func (h minHeap) Less(i, j int) bool {
	if h[i].score != h[j].score {
		return h[i].score < h[j].score
	}
	return h[i].key > h[j].key
}
func (h minHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }

// Push and Pop are container/heap's, on scored values: its interface
// boxed every candidate pushed (an allocation each).
func (h *minHeap) Push(x scored) {
	*h = append(*h, x)
	h.up(len(*h) - 1)
}

func (h *minHeap) Pop() scored {
	old := *h
	n := len(old) - 1
	old.Swap(0, n)
	old[:n].down(0)
	x := old[n]
	*h = old[:n]
	return x
}

func (h minHeap) up(j int) {
	for {
		i := (j - 1) / 2 // parent
		if i == j || !h.Less(j, i) {
			break
		}
		h.Swap(i, j)
		j = i
	}
}

func (h minHeap) down(i int) {
	n := len(h)
	for {
		j := 2*i + 1
		if j >= n || j < 0 {
			break
		}
		if j2 := j + 1; j2 < n && h.Less(j2, j) {
			j = j2
		}
		if !h.Less(j, i) {
			break
		}
		h.Swap(i, j)
		i = j
	}
}

// better reports whether a outranks b: higher score, then lower key.
func better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.key < b.key
}

// topHits returns the limit best touched slots of a as hits, best first,
// each with its best passage for q;
// ix.mu held.
func topHits[D any](a *accumulator, ix *Index[D], q Query, limit int) []Hit[D] {
	h := make(minHeap, 0, limit+1)
	for _, s := range a.touched {
		c := scored{slot: s, score: float64(a.scores[s]), key: ix.keys[s]}
		if len(h) == limit && !better(c, h[0]) {
			continue
		}
		h.Push(c)
		if len(h) > limit {
			h.Pop()
		}
	}
	out := make([]Hit[D], len(h))
	for i := len(h) - 1; i >= 0; i-- {
		c := h.Pop()
		h := Hit[D]{Key: c.key, Doc: ix.docs[c.slot], Score: c.score, Matched: a.masks[c.slot], MatchedField: a.fields[c.slot]}
		h.BestPassage = ix.bestPassage(q, c.slot, h.MatchedField)
		for f, fd := range ix.fields {
			if fd.Head {
				h.MatchedHead |= h.MatchedField[f]
			}
		}
		out[i] = h
	}
	return out
}

// Nearest returns up to limit live documents with a vector, ranked by
// cosine similarity to the unit vector qv (their dot product), best
// first; Score is the similarity.
func (ix *Index[D]) Nearest(qv []float32, limit int) []Hit[D] {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	h := make(minHeap, 0, limit+1)
	for slot, v := range ix.vecs {
		if !ix.alive[slot] || len(v) != len(qv) || limit <= 0 {
			continue
		}
		c := scored{slot: int32(slot), score: Cosine(qv, v), key: ix.keys[slot]}
		if len(h) == limit && !better(c, h[0]) {
			continue
		}
		h.Push(c)
		if len(h) > limit {
			h.Pop()
		}
	}
	out := make([]Hit[D], len(h))
	for i := len(h) - 1; i >= 0; i-- {
		c := h.Pop()
		out[i] = Hit[D]{Key: c.key, Doc: ix.docs[c.slot], Score: c.score}
	}
	return out
}

// Similarity returns the cosine similarity of a document's vector to qv,
// and false when the document or its vector is unknown.
func (ix *Index[D]) Similarity(key int64, qv []float32) (float64, bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	slot, ok := ix.slots[key]
	if !ok || len(ix.vecs[slot]) != len(qv) {
		return 0, false
	}
	return Cosine(qv, ix.vecs[slot]), true
}

// Cosine is the dot product of two unit vectors (0 when their lengths
// differ).
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return float64(s)
}
