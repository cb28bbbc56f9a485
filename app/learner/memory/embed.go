package memory

import (
	"context"
	"errors"
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
	var ids []int64
	var texts []string
	ix.ix.Each(func(key int64, e *entry, vec []float32) bool {
		if vec == nil {
			ids, texts = append(ids, key), append(texts, e.content)
		}
		return len(ids) < limit
	})
	return ids, texts
}

func (ix *scopeIndex) setVectors(ids []int64, texts []string, vs [][]float32) {
	for i, id := range ids {
		if e := ix.get(id); e != nil && e.content == texts[i] {
			ix.ix.SetVector(id, vs[i])
		}
	}
}

// Warm builds scope's index if it is not built and, with embeddings on,
// fills every missing vector before it returns, so that the next searches
// rank with vectors (a turn never waits for this: it ranks with what it
// has). It is for one-off searches and measurements.
func (r *Retriever) Warm(ctx context.Context, scope string) error {
	ix, err := r.index(ctx, scope)
	if err != nil || !r.useVectors() {
		return err
	}
	for {
		if ids, _ := ix.missingVectors(1); len(ids) == 0 {
			return nil
		}
		if !ix.filling.Load() {
			r.fillVectors(ix)
			if ids, _ := ix.missingVectors(1); len(ids) > 0 && !ix.filling.Load() {
				return errors.New("memory vectors: the embeddings endpoint did not answer for every memory (see the log)")
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}
