package skills

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/metaclaw/metaclaw/app/learner/retrieval"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// Retrieval modes.
const (
	ModeKeyword   = "keyword"
	ModeEmbedding = "embedding"
	ModeHybrid    = "hybrid"
)

// UsesEmbeddings reports whether a retrieval mode ranks with embeddings.
func UsesEmbeddings(mode string) bool { return mode == ModeEmbedding || mode == ModeHybrid }

// Message is one message of a conversation, reduced to role and text.
type Message = retrieval.Message

// Options bound what Select injects.
type Options struct {
	Mode        string // keyword (template is a synonym), embedding, hybrid
	TopK        int    // most skills injected per turn, habits included: a ceiling, never a quota
	Candidates  int    // skills ranked before abstention (task_specific_top_k)
	GeneralTopK int    // most habits (general, common_mistakes) among them
	MaxTokens   int    // token budget for all injected skills
	// Evidence is what a skill must show to be injected (zero: Defaults).
	Evidence Evidence
	// NoEfficacy turns off the efficacy adjustment of the ranking.
	NoEfficacy bool
}

// OptionsFrom reads the options from the configuration.
func OptionsFrom(c config.Skills) Options {
	mode := c.RetrievalMode
	if mode == "template" {
		mode = ModeKeyword
	}
	return Options{Mode: mode, TopK: c.TopK, Candidates: max(c.TaskSpecificTopK, c.TopK), GeneralTopK: c.GeneralTopK,
		MaxTokens: c.MaxTokens}
}

// Selection is what Select chose for a turn, and why.
type Selection struct {
	Query  string // the request read out of the conversation (retrieval.Request.Text)
	Skills []store.Skill
	Text   string   // Markdown for the system prompt; "" when nothing fits
	IDs    []string // "skill:<name>@<version>"
	Tokens int      // estimated tokens of Text
	// Considered are the ranked candidates, injected or not, with the
	// evidence and the reason (explanations: skills search --explain, the
	// turn page).
	Considered []Candidate
	Terms      []string // the query's terms, as the person wrote them
	// Mode is how the skills were ranked: the configured mode, or keyword
	// when the request's embedding did not come in time.
	Mode string
	// Language is the request's language (retrieval.Request.Language):
	// the skills' asks in it were searched unless it is "en" or "".
	Language string
}

// Retriever selects skills for turns. It is safe for concurrent use.
type Retriever struct {
	db   *store.DB
	opts Options
	emb  Embedder // nil: keyword only
	lib  *libraryState
	// langs counts the requests in each language other than English,
	// whose asks the learner has written (store.LanguagesSeen).
	langs *languageTally

	noRecall bool // benchmarks of the search itself: never answer from recent
}

// Embedder turns texts into unit vectors (*retrieval.Embedder, which
// caches them in the store).
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

var _ Embedder = (*retrieval.Embedder)(nil)

// NewRetriever makes a retriever and starts loading the library in the
// background; emb may be nil, and then every mode falls back to keyword
// search.
func NewRetriever(db *store.DB, opts Options, emb Embedder) *Retriever {
	if opts.Evidence == (Evidence{}) {
		opts.Evidence = DefaultEvidence
	}
	if emb == nil {
		opts.Mode = ModeKeyword
	}
	r := &Retriever{db: db, opts: opts, emb: emb, langs: newLanguageTally(db)}
	r.lib = newLibraryState(db, emb != nil && opts.Mode != ModeKeyword, !opts.NoEfficacy, emb)
	r.lib.refresh()
	return r
}

// Close stops the retriever's background work and waits for it.
func (r *Retriever) Close() {
	r.lib.close()
	r.langs.close()
}

