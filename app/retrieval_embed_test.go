package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/metaclaw/metaclaw/app/learner/retrieval"
	"github.com/metaclaw/metaclaw/app/learner/skills"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// TestRetrievalEmbeddingEndpoint measures the embedding and hybrid modes
// as shipped (default options and evidence, nothing tuned) against a real
// OpenAI-compatible embeddings endpoint, beside keyword mode:
//
//	METACLAW_EMBED_URL=http://127.0.0.1:8377/v1 METACLAW_EMBED_MODEL=use \
//	  go test ./app -run TestRetrievalEmbeddingEndpoint -v
//
// The sets are dev and dev2, or the one METACLAW_EVAL_SET names. The
// requests are embedded within the turn's budget (150 ms), as on a real
// turn; the turns that fell back to keywords are counted. docs/retrieval.md
// quotes the figures (round 4: the Universal Sentence Encoder served by
// app/learner/retrieval/localvec/use/server.mjs).
func TestRetrievalEmbeddingEndpoint(t *testing.T) {
	base, model := embedEndpoint(t)
	dirs := []string{filepath.Join("learner", "evalsets", "dev"), filepath.Join("learner", "evalsets", "dev2")}
	if d := os.Getenv("METACLAW_EVAL_SET"); d != "" {
		if !filepath.IsAbs(d) {
			d = filepath.Join("..", d)
		}
		dirs = []string{d}
	}
	for _, dir := range dirs {
		set := loadSet(t, dir)
		for _, mode := range []string{skills.ModeKeyword, skills.ModeEmbedding, skills.ModeHybrid} {
			opts := skills.OptionsFrom(config.Defaults().Skills)
			opts.Mode = mode
			if mode == skills.ModeKeyword {
				t.Logf("%s, keyword mode\n%s", filepath.Base(dir), evalSkillsWith(t, set, opts, nil))
				continue
			}
			var ce *countingEmbedder
			rep := evalSkillsWith(t, set, opts, func(db *store.DB) skills.Embedder {
				ce = &countingEmbedder{inner: retrieval.NewEmbedder(db, base, "", model)}
				return ce
			})
			t.Logf("%s, %s mode, %s\n%s", filepath.Base(dir), mode, ce, rep)
		}
		if len(set.Questions) == 0 {
			continue
		}
		for _, mode := range []string{"keyword", "embedding", "hybrid"} {
			rep := evalMemoryWith(t, set, map[string]string{"memory.retrieval_mode": mode,
				"skills.embedding_api_base": base, "skills.embedding_model": model})
			t.Logf("%s, memory %s mode\n%s", filepath.Base(dir), mode, rep)
		}
	}
}

// TestRetrievalEmbeddingRanking is TestRetrievalWordVectors's study (the
// ranking without abstention, two fusions, and the abstention search with
// the cosine as evidence) with the vectors of an embeddings endpoint: a
// skill's text as the product embeds it (skills.EmbedText), a request's
// as the turn's path does (retrieval.Request.Text). dev and dev2 only:
//
//	METACLAW_EMBED_URL=http://127.0.0.1:8377/v1 METACLAW_EMBED_MODEL=use \
//	  go test ./app -run TestRetrievalEmbeddingRanking -v
func TestRetrievalEmbeddingRanking(t *testing.T) {
	base, model := embedEndpoint(t)
	ctx := context.Background()
	embed := func(e *retrieval.Embedder, text string) []float32 {
		vs, err := e.Embed(ctx, []string{text})
		if err != nil || len(vs) != 1 {
			t.Fatalf("embed %q: %v", text, err)
		}
		return vs[0]
	}
	reportVectors(t, func(db *store.DB) vecSource {
		e := retrieval.NewEmbedder(db, base, "", model)
		return vecSource{skill: func(s store.Skill) []float32 { return embed(e, skills.EmbedText(s)) },
			query: func(req retrieval.Request, _ retrieval.Query) []float32 { return embed(e, req.Text()) }}
	})
}

// embedEndpoint is the embeddings endpoint METACLAW_EMBED_URL and
// METACLAW_EMBED_MODEL name; the test is skipped without one.
func embedEndpoint(t *testing.T) (base, model string) {
	base = os.Getenv("METACLAW_EMBED_URL")
	if base == "" {
		t.Skip("set METACLAW_EMBED_URL to an OpenAI-compatible /v1 base (and METACLAW_EMBED_MODEL) to measure with its vectors")
	}
	model = os.Getenv("METACLAW_EMBED_MODEL")
	if model == "" {
		model = config.Defaults().Skills.EmbeddingModel
	}
	return base, model
}

// countingEmbedder wraps the product's embeddings client and counts the
// single-text calls (the turns' requests; the library's come in batches)
// and those that failed or ran out of the turn's time.
type countingEmbedder struct {
	inner            *retrieval.Embedder
	requests, failed atomic.Int64
}

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	vs, err := c.inner.Embed(ctx, texts)
	if len(texts) == 1 {
		c.requests.Add(1)
		if err != nil {
			c.failed.Add(1)
		}
	}
	return vs, err
}

func (c *countingEmbedder) String() string {
	return fmt.Sprintf("%d requests embedded, %d fell back to keywords", c.requests.Load(), c.failed.Load())
}
