package skills

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/metaclaw/metaclaw/store"
)

// checkEvery is how often the library's stamp is read to see whether
// another process (the CLI) changed skills; changes made through the same
// store handle (the evolver, the web page) are seen at once through its
// epoch. The in-memory indexes are rebuilt when either moved.
const checkEvery = 2 * time.Second

// library is a snapshot of the enabled skills with their indexes.
type library struct {
	epoch int64 // the store's SkillsEpoch when the snapshot was made
	stamp string
	bm25  *bm25Index
	vecs  [][]float32 // parallel to bm25.docs; nil until embeddings are needed
	// recent are the latest selections made from this snapshot.
	recent recentSelections
}

// library returns the current snapshot, rebuilding it when the skills
// changed since it was made.
func (r *Retriever) library(ctx context.Context) (*library, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	epoch := r.db.SkillsEpoch()
	if r.lib != nil && r.lib.epoch == epoch && time.Since(r.checked) < checkEvery {
		return r.lib, nil
	}
	stamp, err := r.db.SkillsStamp(ctx)
	if err != nil {
		return nil, err
	}
	r.checked = time.Now()
	if r.lib != nil && r.lib.stamp == stamp && r.lib.epoch == epoch {
		return r.lib, nil
	}
	all, err := r.db.Skills(ctx, false)
	if err != nil {
		return nil, err
	}
	r.lib = &library{epoch: epoch, stamp: stamp, bm25: buildIndex(all)}
	return r.lib, nil
}

// embedText is what a skill's vector is computed from.
func embedText(name, description string, tags []string, body string) string {
	if len(body) > 1500 {
		body = body[:1500]
	}
	return strings.ReplaceAll(name, "-", " ") + ": " + description + "\n" + strings.Join(tags, ", ") + "\n" + body
}

// embedding ranks enabled skills by cosine similarity to the query.
func (r *Retriever) embedding(ctx context.Context, lib *library, q string) ([]candidate, error) {
	docs, vecs, err := r.vectors(ctx, lib)
	if err != nil {
		return nil, err
	}
	qv, err := r.emb.Embed(ctx, []string{q})
	if err != nil {
		return nil, err
	}
	var out []candidate
	for i, v := range vecs {
		if s := cosine(qv[0], v); s >= r.opts.MinCosine {
			out = append(out, candidate{skill: docs[i], score: s})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].score > out[j].score })
	if n := r.opts.Candidates + r.opts.GeneralTopK; len(out) > n {
		out = out[:n]
	}
	return out, nil
}

// vectors returns lib's skills and their vectors, computing the
// vectors (through the store's cache) the first time they are needed.
func (r *Retriever) vectors(ctx context.Context, lib *library) ([]store.Skill, [][]float32, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if lib.vecs == nil {
		texts := make([]string, len(lib.bm25.docs))
		for i, s := range lib.bm25.docs {
			texts[i] = embedText(s.Name, s.Description, s.Tags, s.Body)
		}
		vecs, err := r.emb.Embed(ctx, texts)
		if err != nil {
			return nil, nil, err
		}
		lib.vecs = vecs
	}
	return lib.bm25.docs, lib.vecs, nil
}
