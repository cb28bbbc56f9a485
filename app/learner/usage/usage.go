// Package usage meters the learner and watches its health. Every model call
// the learner makes (judge, evolver, memory extraction) goes through a
// Meter: it counts calls, failed calls and tokens per local day and
// component in the store, and once learning.max_calls_per_day calls were
// made today it refuses further calls (ErrBudget) until midnight — learning
// pauses itself and says so. Components also report the outcome of each
// piece of work (a turn judged, an evolution, an extraction, a training
// step); one that fails AttentionAfter times in a row puts MetaClaw in
// "needs attention" with its error and an excerpt of what the model
// answered, until it works again. The health is kept in the meta table so
// that `metaclaw status` can read it from another process.
//
// The learner's packages and app import it; it imports store and the
// learner's llm package.
package usage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/llm"
	"github.com/metaclaw/metaclaw/store"
)

// Components of the learner.
const (
	Judge      = "judge"
	Evolver    = "evolver"
	Extraction = "extraction"
	Embeddings = "embeddings"
	Trainer    = "trainer"
)

// AttentionAfter is how many failures in a row put a component in "needs
// attention".
const AttentionAfter = 3

// MetaHealth is the meta key of the components' health (JSON, Health by
// component).
const MetaHealth = "learner_health"

// maxExcerpt bounds an excerpt of a model's answer, in bytes.
const maxExcerpt = 300

// ErrBudget is returned by Allow (and a metered Completer) once today's
// calls reached learning.max_calls_per_day.
var ErrBudget = errors.New("learning.max_calls_per_day reached")

// Health is a component's recent outcomes.
type Health struct {
	Component string    `json:"component"`
	Failures  int       `json:"failures"` // in a row; 0 once it works
	Error     string    `json:"error,omitempty"`
	Excerpt   string    `json:"excerpt,omitempty"` // what the model answered, when known
	Since     time.Time `json:"since,omitzero"`    // first failure of the run
	At        time.Time `json:"at,omitzero"`       // last failure
}

// NeedsAttention reports whether the component failed AttentionAfter times
// in a row.
func (h Health) NeedsAttention() bool { return h.Failures >= AttentionAfter }

// Sentence says what is wrong in words, for status lines.
func (h Health) Sentence() string {
	s := fmt.Sprintf("the %s failed %d times in a row: %s", h.Component, h.Failures, h.Error)
	if h.Excerpt != "" {
		s += fmt.Sprintf(" (the model answered %q)", h.Excerpt)
	}
	return s
}

// AnswerError is a model's answer the learner could not use: Err says
// why, Excerpt is the start of what the model said (shown to the person
// when the component keeps failing).
type AnswerError struct {
	Err     error
	Excerpt string
}

// NewAnswerError keeps the start of answer (at most 300 bytes, on one
// line) with why it could not be used.
func NewAnswerError(err error, answer string) *AnswerError {
	return &AnswerError{Err: err, Excerpt: cut(strings.Join(strings.Fields(answer), " "), maxExcerpt)}
}

func (e *AnswerError) Error() string {
	return fmt.Sprintf("%v (the answer began %q)", e.Err, e.Excerpt)
}

func (e *AnswerError) Unwrap() error { return e.Err }

// Options configure a Meter.
type Options struct {
	DB     *store.DB
	Logger *slog.Logger     // nil discards
	Now    func() time.Time // nil = time.Now
	// MaxCallsPerDay is learning.max_calls_per_day (0: no limit).
	MaxCallsPerDay int
}

// Meter counts the learner's calls and outcomes. It is safe for concurrent
// use; a nil *Meter meters nothing and allows everything.
type Meter struct {
	db  *store.DB
	log *slog.Logger
	now func() time.Time

	mu         sync.Mutex // guards the fields below
	limit      int
	day        string // the day calls counts
	calls      int    // calls counted against the limit today
	loaded     bool   // calls was read from the store for day
	budgetSaid string // the day the budget was last announced in the log
	health     map[string]*Health
}

// New returns a meter, reading the components' health the last run left.
func New(opts Options) *Meter {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	m := &Meter{db: opts.DB, log: opts.Logger, now: opts.Now, limit: opts.MaxCallsPerDay, health: map[string]*Health{}}
	if hs, err := ReadHealth(context.Background(), opts.DB); err == nil {
		for _, h := range hs {
			m.health[h.Component] = &h
		}
	}
	return m
}

// SetLimit changes learning.max_calls_per_day (0: no limit).
func (m *Meter) SetLimit(n int) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.limit = n
	m.mu.Unlock()
}

// Day returns the local date of t as the store keys spend by.
func Day(t time.Time) string { return t.Format(time.DateOnly) }

// Allow reports whether a call may be made now: nil, or an error wrapping
// ErrBudget once today's calls reached the limit. A nil answer counts the
// call against today's limit at once, so calls made at the same time cannot
// all pass the check before any is counted; Record then adds its spend.
func (m *Meter) Allow(ctx context.Context) error {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rollLocked(ctx)
	if m.limit <= 0 || m.calls < m.limit {
		m.calls++
		return nil
	}
	if m.budgetSaid != m.day {
		m.budgetSaid = m.day
		m.log.Warn("learning paused for the rest of the day: learning.max_calls_per_day reached", "calls", m.calls, "limit", m.limit)
	}
	return fmt.Errorf("%w (%d calls today); learning resumes tomorrow", ErrBudget, m.limit)
}

