package memory

import (
	"context"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/retrieval"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// Retrieval modes (memory.retrieval_mode).
const (
	ModeKeyword   = "keyword"
	ModeEmbedding = "embedding"
	ModeHybrid    = "hybrid"
)

// Defaults of RetrieveOptions, calibrated on testdata/recall.json (see
// TestRecall).
const (
	DefaultMinRelevance = 0.45
	DefaultHalfLife     = 30 * 24 * time.Hour // episodes lose half their weight per month unused
	DefaultRecency      = 60 * 24 * time.Hour
	// bm25Half is the BM25 score that counts as relevance 0.5.
	bm25Half = 3.0
	// candidates is how many memories are ranked before the budget.
	candidates = 64
)

// RetrieveOptions bound and tune what Select injects.
type RetrieveOptions struct {
	Mode         string        // keyword, embedding, hybrid
	MaxUnits     int           // most memories injected per turn
	MaxTokens    int           // token budget of the injected text; 0 = none
	MinRelevance float64       // a memory less relevant than this (0..1) is not injected
	HalfLife     time.Duration // an unused episode's weight halves in this time
	Recency      time.Duration // time scale of the recency bonus
}

// RetrieveOptionsFrom reads the options from the configuration.
func RetrieveOptionsFrom(c config.Memory) RetrieveOptions {
	return RetrieveOptions{Mode: c.RetrievalMode, MaxUnits: c.MaxInjectedUnits, MaxTokens: c.MaxInjectedTokens}
}

func (o *RetrieveOptions) fill() {
	if o.Mode == "" {
		o.Mode = ModeKeyword
	}
	if o.MinRelevance == 0 {
		o.MinRelevance = DefaultMinRelevance
	}
	if o.HalfLife == 0 {
		o.HalfLife = DefaultHalfLife
	}
	if o.Recency == 0 {
		o.Recency = DefaultRecency
	}
}

// Embedder turns texts into unit vectors (*retrieval.Embedder, which
// caches them in the store).
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

var _ Embedder = (*retrieval.Embedder)(nil)

// Message is one message of a conversation, reduced to role and text.
type Message = retrieval.Message

// Scored is a memory with how it ranked.
type Scored struct {
	store.Memory
	Relevance float64 // 0..1: how well it matches the conversation
	Score     float64 // the ranking: relevance weighted by time, importance, recency and confidence

	matched uint64 // the query terms it matched
}

// Selection is what Select chose for a turn.
type Selection struct {
	Query    string
	Memories []Scored
	Text     string   // Markdown for the system prompt; "" when nothing fits
	IDs      []string // "memory:<id>"
	Tokens   int      // estimated tokens of Text
}

// Retriever selects memories for turns from per-scope in-memory indexes.
// It is safe for concurrent use.
type Retriever struct {
	db   *store.DB
	opts RetrieveOptions
	emb  Embedder // nil: keyword only
	now  func() time.Time
	log  *slog.Logger
	// checkEvery is how often a scope's revision is compared (tests: 0).
	checkEvery time.Duration
	// bg bounds the background work (index builds, embedding fills);
	// Close cancels it and waits for it (wg).
	bg     context.Context
	stopBG context.CancelFunc
	wg     sync.WaitGroup
	bgMu   sync.Mutex // guards closed, and wg.Add against Close's Wait
	closed bool

	mu     sync.Mutex // guards scopes
	scopes map[string]*scopeState
}

// NewRetriever makes a retriever; emb may be nil (keyword retrieval), now
// nil means time.Now.
func NewRetriever(db *store.DB, opts RetrieveOptions, emb Embedder, now func() time.Time, log *slog.Logger) *Retriever {
	opts.fill()
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := &Retriever{db: db, opts: opts, emb: emb, now: now, log: log, checkEvery: checkEvery, scopes: map[string]*scopeState{}}
	r.bg, r.stopBG = context.WithCancel(context.Background())
	return r
}

// Close stops the retriever's background work and waits for it; selects
// after Close answer from the indexes already built.
func (r *Retriever) Close() {
	r.bgMu.Lock()
	r.closed = true
	r.bgMu.Unlock()
	r.stopBG()
	r.wg.Wait()
}

// goBackground runs f on a goroutine that Close waits for. After Close, f
// still runs (its context is cancelled: it ends at once) but is not
// waited for.
func (r *Retriever) goBackground(f func()) {
	r.bgMu.Lock()
	defer r.bgMu.Unlock()
	if r.closed {
		go f()
		return
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		f()
	}()
}

// CleanQuery is the retrieval query of a conversation: what the person is
// asking now (retrieval.Read).
func CleanQuery(msgs []Message) string {
	return retrieval.Read(msgs).Text()
}

// Select picks the memories of scope for a conversation's latest user
// request: pinned ones first, then the best-ranked relevant ones, within
// the unit and token limits.
func (r *Retriever) Select(ctx context.Context, scope string, msgs []Message) (Selection, error) {
	sel := Selection{Query: CleanQuery(msgs)}
	if r.opts.MaxUnits <= 0 {
		return sel, nil
	}
	ix, err := r.index(ctx, scope)
	if err != nil {
		return sel, err
	}
	empty := ix.live() == 0
	if empty { // nothing to rank: no query embedding, no tokenizing
		return sel, nil
	}
	qv := r.queryVector(ctx, sel.Query)
	ix.mu.RLock()
	pinned := r.pinned(ix)
	ranked, wh := r.rank(ix, sel.Query, qv, candidates)
	ix.mu.RUnlock()
	// Entries are never changed once indexed (a change puts a new one):
	// fitting reads them without the lock.
	r.fit(&sel, ix.scope, pinned, ranked, wh.dates)
	return sel, nil
}

// Search ranks scope's current memories for a query (no budget, no pinned
// preference): what /v1/memory/search and `metaclaw memory search` show.
func (r *Retriever) Search(ctx context.Context, scope, query string, limit int) ([]Scored, error) {
	ix, err := r.index(ctx, scope)
	if err != nil {
		return nil, err
	}
	qv := r.queryVector(ctx, query)
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	ranked, _ := r.rank(ix, query, qv, max(limit, 1))
	out := make([]Scored, min(len(ranked), max(limit, 0)))
	for i := range out {
		out[i] = ranked[i].scored(ix.scope)
	}
	return out, nil
}

// weight is what a relevant memory is worth besides its relevance:
// importance (decayed for unused episodes), recency and confidence.
func (r *Retriever) weight(m store.Memory, now time.Time) float64 {
	imp := EffectiveImportance(m, now, r.opts.HalfLife)
	age := now.Sub(m.UpdatedAt)
	rec := math.Exp(-math.Max(0, age.Hours()) / r.opts.Recency.Hours())
	return (0.6 + 0.25*imp + 0.15*rec) * (0.8 + 0.2*m.Confidence)
}

// EffectiveImportance is a memory's importance, halved for an episode per
// halfLife since it was last stated or used.
func EffectiveImportance(m store.Memory, now time.Time, halfLife time.Duration) float64 {
	if m.Type != store.MemoryEpisode || m.Pinned || halfLife <= 0 {
		return m.Importance
	}
	last := m.UpdatedAt
	if m.LastUsedAt.After(last) {
		last = m.LastUsedAt
	}
	idle := now.Sub(last)
	if idle <= 0 {
		return m.Importance
	}
	return m.Importance * math.Pow(0.5, float64(idle)/float64(halfLife))
}

// EstimateTokens is a fast estimate: about four characters a token.
func EstimateTokens(s string) int { return (len(s) + 3) / 4 }
