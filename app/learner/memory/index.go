package memory

import (
	"container/heap"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	stemmer "github.com/metaclaw/metaclaw/app/learner/internal/stem"
	"github.com/metaclaw/metaclaw/store"
)

// BM25 parameters. minCorpus smooths idf in small scopes: a scope with
// three memories would otherwise give every word an idf near zero, and
// nothing would ever look relevant.
const (
	bm25K1    = 1.2
	bm25B     = 0.75
	minCorpus = 50
	// topicWeight counts each topic word this many times: the topic says
	// what the memory is about.
	topicWeight = 2
)

// entry is one current memory in a scope's index, kept compact (about a
// third of a store.Memory): what ranking, rendering and consolidation
// read.
type entry struct {
	id                 int64
	content, topic     string
	importance, confid float32
	updated, validFrom int64 // unix ms
	lastUsed           int64 // unix ms
	length             float32
	typ                uint8 // index in store.MemoryTypes
	pinned             bool
	vec                []float32 // embedding; nil until known
}

func newEntry(m store.Memory) *entry {
	e := &entry{id: m.ID, content: m.Content, topic: m.Topic, importance: float32(m.Importance),
		confid: float32(m.Confidence), updated: m.UpdatedAt.UnixMilli(), validFrom: m.ValidFrom.UnixMilli(),
		lastUsed: m.LastUsedAt.UnixMilli(), pinned: m.Pinned}
	for i, t := range store.MemoryTypes {
		if t == m.Type {
			e.typ = uint8(i)
		}
	}
	return e
}

// memory rebuilds the memory's fields that the index keeps (provenance,
// counts and creation time are not: CreatedAt is ValidFrom, as the store
// writes them).
func (e *entry) memory(scope string) store.Memory {
	m := store.Memory{ID: e.id, Scope: scope, Type: store.MemoryTypes[e.typ], Topic: e.topic, Content: e.content,
		Importance: float64(e.importance), Confidence: float64(e.confid), Pinned: e.pinned,
		UpdatedAt: time.UnixMilli(e.updated), ValidFrom: time.UnixMilli(e.validFrom)}
	m.CreatedAt = m.ValidFrom
	if e.lastUsed > 0 {
		m.LastUsedAt = time.UnixMilli(e.lastUsed)
	}
	return m
}

// terms returns the index terms of a memory with their frequencies.
func termsOf(content, topic string) map[string]int {
	tf := map[string]int{}
	for _, t := range tokenize(content, false) {
		tf[t]++
	}
	for _, t := range tokenize(topic, false) {
		tf[t] += topicWeight
	}
	return tf
}

type posting struct {
	slot int32
	tf   uint16
}

// scopeIndex is the in-memory BM25 index of one scope's current memories.
// It is updated in place as the service changes memories, and rebuilt from
// the store when someone else (the CLI) did.
type scopeIndex struct {
	mu     sync.RWMutex // guards every field below
	scope  string
	rev    int64     // the scope revision it reflects
	docs   []*entry  // by slot; nil when removed
	lens   []float32 // document length by slot, dense for the scoring loop; 0 when removed
	slots  map[int64]int32
	post   map[string][]posting
	df     map[string]int32 // live documents per term
	pinned map[int32]bool
	live   int
	dead   int
	lenSum float64

	filling atomic.Bool // an embedding fill runs
}

func newScopeIndex(scope string, ms []store.Memory, rev int64) *scopeIndex {
	ix := &scopeIndex{scope: scope, rev: rev, slots: make(map[int64]int32, len(ms)), post: map[string][]posting{},
		df: map[string]int32{}, pinned: map[int32]bool{}}
	for _, m := range ms {
		ix.add(m)
	}
	return ix
}

// add indexes a memory (replacing an entry with the same id); mu held.
func (ix *scopeIndex) add(m store.Memory) {
	var vec []float32
	if slot, ok := ix.slots[m.ID]; ok {
		if old := ix.docs[slot]; old.content == m.Content {
			vec = old.vec // same text: same embedding
		}
		ix.remove(m.ID)
	}
	slot := int32(len(ix.docs))
	e := newEntry(m)
	e.vec = vec
	for t, n := range termsOf(m.Content, m.Topic) {
		e.length += float32(n)
		ix.post[t] = append(ix.post[t], posting{slot: slot, tf: uint16(min(n, math.MaxUint16))})
		ix.df[t]++
	}
	ix.docs = append(ix.docs, e)
	ix.lens = append(ix.lens, e.length)
	ix.slots[m.ID] = slot
	if m.Pinned {
		ix.pinned[slot] = true
	}
	ix.live++
	ix.lenSum += float64(e.length)
}

// remove drops a memory from the index; its postings are skipped until the
// next compaction. mu held.
func (ix *scopeIndex) remove(id int64) {
	slot, ok := ix.slots[id]
	if !ok {
		return
	}
	e := ix.docs[slot]
	for t := range termsOf(e.content, e.topic) {
		if ix.df[t]--; ix.df[t] <= 0 {
			delete(ix.df, t)
		}
	}
	ix.docs[slot] = nil
	ix.lens[slot] = 0
	delete(ix.slots, id)
	delete(ix.pinned, slot)
	ix.live--
	ix.dead++
	ix.lenSum -= float64(e.length)
	if ix.dead > 256 && ix.dead > ix.live/2 {
		ix.compact()
	}
}

