// Package evolve is the skill evolver. After a session (or every N main
// turns) it shows an evolver model the session's low-scored turns — or the
// whole session when no turn has a judge score — together with the skills
// injected in them, and asks for at most five add / update / retire
// operations as strict JSON. The output is validated as a whole: one bad
// operation rejects it all and nothing changes. A proposed add that nearly
// duplicates an existing skill becomes an update of that skill. Valid
// operations are applied in one transaction that bumps the skill
// generation once and records the provenance (session, turns, reason) of
// every new version; rejected and empty runs are logged too. Everything
// sent to the model is redacted first.
//
// The learner service imports it; it imports store, the learner's llm and
// redact packages and its internal helpers.
package evolve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/internal/transcript"
	"github.com/metaclaw/metaclaw/app/learner/llm"
	"github.com/metaclaw/metaclaw/store"
)

// Run outcomes (Result.Status). The first three are also the status of
// the evolution log row.
const (
	StatusApplied  = "applied"
	StatusRejected = "rejected"
	StatusEmpty    = "empty"
	StatusSkipped  = "skipped" // nothing to show the model; no call, no log row
)

// Source marks skill versions written by the evolver.
const Source = "evolver"

// DefaultTimeout bounds one evolver call, retries included.
const DefaultTimeout = 5 * time.Minute

// Completer is what the evolver needs of a model client (*llm.Client).
type Completer interface {
	Complete(ctx context.Context, system, user string, opts llm.Options) (string, error)
}

var _ Completer = (*llm.Client)(nil)

// Options configure an Evolver.
type Options struct {
	DB      *store.DB
	Client  Completer
	Logger  *slog.Logger  // nil discards
	Timeout time.Duration // 0 = DefaultTimeout
	// Digests caches what is read of the turns' requests, shared with
	// memory extraction (nil: the evolver's own).
	Digests *transcript.Digests
}

// Evolver evolves the skill library. Runs should not overlap: the learner
// runs one at a time.
type Evolver struct {
	db      *store.DB
	client  Completer
	log     *slog.Logger
	timeout time.Duration
	// digests keeps each read turn's instruction: evolution runs every
	// few turns and reads the latest MaxReadTurns, so most of them were
	// read, with their whole requests, the time before (or by memory
	// extraction, sharing the cache).
	digests *transcript.Digests
}

// New returns an evolver.
func New(opts Options) *Evolver {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Digests == nil {
		opts.Digests = &transcript.Digests{}
	}
	return &Evolver{db: opts.DB, client: opts.Client, log: opts.Logger, timeout: opts.Timeout, digests: opts.Digests}
}

// Result says what one run did.
type Result struct {
	SessionID  string
	Status     string  // StatusApplied, StatusRejected, StatusEmpty or StatusSkipped
	Ops        []Op    // with StatusApplied: the operations applied
	Reason     string  // with StatusRejected, StatusSkipped or StatusEmpty: why
	Generation int     // the skill generation after the run
	TurnIDs    []int64 // the turns shown to the model
	// Excerpt is the start of the model's answer (StatusRejected).
	Excerpt string
	// Changed are the operations that changed a skill (StatusApplied);
	// an output whose operations change nothing is StatusEmpty.
	Changed []store.SkillChange
}

// Evolve runs the evolver on a session. A rejected or empty output is a
// Result, not an error; errors are failures to read the session, reach the
// model or write the database.
func (e *Evolver) Evolve(ctx context.Context, sessionID string) (Result, error) {
	res := Result{SessionID: sessionID}
	m, err := e.gather(ctx, sessionID)
	if err != nil {
		return res, fmt.Errorf("evolve session %s: %w", sessionID, err)
	}
	res.TurnIDs = m.turnIDs()
	if len(m.turns) == 0 {
		return e.skip(ctx, res, m)
	}
	callCtx, cancel := context.WithTimeout(ctx, e.timeout)
	answer, err := e.client.Complete(callCtx, systemPrompt, m.prompt(), llm.Options{Temperature: 0.3, MaxTokens: 4096, JSON: true})
	cancel()
	if err != nil {
		return res, fmt.Errorf("evolve session %s: %w", sessionID, err)
	}
	ops, raw, err := parseOutput(answer)
	if err == nil && len(ops) > 0 {
		ops, err = e.plan(ctx, ops, m)
	}
	var rej *rejection
	switch {
	case errors.As(err, &rej):
		return e.rejected(ctx, res, raw, rej.why, answer)
	case err != nil:
		return res, fmt.Errorf("evolve session %s: %w", sessionID, err)
	case len(ops) == 0:
		return e.empty(ctx, res)
	}
	return e.apply(ctx, res, ops, m)
}

func (e *Evolver) skip(ctx context.Context, res Result, m *material) (Result, error) {
	res.Status, res.Reason = StatusSkipped, "no main turn with a response"
	if m.byScore {
		res.Reason = "no turn scored 0 or -1"
	}
	gen, err := e.db.SkillGeneration(ctx)
	res.Generation = gen
	e.log.Debug("skill evolution skipped", "session", res.SessionID, "reason", res.Reason)
	return res, err
}

// plan checks the operations against the library and the session, and
// turns near-duplicate adds into updates. A broken rule is a *rejection.
func (e *Evolver) plan(ctx context.Context, ops []Op, m *material) ([]Op, error) {
	if err := checkTurns(ops, m.allTurns); err != nil {
		return nil, err
	}
	all, err := e.db.Skills(ctx, true)
	if err != nil {
		return nil, err
	}
	library := make(map[string]store.Skill, len(all))
	for _, s := range all {
		library[s.Name] = s
	}
	touched := map[string]bool{}
	for i := range ops {
		if err := e.resolve(ctx, &ops[i], library); err != nil {
			return nil, err
		}
		if touched[ops[i].Name] {
			return nil, reject("more than one operation on skill %q", ops[i].Name)
		}
		touched[ops[i].Name] = true
	}
	return ops, checkAddsApart(ops)
}

