package retrieval

import (
	"math"
	"runtime"
	"strings"
	"sync"
)

// BM25F parameters (Robertson and Zaragoza's fielded BM25): a term's
// frequency is weighted and length-normalised per field, summed over the
// fields, then saturated once.
const (
	k1 = 1.2
	// minCorpus smooths idf in small collections: a scope with three
	// memories would otherwise give every word an idf near zero.
	minCorpus = 50
	// maxFields bounds the fields of an index.
	maxFields = 6
)

// Field is one field of the documents of an Index: its weight and its
// length normalisation b (0: none, 1: full).
type Field struct {
	Name   string
	Weight float64
	B      float64
	// Head marks a field that says what the document is about (a name, a
	// description, tags), as opposed to its body: Hit.MatchedHead.
	Head bool
	// Passages marks a field whose lines are passages on their own (a
	// skill's asks): a search says, for each hit, the most of the query's
	// terms one line holds (Hit.BestPassage; the first MaxPassages lines).
	Passages bool
	// Optional marks a field searched only by a query that asks for it
	// (Query.Optional): a skill's asks in other languages, for a request
	// in one of them. Its words count in the idf only of such queries, so
	// the other queries rank as if it were not there.
	Optional bool
}

// MaxPassages is how many lines of a Passages field are told apart.
const MaxPassages = 16

// posting is one term's occurrences in one field of one document: how
// many (at most 255, far past where BM25 saturates) and, in a Passages
// field, in which lines (bit i: line i).
type posting struct {
	slot     int32
	field    uint8
	tf       uint8
	passages uint16
}

// Index is an in-memory BM25F index of documents of type D, each with a
// key (unique, e.g. a database id) and the text of each field, and
// optionally an embedding vector. It is updated in place (Put, Delete);
// deleted documents leave postings that searches skip until a
// compaction, which builds the new postings off the lock and swaps them
// in (searches meanwhile use the old ones). It is safe for concurrent use.
type Index[D any] struct {
	fields []Field

	mu     sync.RWMutex // guards everything below
	docs   []D          // by slot
	keys   []int64      // by slot
	alive  []bool       // by slot
	lens   [][maxFields]float32
	vecs   [][]float32 // by slot; nil when unknown
	hashes []uint64    // by slot: of the fields' texts, to keep a vector across a Put of the same texts
	slots  map[int64]int32
	post   map[string][]posting
	terms  []string         // post's keys, in the order they came (compaction copies them in chunks)
	df     map[string]int32 // documents per term in the fields that are not Optional, deleted ones too
	dfOpt  map[string]int32 // documents per term that have it only in Optional fields, likewise
	live   int
	lenSum [maxFields]float64 // over every slot, deleted ones too
	// lenDocs counts the slots whose field has words (deleted ones too):
	// a field's average length is over the documents that have it, so
	// that a field few documents have yet (a skill's asks) is not
	// normalised against a near-zero average.
	lenDocs [maxFields]float64
	dead    int

	spares spareAccumulators // for searches; its own lock

	compacting bool
	journal    []op[D] // changes made while a compaction runs
}

// op is a change journalled during a compaction.
type op[D any] struct {
	del    bool
	key    int64
	doc    D
	fields []string
	terms  []map[string]termCount // the fields' term counts, computed off the lock
	vec    []float32
}

// NewIndex makes an empty index with the given fields.
func NewIndex[D any](fields ...Field) *Index[D] {
	if len(fields) == 0 || len(fields) > maxFields {
		panic("retrieval: an index has 1 to 6 fields")
	}
	return &Index[D]{fields: fields, slots: map[int64]int32{}, post: map[string][]posting{}, df: map[string]int32{},
		dfOpt: map[string]int32{}}
}

// Len returns the number of live documents.
func (ix *Index[D]) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.live
}

// Put indexes a document, replacing the one with the same key; fields are
// its texts in the order of the index's fields. The vector of the
// replaced document is kept when every text is the same.
func (ix *Index[D]) Put(key int64, doc D, fields ...string) {
	terms := ix.fieldTerms(fields)
	// Start the short write below on a fresh time slice: a writer
	// preempted while it holds the lock (a busy machine, a long
	// tokenisation before it) would stall every turn queued behind it.
	runtime.Gosched()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.put(key, doc, fields, terms, nil)
}

// termCount is a term's occurrences in one field of a document, and the
// lines it occurs in when the field has passages.
type termCount struct {
	n        int
	passages uint16
}

// fieldTerms counts the terms of each field outside the lock.
func (ix *Index[D]) fieldTerms(fields []string) []map[string]termCount {
	out := make([]map[string]termCount, len(fields))
	for f, text := range fields {
		out[f] = map[string]termCount{}
		passages := f < len(ix.fields) && ix.fields[f].Passages
		for line := 0; text != ""; line++ {
			part := text
			if passages {
				part, text, _ = strings.Cut(text, "\n")
			} else {
				text = ""
			}
			for _, t := range Terms(part, nil) {
				c := out[f][t]
				c.n++
				if passages && line < MaxPassages {
					c.passages |= 1 << line
				}
				out[f][t] = c
			}
		}
	}
	return out
}

