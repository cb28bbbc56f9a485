package skills

import (
	"context"
	"sort"
	"strings"
	"time"
)

// indexTTL is how long the in-memory embedding index is reused before the
// skill list is read again.
const indexTTL = 10 * time.Second

// embedText is what a skill's vector is computed from.
func embedText(name, description string, tags []string, body string) string {
	if len(body) > 1500 {
		body = body[:1500]
	}
	return strings.ReplaceAll(name, "-", " ") + ": " + description + "\n" + strings.Join(tags, ", ") + "\n" + body
}

// embedding ranks enabled skills by cosine similarity to the query.
func (r *Retriever) embedding(ctx context.Context, q string) ([]candidate, error) {
	idx, err := r.loadIndex(ctx)
	if err != nil {
		return nil, err
	}
	qv, err := r.emb.Embed(ctx, []string{q})
	if err != nil {
		return nil, err
	}
	var out []candidate
	for _, it := range idx {
		if s := cosine(qv[0], it.vec); s >= r.opts.MinCosine {
			out = append(out, candidate{skill: it.skill, score: s})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].score > out[j].score })
	if n := r.opts.Candidates + r.opts.GeneralTopK; len(out) > n {
		out = out[:n]
	}
	return out, nil
}

// loadIndex returns every enabled skill with its vector, refreshing the
// in-memory copy after indexTTL. Vectors come from the store's cache, so a
// refresh only calls the endpoint for new or changed skills.
func (r *Retriever) loadIndex(ctx context.Context) ([]indexed, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.index != nil && time.Since(r.loadedAt) < indexTTL {
		return r.index, nil
	}
	all, err := r.db.Skills(ctx, false)
	if err != nil {
		return nil, err
	}
	texts := make([]string, len(all))
	for i, s := range all {
		texts[i] = embedText(s.Name, s.Description, s.Tags, s.Body)
	}
	vecs, err := r.emb.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	idx := make([]indexed, len(all))
	for i, s := range all {
		idx[i] = indexed{skill: s, vec: vecs[i]}
	}
	r.index, r.loadedAt = idx, time.Now()
	return idx, nil
}
