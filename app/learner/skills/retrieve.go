package skills

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// Retrieval modes.
const (
	ModeKeyword   = "keyword"
	ModeEmbedding = "embedding"
	ModeHybrid    = "hybrid"
)

// Options bound what Select injects.
type Options struct {
	Mode        string  // keyword (template is a synonym), embedding, hybrid
	TopK        int     // most task-specific skills injected
	Candidates  int     // skills considered before the budget (task_specific_top_k)
	GeneralTopK int     // most general-habit skills injected
	MaxTokens   int     // token budget for all injected skills
	MinBM25     float64 // a keyword hit below this relevance is ignored
	MinCosine   float64 // an embedding hit below this similarity is ignored
}

// OptionsFrom reads the options from the configuration.
func OptionsFrom(c config.Skills) Options {
	mode := c.RetrievalMode
	if mode == "template" {
		mode = ModeKeyword
	}
	return Options{Mode: mode, TopK: c.TopK, Candidates: max(c.TaskSpecificTopK, c.TopK), GeneralTopK: c.GeneralTopK,
		MaxTokens: c.MaxTokens, MinBM25: DefaultMinBM25, MinCosine: DefaultMinCosine}
}

// Relevance floors, calibrated on testdata/queries.json (see the tests):
// below them a hit is noise, so a turn that needs no skill gets none.
const (
	DefaultMinBM25   = 4.0
	DefaultMinCosine = 0.35
)

// Selection is what Select chose for a turn.
type Selection struct {
	Query  string
	Skills []store.Skill
	Text   string   // Markdown for the system prompt; "" when nothing fits
	IDs    []string // "skill:<name>@<version>"
	Tokens int      // estimated tokens of Text
}

// Retriever selects skills for turns. It is safe for concurrent use.
type Retriever struct {
	db   *store.DB
	opts Options
	emb  *Embedder // nil: keyword only

	mu      sync.Mutex // guards lib and checked
	lib     *library
	checked time.Time

	noRecall bool // benchmarks of the search itself: never answer from recent
}

// NewRetriever makes a retriever; emb may be nil, and then every mode
// falls back to keyword search.
func NewRetriever(db *store.DB, opts Options, emb *Embedder) *Retriever {
	return &Retriever{db: db, opts: opts, emb: emb}
}

// Select picks the skills for a conversation's latest user request.
//
// The query is the latest user messages, which stay the same through an
// agent's tool loop (its turns add assistant and tool messages), so the
// library remembers its latest selections by query: a repeated query is
// answered from memory until the skills change. The returned Selection
// may be shared with other callers; its slices must not be modified.
func (r *Retriever) Select(ctx context.Context, msgs []Message) (Selection, error) {
	sel := Selection{Query: CleanQuery(msgs)}
	if sel.Query == "" {
		return sel, nil
	}
	lib, err := r.library(ctx)
	if err != nil {
		return sel, err
	}
	if got, ok := lib.recent.get(sel.Query); ok && !r.noRecall {
		return got, nil
	}
	cands, whole, err := r.candidates(ctx, lib, sel.Query)
	if err != nil {
		return sel, err
	}
	r.fit(&sel, cands)
	if whole {
		lib.recent.put(sel.Query, sel)
	}
	return sel, nil
}

// recentSelections remembers the latest selections of a library by query,
// in two generations: when the current one is full it becomes the previous
// one, and a query found there moves back to the current one. It holds
// between maxRecent and twice as many, the most recently used.
type recentSelections struct {
	mu        sync.Mutex
	cur, prev map[string]Selection
}

// maxRecent is the size of a generation: a few selections for each agent
// session running at once.
const maxRecent = 64

func (rs *recentSelections) get(q string) (Selection, bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if s, ok := rs.cur[q]; ok {
		return s, true
	}
	s, ok := rs.prev[q]
	if ok {
		rs.add(q, s)
	}
	return s, ok
}

func (rs *recentSelections) put(q string, s Selection) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.add(q, s)
}

// add puts s in the current generation; rs.mu held.
func (rs *recentSelections) add(q string, s Selection) {
	if len(rs.cur) >= maxRecent {
		rs.prev, rs.cur = rs.cur, nil
	}
	if rs.cur == nil {
		rs.cur = make(map[string]Selection, maxRecent)
	}
	rs.cur[q] = s
}

type candidate struct {
	skill store.Skill
	score float64
}

// candidates ranks lib's skills for q; whole is false when hybrid search
// fell back to keywords alone (the embeddings failed), a result not worth
// remembering.
func (r *Retriever) candidates(ctx context.Context, lib *library, q string) (cands []candidate, whole bool, err error) {
	mode := r.opts.Mode
	if r.emb == nil {
		mode = ModeKeyword
	}
	var kw, em []candidate
	if mode != ModeEmbedding {
		kw = r.keyword(lib, q)
	}
	if mode != ModeKeyword {
		if em, err = r.embedding(ctx, lib, q); err != nil {
			if mode == ModeEmbedding {
				return nil, false, err
			}
			return kw, false, nil // hybrid degrades to keyword when embeddings fail
		}
	}
	switch mode {
	case ModeKeyword:
		return kw, true, nil
	case ModeEmbedding:
		return em, true, nil
	}
	return fuse(kw, em), true, nil
}

func (r *Retriever) keyword(lib *library, q string) []candidate {
	var out []candidate
	for _, c := range lib.bm25.search(q, r.opts.Candidates+r.opts.GeneralTopK) {
		if c.score >= r.opts.MinBM25 {
			out = append(out, c)
		}
	}
	return out
}

// fuse merges two rankings by reciprocal rank (k = 60).
func fuse(a, b []candidate) []candidate {
	scores := map[string]float64{}
	skills := map[string]store.Skill{}
	for _, list := range [][]candidate{a, b} {
		for rank, c := range list {
			scores[c.skill.Name] += 1 / (60 + float64(rank+1))
			skills[c.skill.Name] = c.skill
		}
	}
	out := make([]candidate, 0, len(scores))
	for name, s := range scores {
		out = append(out, candidate{skill: skills[name], score: s})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].skill.Name < out[j].skill.Name
	})
	return out
}

// fit takes candidates in order while they fit the limits and the budget.
func (r *Retriever) fit(sel *Selection, cands []candidate) {
	var b strings.Builder
	task, general := 0, 0
	for _, c := range cands {
		isGeneral := c.skill.Category == "general"
		if isGeneral && general >= r.opts.GeneralTopK || !isGeneral && task >= r.opts.TopK {
			continue
		}
		block := Render(c.skill)
		tokens := EstimateTokens(block)
		if r.opts.MaxTokens > 0 && sel.Tokens+tokens > r.opts.MaxTokens {
			continue
		}
		if isGeneral {
			general++
		} else {
			task++
		}
		if b.Len() == 0 {
			b.WriteString(header)
		}
		b.WriteString(block)
		sel.Tokens += tokens
		sel.Skills = append(sel.Skills, c.skill)
		sel.IDs = append(sel.IDs, "skill:"+c.skill.Name+"@"+strconv.Itoa(c.skill.Version))
	}
	if b.Len() > 0 {
		sel.Text = b.String()
		sel.Tokens += EstimateTokens(header)
	}
}

const header = "# Skills\nMetaClaw picked these skills for the user's current request; follow them where they apply.\n"

// Render formats one skill for the system prompt.
func Render(s store.Skill) string {
	return "\n## " + s.Name + "\n_" + s.Description + "_\n\n" + strings.TrimSpace(s.Body) + "\n"
}

// EstimateTokens is a fast estimate: about four characters a token.
func EstimateTokens(s string) int { return (len(s) + 3) / 4 }