func (ix *Index[D]) put(key int64, doc D, fields []string, terms []map[string]termCount, vec []float32) {
	if ix.compacting {
		ix.journal = append(ix.journal, op[D]{key: key, doc: doc, fields: fields, terms: terms, vec: vec})
	}
	hash := textHash(fields)
	if slot, ok := ix.slots[key]; ok {
		if vec == nil && ix.hashes[slot] == hash {
			vec = ix.vecs[slot]
		}
		ix.delete(key)
	}
	slot := int32(len(ix.docs))
	var lens [maxFields]float32
	seen := map[string]bool{} // the terms counted in df
	var opt []string          // the terms of Optional fields
	for f, tf := range terms {
		if f >= len(ix.fields) {
			break
		}
		for t, c := range tf {
			lens[f] += float32(c.n)
			ps, ok := ix.post[t]
			if !ok {
				ix.terms = append(ix.terms, t)
			}
			ix.post[t] = append(ps, posting{slot: slot, field: uint8(f), tf: uint8(min(c.n, math.MaxUint8)), passages: c.passages})
			switch {
			case ix.fields[f].Optional:
				opt = append(opt, t)
			case !seen[t]:
				seen[t] = true
				ix.df[t]++
			}
		}
		ix.lenSum[f] += float64(lens[f])
		if lens[f] > 0 {
			ix.lenDocs[f]++
		}
	}
	for _, t := range opt {
		if !seen[t] {
			seen[t] = true
			ix.dfOpt[t]++
		}
	}
	ix.docs, ix.keys, ix.alive = append(ix.docs, doc), append(ix.keys, key), append(ix.alive, true)
	ix.lens, ix.vecs, ix.hashes = append(ix.lens, lens), append(ix.vecs, vec), append(ix.hashes, hash)
	ix.slots[key] = slot
	ix.live++
}

// textHash is the FNV-1a hash of a document's texts.
// It is computed inline: hash.Hash's Write copied each text to a byte
// slice, an allocation per field of every document indexed.
func textHash(fields []string) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for _, f := range fields {
		for i := 0; i < len(f); i++ {
			h = (h ^ uint64(f[i])) * prime
		}
		h *= prime // the 0 byte between texts
	}
	return h
}

// Delete removes a document; a missing key is ignored.
func (ix *Index[D]) Delete(key int64) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.compacting {
		ix.journal = append(ix.journal, op[D]{del: true, key: key})
	}
	ix.delete(key)
}

// delete drops a document. Like Lucene's deletions, its postings, its
// length and its count in the collection statistics (df, the number of
// documents, the average length) stay until the next compaction, so that
// a delete costs no more than flipping a bit; compaction starts once the
// deleted documents outnumber half the live ones. mu held.
func (ix *Index[D]) delete(key int64) {
	slot, ok := ix.slots[key]
	if !ok {
		return
	}
	ix.alive[slot] = false
	ix.vecs[slot] = nil
	var zero D
	ix.docs[slot] = zero
	delete(ix.slots, key)
	ix.live--
	ix.dead++
	if ix.dead > 64 && ix.dead > ix.live/2 && !ix.compacting {
		ix.compacting = true
		go ix.compact()
	}
}

// termPostings is one term's posting list.
type termPostings struct {
	term string
	ps   []posting
}