// Select picks the skills for a conversation's latest request (see
// retrieval.Read): the ranked candidates that show enough evidence of
// fitting it (see Evidence), at most TopK and GeneralTopK habits, within
// MaxTokens. A turn whose request fits no skill gets none.
//
// Through an agent's tool loop the request stays the same (its turns add
// assistant and tool messages), so the library remembers its latest
// selections by request: a repeated one is answered from memory until
// the skills change. The returned Selection may be shared with other
// callers; its slices must not be modified.
//
// Select never waits for the library to be rebuilt: it uses the current
// snapshot while a newer one is built. Only before the first snapshot
// exists does it wait, until ctx ends.
func (r *Retriever) Select(ctx context.Context, msgs []Message) (Selection, error) {
	req := retrieval.Read(msgs)
	sel := Selection{Query: req.Text()}
	if req.Empty() {
		return sel, nil
	}
	lib, err := r.lib.current(ctx)
	if err != nil {
		return sel, err
	}
	if got, ok := lib.recent.get(sel.Query); ok && !r.noRecall {
		return got, nil
	}
	q := req.Query(nil)
	sel.Language = req.Language()
	// Asks in other languages are for requests in one of them.
	q.Optional = sel.Language != "en" && sel.Language != ""
	cands, whole := r.rank(ctx, lib, req, q)
	if req.Closing() {
		for i := range cands {
			cands[i].Reason = "the request only thanks or closes the exchange"
		}
	}
	sel.Terms = queryWords(q)
	sel.Mode = r.opts.Mode
	if !whole {
		sel.Mode = ModeKeyword
	}
	r.fit(&sel, cands)
	if whole {
		lib.recent.put(sel.Query, sel)
	}
	return sel, nil
}

func queryWords(q retrieval.Query) []string {
	out := make([]string, len(q.Terms))
	for i, t := range q.Terms {
		out[i] = t.Word
	}
	return out
}

// fit injects the candidates that passed abstention, in rank order, while
// they fit TopK, GeneralTopK and the token budget, and records why each
// other candidate was left out.
func (r *Retriever) fit(sel *Selection, cands []Candidate) {
	var chosen []store.Skill
	habits := 0
	for i := range cands {
		c := &cands[i]
		if c.Reason != "" {
			continue
		}
		habit := IsHabit(c.Skill.Category)
		switch {
		case r.opts.TopK > 0 && len(chosen) >= r.opts.TopK:
			c.Reason = "top_k reached"
			continue
		case habit && habits >= r.opts.GeneralTopK:
			c.Reason = "general_top_k reached"
			continue
		}
		try := append(chosen[:len(chosen):len(chosen)], c.Skill)
		if r.opts.MaxTokens > 0 && retrieval.EstimateTokens(renderAll(try)) > r.opts.MaxTokens {
			c.Reason = "over the token budget"
			continue
		}
		chosen = try
		c.Injected = true
		if habit {
			habits++
		}
	}
	sel.Considered = cands
	sel.Skills = chosen
	if len(chosen) > 0 {
		sel.Text = renderAll(chosen)
		sel.Tokens = retrieval.EstimateTokens(sel.Text)
	}
	for _, s := range chosen {
		sel.IDs = append(sel.IDs, "skill:"+s.Name+"@"+strconv.Itoa(s.Version))
	}
}

const header = "# Skills\nMetaClaw picked these skills for the user's current request; follow them where they apply.\n"

func renderAll(ss []store.Skill) string {
	var b strings.Builder
	b.WriteString(header)
	for _, s := range ss {
		b.WriteString(Render(s))
	}
	return b.String()
}

// Render formats one skill for the system prompt.
func Render(s store.Skill) string {
	return "\n## " + s.Name + "\n_" + s.Description + "_\n\n" + strings.TrimSpace(s.Body) + "\n"
}

// EstimateTokens is a fast estimate: about four characters a token.
func EstimateTokens(s string) int { return retrieval.EstimateTokens(s) }

// recentSelections remembers the latest selections of a library by
// request, in two generations: when the current one is full it becomes
// the previous one, and a request found there moves back to the current
// one. It holds between maxRecent and twice as many, the most recently
// used.
type recentSelections struct {
	mu        sync.Mutex // guards cur and prev
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

// Refresh brings the library up to date with the store now and waits for
// it (the CLI; tests). Turns never call it: they use the current snapshot
// while the background refresh runs.
func (r *Retriever) Refresh(ctx context.Context) error { return r.lib.sync(ctx) }

// Mode is the retrieval mode the retriever was made with (keyword when it
// has no embedder).
func (r *Retriever) Mode() string { return r.opts.Mode }
