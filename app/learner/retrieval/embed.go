package retrieval

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/llm"
	"github.com/metaclaw/metaclaw/app/learner/usage"
	"github.com/metaclaw/metaclaw/store"
)

// Embedding requests: a timeout per attempt and the retries after a 408,
// 409, 429, 5xx or transport error.
const (
	embedTimeout    = 20 * time.Second
	embedMaxRetries = 2
)

// Embedder turns texts into vectors through an OpenAI-compatible
// /v1/embeddings endpoint, caching every vector in the store by model and
// text hash.
type Embedder struct {
	post  *llm.Poster
	url   string
	model string
	db    *store.DB
	meter *usage.Meter // counts the calls as learning's (usage.Embeddings); nil: none
}

// NewEmbedder makes an embedder for baseURL (ending in /v1), key and model.
func NewEmbedder(db *store.DB, baseURL, key, model string) *Embedder {
	p := &llm.Poster{Header: llm.BearerHeader(key, nil), Secret: key,
		Timeout: embedTimeout, MaxRetries: embedMaxRetries}
	return &Embedder{post: p, url: strings.TrimRight(baseURL, "/") + "/embeddings", model: model, db: db}
}

// Metered makes the embedder's calls count in learning's usage meter under
// usage.Embeddings, like the other learner calls, and so obey
// learning.max_calls_per_day: once it is reached, texts not in the cache
// fail with usage.ErrBudget. It returns e.
func (e *Embedder) Metered(m *usage.Meter) *Embedder {
	e.meter = m
	return e
}

// embeddingsRequest is an OpenAI embeddings request for a batch of texts.
type embeddingsRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

// embeddingsResponse holds one vector per input, each with its index.
type embeddingsResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float64 `json:"embedding"`
	} `json:"data"`
	Usage struct {
		PromptTokens int `json:"prompt_tokens"`
	} `json:"usage"`
}

// Embed returns one unit-length vector per text, from the cache where it
// can.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var missing []int
	for i, t := range texts {
		v, ok, err := e.db.CachedEmbedding(ctx, e.model, t)
		if err != nil {
			return nil, err
		}
		if ok {
			out[i] = v
		} else {
			missing = append(missing, i)
		}
	}
	for start := 0; start < len(missing); start += 64 {
		batch := missing[start:min(start+64, len(missing))]
		if err := e.fetch(ctx, texts, batch, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (e *Embedder) fetch(ctx context.Context, texts []string, idx []int, out [][]float32) error {
	inputs := make([]string, len(idx))
	for i, j := range idx {
		inputs[i] = texts[j]
	}
	if err := e.meter.Allow(ctx); err != nil {
		return fmt.Errorf("embeddings: %w", err)
	}
	var resp embeddingsResponse
	err := e.post.PostJSON(ctx, e.url, embeddingsRequest{Model: e.model, Input: inputs}, &resp)
	if ctx.Err() == nil || err == nil {
		e.meter.Record(ctx, usage.Embeddings, usage.Call{Usage: llm.Usage{PromptTokens: resp.Usage.PromptTokens}, Failed: err != nil})
		e.meter.Outcome(usage.Embeddings, err)
	}
	if err != nil {
		return fmt.Errorf("embeddings: %w", err)
	}
	if len(resp.Data) != len(idx) {
		return fmt.Errorf("embeddings: asked for %d vectors, got %d", len(idx), len(resp.Data))
	}
	for _, d := range resp.Data {
		if d.Index < 0 || d.Index >= len(idx) {
			return fmt.Errorf("embeddings: index %d out of range", d.Index)
		}
		v := normalise(d.Embedding)
		j := idx[d.Index]
		out[j] = v
		if err := e.db.PutEmbedding(ctx, e.model, texts[j], v); err != nil {
			return err
		}
	}
	return nil
}

func normalise(v []float64) []float32 {
	var n float64
	for _, x := range v {
		n += x * x
	}
	n = math.Sqrt(n)
	out := make([]float32, len(v))
	for i, x := range v {
		if n > 0 {
			out[i] = float32(x / n)
		}
	}
	return out
}