// resolve checks one operation against the library; an add that nearly
// duplicates a skill becomes an update of it, and an update keeps the
// category and tags it does not give.
func (e *Evolver) resolve(ctx context.Context, op *Op, library map[string]store.Skill) error {
	if op.Op == OpAdd {
		dup, ok, err := e.findDuplicate(ctx, *op, library)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		op.Op, op.MergedFrom, op.Name = OpUpdate, op.Name, dup.Name
		op.Tags = mergeTags(op.Tags, dup.Tags)
	}
	cur, ok := library[op.Name]
	if !ok {
		return reject("%s of unknown skill %q", op.Op, op.Name)
	}
	if op.Op == OpUpdate {
		if op.Category == "" {
			op.Category = cur.Category
		}
		if len(op.Tags) == 0 {
			op.Tags = cur.Tags
		}
	}
	return nil
}

// checkAddsApart rejects two adds of the same output that duplicate each
// other.
func checkAddsApart(ops []Op) error {
	for i := range ops {
		for j := i + 1; j < len(ops); j++ {
			a, b := ops[i], ops[j]
			if a.Op != OpAdd || b.Op != OpAdd {
				continue
			}
			if normName(a.Name) == normName(b.Name) ||
				jaccard(wordSet(a.Description+" "+a.Body), wordSet(b.Description+" "+b.Body)) >= NearDuplicate {
				return reject("adds %q and %q duplicate each other", a.Name, b.Name)
			}
		}
	}
	return nil
}

// mergeTags puts the proposal's tags first, then the existing skill's,
// without repeats, at most MaxTags.
func mergeTags(proposed, existing []string) []string {
	var out []string
	for _, t := range append(append([]string(nil), proposed...), existing...) {
		if len(out) == MaxTags {
			break
		}
		if t != "" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// apply writes the operations in one transaction.
func (e *Evolver) apply(ctx context.Context, res Result, ops []Op, m *material) (Result, error) {
	changes := make([]store.SkillChange, len(ops))
	for i, op := range ops {
		turns := op.Turns
		if len(turns) == 0 {
			turns = res.TurnIDs
		}
		note := op.Reason
		if op.MergedFrom != "" {
			note = fmt.Sprintf("merged proposed skill %q (near-duplicate): %s", op.MergedFrom, op.Reason)
		}
		if op.CategoryNote != "" {
			note += " (" + op.CategoryNote + ")"
		}
		changes[i] = store.SkillChange{Op: op.Op, Input: store.SkillInput{Name: op.Name, Description: op.Description,
			Category: op.Category, Tags: op.Tags, Body: op.Body, Source: Source, SessionID: m.sessionID, Note: note, TurnIDs: turns}}
	}
	opsJSON, _ := json.Marshal(ops)
	out, err := e.db.ApplyEvolution(ctx, changes, store.Evolution{SessionID: m.sessionID, Ops: string(opsJSON)})
	if err != nil {
		return res, fmt.Errorf("evolve session %s: apply: %w", m.sessionID, err)
	}
	res.Generation = out.Generation
	if len(out.Changed) == 0 {
		res.Status, res.Reason = StatusEmpty, "the proposed operations change nothing"
		e.log.Info("skill evolution changed nothing; generation kept", "session", m.sessionID,
			"generation", out.Generation, "operations", summary(ops))
		return res, nil
	}
	res.Status, res.Ops, res.Changed = StatusApplied, ops, out.Changed
	e.log.Info("skills evolved", "session", m.sessionID, "generation", out.Generation, "operations", summary(ops),
		"changed", len(out.Changed))
	return res, nil
}

// rejected logs a rejected output; nothing else changes.
func (e *Evolver) rejected(ctx context.Context, res Result, rawOps, why, answer string) (Result, error) {
	if rawOps == "" {
		rawOps = "[]"
		why += "; output began: " + clean(answer, 200)
	}
	gen, err := e.db.SkillGeneration(ctx)
	if err != nil {
		return res, err
	}
	res.Status, res.Reason, res.Generation, res.Excerpt = StatusRejected, why, gen, clean(answer, 300)
	evo := store.Evolution{Generation: gen, SessionID: res.SessionID, Status: StatusRejected, Ops: rawOps, Error: why}
	if err := e.db.LogEvolution(ctx, evo); err != nil {
		return res, fmt.Errorf("evolve session %s: %w", res.SessionID, err)
	}
	e.log.Warn("skill evolution rejected", "session", res.SessionID, "reason", why)
	return res, nil
}

// empty logs a run in which the model proposed nothing.
func (e *Evolver) empty(ctx context.Context, res Result) (Result, error) {
	gen, err := e.db.SkillGeneration(ctx)
	if err != nil {
		return res, err
	}
	res.Status, res.Generation = StatusEmpty, gen
	if err := e.db.LogEvolution(ctx, store.Evolution{Generation: gen, SessionID: res.SessionID, Status: StatusEmpty}); err != nil {
		return res, fmt.Errorf("evolve session %s: %w", res.SessionID, err)
	}
	e.log.Info("skill evolution proposed nothing", "session", res.SessionID)
	return res, nil
}

func summary(ops []Op) []string {
	out := make([]string, len(ops))
	for i, op := range ops {
		out[i] = op.Op + " " + op.Name
		if op.MergedFrom != "" {
			out[i] += " (from add " + op.MergedFrom + ")"
		}
	}
	return out
}