// compact rebuilds the postings from the live entries.
func (ix *scopeIndex) compact() {
	live := make([]store.Memory, 0, ix.live)
	vecs := make(map[int64][]float32)
	for _, e := range ix.docs {
		if e != nil {
			live = append(live, e.memory(ix.scope))
			if e.vec != nil {
				vecs[e.id] = e.vec
			}
		}
	}
	fresh := newScopeIndex(ix.scope, live, ix.rev)
	for id, v := range vecs {
		fresh.docs[fresh.slots[id]].vec = v
	}
	ix.docs, ix.lens, ix.slots, ix.post, ix.df, ix.pinned = fresh.docs, fresh.lens, fresh.slots, fresh.post, fresh.df, fresh.pinned
	ix.live, ix.dead, ix.lenSum = fresh.live, 0, fresh.lenSum
}

// get returns the entry of a memory id; mu held.
func (ix *scopeIndex) get(id int64) *entry {
	if slot, ok := ix.slots[id]; ok {
		return ix.docs[slot]
	}
	return nil
}

type hit struct {
	e     *entry
	score float64
}

// search returns up to limit entries ranked by BM25 for the query terms,
// best first; mu held (read).
func (ix *scopeIndex) search(terms []string, limit int) []hit {
	if len(terms) == 0 || ix.live == 0 || limit <= 0 {
		return nil
	}
	acc := getAccumulator(len(ix.docs))
	defer putAccumulator(acc)
	n := float64(max(ix.live, minCorpus))
	avg := ix.lenSum / float64(ix.live)
	for _, t := range terms {
		df := float64(ix.df[t])
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		k := float32(bm25K1 * bm25B / avg)
		base := float32(bm25K1 * (1 - bm25B))
		w := float32(idf * (bm25K1 + 1))
		for _, p := range ix.post[t] {
			l := ix.lens[p.slot]
			if l == 0 { // removed
				continue
			}
			tf := float32(p.tf)
			acc.add(p.slot, w*tf/(tf+base+k*l))
		}
	}
	return acc.top(ix.docs, limit)
}

// accumulator sums scores per slot, remembering which slots it touched so
// that resetting costs only what was used.
type accumulator struct {
	scores  []float32
	touched []int32
}

var accPool = sync.Pool{New: func() any { return &accumulator{} }}

func getAccumulator(n int) *accumulator {
	a := accPool.Get().(*accumulator)
	if cap(a.scores) < n {
		a.scores = make([]float32, n)
	}
	a.scores = a.scores[:n]
	return a
}

func putAccumulator(a *accumulator) {
	for _, s := range a.touched {
		a.scores[s] = 0
	}
	a.touched = a.touched[:0]
	accPool.Put(a)
}

func (a *accumulator) add(slot int32, s float32) {
	if a.scores[slot] == 0 {
		a.touched = append(a.touched, slot)
	}
	a.scores[slot] += s
}

// top returns the limit best-scoring touched slots, best first.
func (a *accumulator) top(docs []*entry, limit int) []hit {
	h := make(minHeap, 0, limit+1)
	for _, s := range a.touched {
		sc := float64(a.scores[s])
		if len(h) == limit && sc <= h[0].score {
			continue
		}
		heap.Push(&h, hit{e: docs[s], score: sc})
		if len(h) > limit {
			heap.Pop(&h)
		}
	}
	out := make([]hit, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&h).(hit)
	}
	return out
}

type minHeap []hit

func (h minHeap) Len() int { return len(h) }
func (h minHeap) Less(i, j int) bool {
	if h[i].score != h[j].score {
		return h[i].score < h[j].score
	}
	return h[i].e.id < h[j].e.id
}
func (h minHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)   { *h = append(*h, x.(hit)) }
func (h *minHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// tokenize returns the terms of text (see stem.Terms), without stop words
// and requestWords for queries.
func tokenize(text string, query bool) []string {
	if query {
		return stemmer.Terms(text, func(w string) bool { return store.IsStopWord(w) || requestWords[w] })
	}
	return stemmer.Terms(text, nil)
}

// requestWords are words of requests that say nothing about the person:
// a memory that shares only them with a request is not relevant to it.
var requestWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`go going goes gone write writes draft tell show give use using thing things
		something anything everything again right new help check set put know think way today look find fix`) {
		m[w] = true
	}
	return m
}()

// queryTerms returns the distinct terms of a query, at most 48.
func queryTerms(q string) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range tokenize(q, true) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
			if len(out) == 48 {
				break
			}
		}
	}
	return out
}

// contentTokens is the set of content words of a text, for similarity.
func contentTokens(text string) map[string]bool {
	out := map[string]bool{}
	for _, t := range tokenize(text, true) {
		out[t] = true
	}
	return out
}

// similarity is the Jaccard index of two token sets.
func similarity(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	inter := 0
	for t := range a {
		if b[t] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}