// rollLocked starts a new day's count when the date changed, reading what
// the store already holds for it (another run of today).
func (m *Meter) rollLocked(ctx context.Context) {
	day := Day(m.now())
	if day == m.day && m.loaded {
		return
	}
	m.day, m.calls, m.loaded = day, 0, true
	if m.db == nil {
		return
	}
	rows, err := m.db.SpendSince(ctx, day)
	if err != nil {
		m.log.Warn("read today's learning spend", "err", err)
		return
	}
	for _, r := range rows {
		if r.Day == day && r.Component != Trainer {
			m.calls += r.Calls
		}
	}
}

// Budget is the daily limit and what is used of it.
type Budget struct {
	Limit   int  `json:"limit"` // 0: no limit
	Used    int  `json:"used"`
	Reached bool `json:"reached"`
}

// Budget returns today's use of learning.max_calls_per_day.
func (m *Meter) Budget() Budget {
	if m == nil {
		return Budget{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rollLocked(context.Background())
	return Budget{Limit: m.limit, Used: m.calls, Reached: m.limit > 0 && m.calls >= m.limit}
}

// Call is one model call's cost.
type Call struct {
	Usage  llm.Usage
	Failed bool
}

// Record adds a call, which Allow let through, to today's spend of
// component (Allow already counted it against the limit). Calls of the
// trainer are recorded but do not use the budget.
func (m *Meter) Record(ctx context.Context, component string, c Call) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.rollLocked(ctx)
	day := m.day
	m.mu.Unlock()
	if m.db == nil {
		return
	}
	s := store.Spend{Day: day, Component: component, Calls: 1, PromptTokens: c.Usage.PromptTokens,
		CompletionTokens: c.Usage.CompletionTokens}
	if c.Failed {
		s.Failures = 1
	}
	if err := m.db.AddSpend(context.WithoutCancel(ctx), s); err != nil {
		m.log.Warn("record learning spend", "err", err)
	}
}

// Outcome records how a component's piece of work went: nil resets its
// failures, an error counts one more (ErrBudget and a cancelled context
// count nothing). It logs when the component starts or stops needing
// attention.
func (m *Meter) Outcome(component string, err error) {
	if m == nil || errors.Is(err, ErrBudget) || errors.Is(err, context.Canceled) {
		return
	}
	m.mu.Lock()
	h := m.health[component]
	if h == nil {
		h = &Health{Component: component}
		m.health[component] = h
	}
	was := h.NeedsAttention()
	changed := false
	if err == nil {
		changed = h.Failures > 0
		*h = Health{Component: component}
	} else {
		now := m.now()
		if h.Failures == 0 {
			h.Since = now
		}
		h.Failures++
		h.At, h.Error, h.Excerpt = now, cut(err.Error(), 500), excerptOf(err)
		changed = true
	}
	snapshot := *h
	all := m.snapshotLocked()
	m.mu.Unlock()
	switch {
	case !was && snapshot.NeedsAttention():
		m.log.Error("learning needs attention: "+snapshot.Sentence(), "component", component)
	case was && !snapshot.NeedsAttention():
		m.log.Info("learning works again", "component", component)
	}
	if changed {
		m.save(all)
	}
}

func excerptOf(err error) string {
	var ae *AnswerError
	if errors.As(err, &ae) {
		return ae.Excerpt
	}
	return ""
}

func (m *Meter) snapshotLocked() []Health {
	out := make([]Health, 0, len(m.health))
	for _, c := range []string{Judge, Evolver, Extraction, Embeddings, Trainer} {
		if h := m.health[c]; h != nil && h.Failures > 0 {
			out = append(out, *h)
		}
	}
	return out
}

func (m *Meter) save(hs []Health) {
	if m.db == nil {
		return
	}
	b, _ := json.Marshal(hs)
	if err := m.db.SetMeta(context.Background(), MetaHealth, string(b)); err != nil {
		m.log.Warn("record learner health", "err", err)
	}
}

// Health returns the components that failed lately (at least once in a
// row), in a fixed order.
func (m *Meter) Health() []Health {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.snapshotLocked()
}

// Attention returns the components that need attention.
func (m *Meter) Attention() []Health { return NeedingAttention(m.Health()) }

// NeedingAttention keeps the components of hs that need attention.
func NeedingAttention(hs []Health) []Health {
	var out []Health
	for _, h := range hs {
		if h.NeedsAttention() {
			out = append(out, h)
		}
	}
	return out
}

// ReadHealth reads the health a running MetaClaw recorded (for the CLI).
func ReadHealth(ctx context.Context, db *store.DB) ([]Health, error) {
	if db == nil {
		return nil, nil
	}
	v, err := db.Meta(ctx, MetaHealth)
	if err != nil || v == "" {
		return nil, err
	}
	var hs []Health
	if err := json.Unmarshal([]byte(v), &hs); err != nil {
		return nil, fmt.Errorf("read learner health: %w", err)
	}
	return hs, nil
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
