package memory

import (
	"container/heap"
	"context"
	"time"
)

// Embedding time limits: the query's vector must come within the turn's
// injection deadline (the turn falls back to keyword ranking otherwise);
// memories' vectors are filled in the background.
const (
	queryEmbedTimeout = 150 * time.Millisecond
	fillBatch         = 256
	fillTimeout       = 2 * time.Minute
)

// useVectors reports whether ranking uses embeddings.
func (r *Retriever) useVectors() bool { return r.emb != nil && r.opts.Mode != ModeKeyword }

// queryVector embeds the query (through the store's cache), or returns nil
// when embeddings are off or fail.
func (r *Retriever) queryVector(ctx context.Context, q string) []float32 {
	if !r.useVectors() || q == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, queryEmbedTimeout)
	defer cancel()
	vs, err := r.emb.Embed(ctx, []string{q})
	if err != nil || len(vs) != 1 {
		r.log.Debug("memory query embedding", "err", err)
		return nil
	}
	return vs[0]
}

// fillVectors embeds the memories of ix that have no vector yet, in
// batches, taking the index's lock only to read texts and store vectors.
// One fill runs per index at a time; it does nothing in keyword mode.
func (r *Retriever) fillVectors(ix *scopeIndex) {
	if !r.useVectors() || !ix.filling.CompareAndSwap(false, true) {
		return
	}
	defer ix.filling.Store(false)
	ctx, cancel := context.WithTimeout(r.bg, fillTimeout)
	defer cancel()
	for ctx.Err() == nil {
		ids, texts := ix.missingVectors(fillBatch)
		if len(ids) == 0 {
			return
		}
		vs, err := r.emb.Embed(ctx, texts)
		if err != nil || len(vs) != len(ids) {
			r.log.Warn("embed memories", "err", err)
			return
		}
		ix.setVectors(ids, texts, vs)
	}
}

func (ix *scopeIndex) missingVectors(limit int) ([]int64, []string) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	var ids []int64
	var texts []string
	for _, e := range ix.docs {
		if e != nil && e.vec == nil {
			ids, texts = append(ids, e.id), append(texts, e.content)
			if len(ids) == limit {
				break
			}
		}
	}
	return ids, texts
}

func (ix *scopeIndex) setVectors(ids []int64, texts []string, vs [][]float32) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for i, id := range ids {
		if e := ix.get(id); e != nil && e.content == texts[i] {
			e.vec = vs[i]
		}
	}
}

// nearest returns up to limit entries by cosine similarity to qv (unit
// vectors: the dot product); ix.mu held (read).
func (ix *scopeIndex) nearest(qv []float32, limit int) []hit {
	h := make(minHeap, 0, limit+1)
	for _, e := range ix.docs {
		if e == nil || len(e.vec) != len(qv) {
			continue
		}
		var dot float32
		for i, x := range qv {
			dot += x * e.vec[i]
		}
		if s := float64(dot); len(h) < limit || s > h[0].score {
			heap.Push(&h, hit{e: e, score: s})
			if len(h) > limit {
				heap.Pop(&h)
			}
		}
	}
	out := make([]hit, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&h).(hit)
	}
	return out
}