// compact rebuilds the postings from the live documents and swaps them
// in. It copies what it reads (the per-slot arrays and the posting lists'
// headers: a posting is never changed once appended) in chunks, each
// under the read lock, into room made before, and builds without any lock,
// so neither searches nor changes wait for it; the changes made meanwhile
// are journalled and replayed on the new postings, off the lock too, until
// few are left, which are replayed under the lock as the new postings are
// swapped in (replaying a change twice leaves the same result).
func (ix *Index[D]) compact() {
	ix.mu.RLock()
	n, nt := len(ix.docs), len(ix.terms)
	ix.mu.RUnlock()
	alive, docs, keys := make([]bool, 0, n), make([]D, 0, n), make([]int64, 0, n)
	lens, vecs, hashes := make([][maxFields]float32, 0, n), make([][]float32, 0, n), make([]uint64, 0, n)
	post := make([]termPostings, 0, nt)
	// Copied in chunks, the read lock taken for each: a holder preempted on
	// a busy machine then delays a waiting change, and the turns queued
	// behind it, by one chunk's copy at most. What changes between chunks
	// (a deletion, a vector) is journalled and replayed; slots and postings
	// added after the first look (slot n and beyond) come back with the
	// journal too.
	for start := 0; start < n; start += copyChunk {
		end := min(start+copyChunk, n)
		runtime.Gosched() // as in Put
		ix.mu.RLock()
		alive, docs, keys = append(alive, ix.alive[start:end]...), append(docs, ix.docs[start:end]...), append(keys, ix.keys[start:end]...)
		lens, vecs, hashes = append(lens, ix.lens[start:end]...), append(vecs, ix.vecs[start:end]...), append(hashes, ix.hashes[start:end]...)
		ix.mu.RUnlock()
	}
	for start := 0; start < nt; start += copyChunk {
		runtime.Gosched()
		ix.mu.RLock()
		for _, t := range ix.terms[start:min(start+copyChunk, nt)] {
			post = append(post, termPostings{t, ix.post[t]})
		}
		ix.mu.RUnlock()
	}

	fresh := NewIndex[D](ix.fields...)
	fresh.compacting = true // it journals (discarded) and never compacts itself
	remap := make([]int32, len(docs))
	for slot, ok := range alive {
		remap[slot] = -1
		if !ok {
			continue
		}
		remap[slot] = int32(len(fresh.docs))
		fresh.docs, fresh.keys = append(fresh.docs, docs[slot]), append(fresh.keys, keys[slot])
		fresh.alive, fresh.lens, fresh.vecs = append(fresh.alive, true), append(fresh.lens, lens[slot]), append(fresh.vecs, vecs[slot])
		fresh.hashes = append(fresh.hashes, hashes[slot])
		fresh.slots[keys[slot]] = remap[slot]
		for f := range ix.fields {
			fresh.lenSum[f] += float64(lens[slot][f])
			if lens[slot][f] > 0 {
				fresh.lenDocs[f]++
			}
		}
	}
	for _, tp := range post {
		out := make([]posting, 0, len(tp.ps))
		for _, p := range tp.ps {
			if int(p.slot) >= n {
				break // added after the first look: the journal has it
			}
			if s := remap[p.slot]; s >= 0 {
				p.slot = s
				out = append(out, p)
			}
		}
		// A document's postings of a term are adjacent: it counts in df
		// when one of them is in a field that is not Optional.
		for i := 0; i < len(out); {
			main := false
			for s := out[i].slot; i < len(out) && out[i].slot == s; i++ {
				main = main || !ix.fields[out[i].field].Optional
			}
			if main {
				fresh.df[tp.term]++
			} else {
				fresh.dfOpt[tp.term]++
			}
		}
		if len(out) > 0 {
			fresh.post[tp.term] = out
			fresh.terms = append(fresh.terms, tp.term)
		}
	}
	fresh.live = len(fresh.docs)

	for {
		runtime.Gosched()
		ix.mu.Lock()
		journal := ix.journal
		ix.journal = nil
		if len(journal) <= swapJournal {
			fresh.replay(journal)
			ix.compacting = false
			ix.docs, ix.keys, ix.alive, ix.lens, ix.vecs, ix.hashes = fresh.docs, fresh.keys, fresh.alive, fresh.lens, fresh.vecs, fresh.hashes
			ix.slots, ix.post, ix.terms, ix.df, ix.dfOpt, ix.live, ix.lenSum, ix.lenDocs, ix.dead = fresh.slots, fresh.post, fresh.terms,
				fresh.df, fresh.dfOpt, fresh.live, fresh.lenSum, fresh.lenDocs, fresh.dead
			ix.mu.Unlock()
			return
		}
		ix.mu.Unlock()
		fresh.replay(journal)
	}
}

// copyChunk is how many slots, or terms, compact copies under one read
// lock.
const copyChunk = 1024

// swapJournal is how many journalled changes compact replays under the
// lock as it swaps the new postings in; more are replayed before, off it.
const swapJournal = 4

// replay applies journalled changes to an index no one else uses yet.
func (ix *Index[D]) replay(journal []op[D]) {
	for _, o := range journal {
		switch {
		case o.del:
			ix.delete(o.key)
		case o.fields == nil:
			ix.setVector(o.key, o.vec)
		default:
			ix.put(o.key, o.doc, o.fields, o.terms, o.vec)
		}
	}
	ix.journal = nil
}

// SetVector sets the embedding of a document (a unit vector); a missing
// key is ignored.
func (ix *Index[D]) SetVector(key int64, vec []float32) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.compacting {
		ix.journal = append(ix.journal, op[D]{key: key, vec: vec})
	}
	ix.setVector(key, vec)
}

func (ix *Index[D]) setVector(key int64, vec []float32) {
	if slot, ok := ix.slots[key]; ok {
		ix.vecs[slot] = vec
	}
}

// Get returns the document of a key.
func (ix *Index[D]) Get(key int64) (D, bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	slot, ok := ix.slots[key]
	if !ok {
		var zero D
		return zero, false
	}
	return ix.docs[slot], true
}

// Each calls f with every live document and its vector (nil when not
// known), under the read lock: f must not call the index.
func (ix *Index[D]) Each(f func(key int64, doc D, vec []float32) bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	for slot, ok := range ix.alive {
		if ok && !f(ix.keys[slot], ix.docs[slot], ix.vecs[slot]) {
			return
		}
	}
}

// Compact drops deleted documents' postings now and waits for it, unless
// a compaction already runs (benchmarks and tests; compaction otherwise
// starts by itself in the background).
func (ix *Index[D]) Compact() {
	ix.mu.Lock()
	if ix.compacting {
		ix.mu.Unlock()
		return
	}
	ix.compacting = true
	ix.mu.Unlock()
	ix.compact()
}
