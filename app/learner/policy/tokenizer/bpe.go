package tokenizer

import (
	"strings"
	"sync"
	"sync/atomic"
)

// mergeKey packs a pair of token ids into a map key.
func mergeKey(left, right int) uint64 {
	return uint64(uint32(left))<<32 | uint64(uint32(right))
}

// merge is what a pair of adjacent tokens becomes: the token id, and the
// rank of the merge (lower merges first).
type merge struct {
	rank, id int32
}

// bpe is a byte-level BPE model.
type bpe struct {
	vocab        map[string]int
	merges       map[uint64]merge
	byteIDs      [256]int // token id of each byte, -1 if the vocab lacks it
	unkID        int      // id for a byte the vocab lacks, -1 to drop it
	ignoreMerges bool     // a piece that is a whole token is taken as it is
	cache        pieceCache
}

// encodePiece appends the ids of one pre-tokenised piece (raw bytes).
func (m *bpe) encodePiece(piece string, dst []int) []int {
	if ids, ok := m.cache.get(piece); ok {
		return append(dst, ids...)
	}
	if m.ignoreMerges {
		if id, ok := m.vocab[byteLevel(piece)]; ok {
			return append(dst, id)
		}
	}
	start := len(dst)
	dst = m.mergeBytes(piece, dst)
	m.cache.put(piece, dst[start:])
	return dst
}

// symbol is one token of a word being merged, in a linked list.
type symbol struct {
	id         int32
	prev, next int32 // neighbours, -1 at the ends
	gone       bool  // merged into its left neighbour
}

// candidate is a pair of adjacent symbols that a merge could join.
type candidate struct {
	rank, pos   int32 // pos is the left symbol's index
	left, right int32 // the ids the pair had when it was queued
}

// mergeBytes runs the merges over the bytes of piece, lowest rank first
// and leftmost first among equal ranks, as Hugging Face's BPE does.
func (m *bpe) mergeBytes(piece string, dst []int) []int {
	var symBuf [64]symbol // most pieces fit: no allocation
	var candBuf [64]candidate
	syms := m.symbols(piece, symBuf[:0])
	if len(syms) == 0 {
		return dst
	}
	h := candHeap(candBuf[:0])
	for i := 0; i+1 < len(syms); i++ {
		h = m.push(h, syms, int32(i))
	}
	for len(h) > 0 {
		var c candidate
		c, h = h.pop()
		s := &syms[c.pos]
		if s.gone || s.id != c.left || s.next < 0 || syms[s.next].id != c.right {
			continue // stale: one side has merged since
		}
		gone := s.next
		s.id = m.merges[mergeKey(int(c.left), int(c.right))].id
		syms[gone].gone = true
		s.next = syms[gone].next
		if s.next >= 0 {
			syms[s.next].prev = c.pos
			h = m.push(h, syms, c.pos)
		}
		if s.prev >= 0 {
			h = m.push(h, syms, s.prev)
		}
	}
	for i := int32(0); i >= 0; i = syms[i].next {
		dst = append(dst, int(syms[i].id))
	}
	return dst
}

// symbols returns the linked list of the byte tokens of piece, in buf if
// it is big enough. A byte the vocab lacks becomes the unknown token or,
// without one, is dropped, as in Hugging Face's BPE.
func (m *bpe) symbols(piece string, buf []symbol) []symbol {
	syms := buf
	if len(piece) > cap(buf) {
		syms = make([]symbol, 0, len(piece))
	}
	for i := 0; i < len(piece); i++ {
		id := m.byteIDs[piece[i]]
		if id < 0 {
			if id = m.unkID; id < 0 {
				continue
			}
		}
		n := int32(len(syms))
		syms = append(syms, symbol{id: int32(id), prev: n - 1, next: n + 1})
	}
	if len(syms) > 0 {
		syms[len(syms)-1].next = -1
	}
	return syms
}

// push queues the pair that starts at symbol pos, if a merge joins it.
func (m *bpe) push(h candHeap, syms []symbol, pos int32) candHeap {
	left, right := syms[pos].id, syms[syms[pos].next].id
	if mg, ok := m.merges[mergeKey(int(left), int(right))]; ok {
		h = h.push(candidate{rank: mg.rank, pos: pos, left: left, right: right})
	}
	return h
}

// candHeap is a binary min-heap of candidates by (rank, pos).
type candHeap []candidate

func (h candHeap) less(i, j int) bool {
	if h[i].rank != h[j].rank {
		return h[i].rank < h[j].rank
	}
	return h[i].pos < h[j].pos
}

func (h candHeap) push(c candidate) candHeap {
	q := append(h, c)
	for i := len(q) - 1; i > 0; {
		parent := (i - 1) / 2
		if !q.less(i, parent) {
			break
		}
		q[i], q[parent] = q[parent], q[i]
		i = parent
	}
	return q
}

func (h candHeap) pop() (candidate, candHeap) {
	q := h
	top := q[0]
	last := len(q) - 1
	q[0] = q[last]
	q = q[:last]
	for i := 0; ; {
		l, r, small := 2*i+1, 2*i+2, i
		if l < len(q) && q.less(l, small) {
			small = l
		}
		if r < len(q) && q.less(r, small) {
			small = r
		}
		if small == i {
			break
		}
		q[i], q[small] = q[small], q[i]
		i = small
	}
	return top, q
}

// Cache limits, as in Hugging Face's BPE: pieces longer than
// cacheMaxPiece bytes are not cached, and the cache is emptied when it
// holds cacheCapacity pieces.
const (
	cacheCapacity = 10000
	cacheMaxPiece = 256
)

// pieceCache remembers the ids of recently encoded pieces. Reads take no
// lock (sync.Map), as most pieces of a text have been seen before.
type pieceCache struct {
	m    sync.Map     // piece string -> []int
	size atomic.Int64 // entries stored since the last reset
}

func (c *pieceCache) get(piece string) ([]int, bool) {
	v, ok := c.m.Load(piece)
	if !ok {
		return nil, false
	}
	return v.([]int), true
}

func (c *pieceCache) put(piece string, ids []int) {
	if len(piece) > cacheMaxPiece {
		return
	}
	if c.size.Add(1) > cacheCapacity {
		c.m.Clear()
		c.size.Store(1)
	}
	// A key must not pin the caller's text.
	c.m.Store(strings.Clone(piece), append([]int(nil), ids...))
}
