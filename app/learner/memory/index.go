package memory

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/retrieval"
	"github.com/metaclaw/metaclaw/store"
)

// memoryFields are the fields of a scope's index: the memory's text, and
// its topic, which says what the memory is about (weighted twice).
var memoryFields = []retrieval.Field{
	{Name: "content", Weight: 1, B: 0.75, Head: true},
	{Name: "topic", Weight: 2, B: 0.75, Head: true},
}

// entry is one current memory in a scope's index, kept compact (about a
// third of a store.Memory): what ranking, rendering and consolidation
// read. Its vector lives in the index.
type entry struct {
	id                 int64
	content, topic     string
	importance, confid float32
	updated, validFrom int64 // unix ms
	lastUsed           int64 // unix ms
	typ                uint8 // index in store.MemoryTypes
	pinned             bool
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
// counts and creation time are not).
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

// scopeIndex is the index of one scope's current memories (the retrieval
// core's BM25F index, with their vectors). It is updated in place as the
// service changes memories, and rebuilt from the store when someone else
// (the CLI) did.
type scopeIndex struct {
	mu     sync.RWMutex // guards rev and pinned, and orders changes against reads of both
	scope  string
	rev    int64 // the scope revision it reflects
	ix     *retrieval.Index[*entry]
	pinned map[int64]bool

	filling atomic.Bool // an embedding fill runs
}

func newScopeIndex(scope string, ms []store.Memory, rev int64) *scopeIndex {
	ix := &scopeIndex{scope: scope, rev: rev, ix: retrieval.NewIndex[*entry](memoryFields...), pinned: map[int64]bool{}}
	for i, m := range ms {
		ix.add(m)
		if i%buildYield == buildYield-1 {
			// A build is seconds of CPU on a machine of two cores; yielding
			// often lets a turn that waits for a processor run at once
			// instead of after the build's 10 ms time slice.
			runtime.Gosched()
		}
	}
	return ix
}

// buildYield is how many memories a build indexes between yields (about
// a tenth of a millisecond).
const buildYield = 32

// add indexes a memory (replacing an entry with the same id; the same
// text keeps its vector); mu held.
func (ix *scopeIndex) add(m store.Memory) {
	ix.ix.Put(m.ID, newEntry(m), m.Content, m.Topic)
	if m.Pinned {
		ix.pinned[m.ID] = true
	} else {
		delete(ix.pinned, m.ID)
	}
}

// remove drops a memory from the index; mu held.
func (ix *scopeIndex) remove(id int64) {
	ix.ix.Delete(id)
	delete(ix.pinned, id)
}

// live returns the number of memories indexed.
func (ix *scopeIndex) live() int { return ix.ix.Len() }

// get returns the entry of a memory id, nil when it is not indexed.
func (ix *scopeIndex) get(id int64) *entry {
	e, _ := ix.ix.Get(id)
	return e
}

type hit struct {
	e       *entry
	score   float64
	matched uint64 // the query terms it matched (retrieval.Hit.Matched)
}

// search returns up to limit entries ranked by BM25F for the query, best
// first.
func (ix *scopeIndex) search(q retrieval.Query, limit int) []hit {
	hs, _ := ix.ix.Search(q, limit)
	out := make([]hit, len(hs))
	for i, h := range hs {
		out[i] = hit{e: h.Doc, score: h.Score, matched: h.Matched}
	}
	return out
}

// nearest returns up to limit entries by cosine similarity to qv.
func (ix *scopeIndex) nearest(qv []float32, limit int) []hit {
	hs := ix.ix.Nearest(qv, limit)
	out := make([]hit, len(hs))
	for i, h := range hs {
		out[i] = hit{e: h.Doc, score: h.Score}
	}
	return out
}

// skipWord drops the words of queries that say nothing about the person:
// retrieval.QuerySkip's, and requests' verbs (write, draft, fix…): a memory
// that shares only them with a request is not relevant to it.
func skipWord(w string) bool { return retrieval.QuerySkip(w) || requestWords[w] }

var requestWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`go going goes gone write writes draft tell show give use using thing things
		something anything everything again right new help check set put know think way today look find fix`) {
		m[w] = true
	}
	return m
}()

// queryOf is the query of a text.
func queryOf(text string) retrieval.Query {
	return retrieval.Request{Instruction: text}.Query(skipWord)
}

// contentTokens is the set of content words of a text, for similarity.
func contentTokens(text string) map[string]bool {
	out := map[string]bool{}
	for _, t := range retrieval.Terms(text, skipWord) {
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
