package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/metaclaw/metaclaw/app/learner/internal/transcript"
	"github.com/metaclaw/metaclaw/store"
)

// Report says what an extraction did.
type Report struct {
	Extractor  string  // SourceModel, SourceRules, or "" when the user said nothing
	Turns      int     // exchanges read
	Added      []int64 // new memories, those that supersede others included
	Reinforced []int64
	Superseded []int64 // memories that stopped being current
	Queued     bool    // the turns wait for a model pass
}

func (r *Report) record(changes []store.MemoryChange) {
	for _, ch := range changes {
		switch ch.Kind {
		case store.MemoryAdd, store.MemorySupersede:
			r.Added = append(r.Added, ch.Memory.ID)
			r.Superseded = append(r.Superseded, ch.Ended...)
		case store.MemoryReinforce:
			r.Reinforced = append(r.Reinforced, ch.Memory.ID)
		}
	}
}

// ExtractSession extracts the main turns of a session that extraction has
// not seen yet, into the session's scope, and records the progress.
func (s *Service) ExtractSession(ctx context.Context, sessionID string) (Report, error) {
	s.extractMu.Lock()
	defer s.extractMu.Unlock()
	s.freshMu.Lock()
	delete(s.fresh, sessionID)
	s.freshMu.Unlock()
	var total Report
	sess, err := s.db.Session(ctx, sessionID)
	if err != nil {
		return total, err
	}
	for {
		through, err := s.db.MemoryProgress(ctx, sessionID)
		if err != nil {
			return total, err
		}
		turns, err := s.db.MainTurnsAfterBrief(ctx, sessionID, through, maxTurnsPerPass)
		if err != nil || len(turns) == 0 {
			return total, err
		}
		earlier, err := s.contextBefore(ctx, sessionID, through)
		if err != nil {
			return total, err
		}
		exs, err := s.exchanges(ctx, turns)
		if err != nil {
			return total, err
		}
		rep, err := s.ingest(ctx, sess.Scope, sessionID, earlier, exs)
		if err != nil {
			return total, err
		}
		total.merge(rep)
		if err := s.db.SetMemoryProgress(ctx, sessionID, turns[len(turns)-1].TurnNum, s.now()); err != nil {
			return total, err
		}
		if len(turns) < maxTurnsPerPass {
			return total, nil
		}
	}
}

func (r *Report) merge(o Report) {
	if o.Extractor != "" && r.Extractor != SourceRules {
		r.Extractor = o.Extractor
	}
	r.Turns += o.Turns
	r.Added = append(r.Added, o.Added...)
	r.Reinforced = append(r.Reinforced, o.Reinforced...)
	r.Superseded = append(r.Superseded, o.Superseded...)
	r.Queued = r.Queued || o.Queued
}

// exchangesOf reads turns as exchanges. A turn that repeats the previous
// one's words (a retry, a tool loop resending its request) replaces it:
// the same words are extracted once, with the latest answer.
func exchangesOf(turns []store.Turn, digests []transcript.Digest) []Exchange {
	out := make([]Exchange, 0, len(turns))
	for i, t := range turns {
		ex := exchangeFrom(t, digests[i])
		if n := len(out); n > 0 && ex.User != "" && ex.User == out[n-1].User {
			out[n-1] = ex
			continue
		}
		out = append(out, ex)
	}
	return out
}

// contextBefore returns the last two main turns up to turn number through,
// as context for the model.
func (s *Service) contextBefore(ctx context.Context, sessionID string, through int) ([]Exchange, error) {
	if through == 0 {
		return nil, nil
	}
	turns, err := s.db.MainTurnsThroughBrief(ctx, sessionID, through, 2)
	if err != nil {
		return nil, err
	}
	return s.exchanges(ctx, turns)
}

// exchanges reads turns, with or without their requests, as exchanges
// (exchangesOf); the requests are read through the digest cache shared
// with skill evolution.
func (s *Service) exchanges(ctx context.Context, turns []store.Turn) ([]Exchange, error) {
	digests, err := s.digests.Of(ctx, s.db, turns)
	if err != nil {
		return nil, err
	}
	return exchangesOf(turns, digests), nil
}

// ingest extracts exchanges into scope: with the model when there is one
// and it answers, else with the rules (queueing the turns for a model
// pass), then consolidates.
func (s *Service) ingest(ctx context.Context, scope, sessionID string, earlier, exs []Exchange) (Report, error) {
	rep := Report{Turns: len(exs)}
	if !saidAnything(exs) {
		return rep, nil
	}
	for _, chunk := range chunks(exs) {
		cands, source, err := s.extract(ctx, scope, earlier, chunk)
		if err != nil {
			return rep, err
		}
		if source == SourceRules {
			queued, err := s.queue(ctx, sessionID, chunk)
			if err != nil {
				return rep, err
			}
			rep.Queued = rep.Queued || queued
		}
		if rep.Extractor != SourceRules {
			rep.Extractor = source
		}
		prov := Provenance{Source: source, SessionID: sessionID, TurnIDs: turnIDs(chunk), At: saidAt(chunk)}
		changes, err := s.consolidate(ctx, scope, cands, prov, nil)
		if err != nil {
			return rep, err
		}
		rep.record(changes)
		earlier = chunk[max(0, len(chunk)-2):]
	}
	return rep, nil
}

// extract asks the model, falling back to the rules when there is none or
// it fails (unless ctx ended: then the error is returned).
func (s *Service) extract(ctx context.Context, scope string, earlier, chunk []Exchange) ([]Candidate, string, error) {
	if s.ext != nil {
		known, err := s.known(ctx, scope, chunk)
		if err != nil {
			return nil, "", err
		}
		cands, err := s.ext.Extract(ctx, Excerpt{Known: known, Context: earlier, New: chunk})
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		s.outcome(err)
		if err == nil {
			return cands, SourceModel, nil
		}
		s.log.Warn("extraction model failed; using the rule-based extractor", "err", err)
	}
	return RuleExtract(chunk), SourceRules, nil
}

// known returns the scope's memories most related to what the user said:
// what the model may reinforce or supersede.
func (s *Service) known(ctx context.Context, scope string, exs []Exchange) ([]store.Memory, error) {
	var said []string
	for _, ex := range exs {
		said = append(said, ex.User)
	}
	hits, err := s.ret.Search(ctx, scope, strings.Join(said, "\n"), 20)
	if err != nil {
		return nil, err
	}
	out := make([]store.Memory, len(hits))
	for i, h := range hits {
		out[i] = h.Memory
	}
	return out, nil
}

// queue puts recorded turns in line for a later model pass.
func (s *Service) queue(ctx context.Context, sessionID string, exs []Exchange) (bool, error) {
	ids := turnIDs(exs)
	if len(ids) == 0 || sessionID == "" {
		return false, nil
	}
	return true, s.db.QueueMemoryTurns(ctx, sessionID, ids, s.now().Add(s.opts.RetryAfter))
}

// RetryQueued runs the model pass on turns whose extraction fell back to
// the rules: on success the rule memories of those turns (unless pinned or
// confirmed since) make way for the model's; on failure the turns wait
// longer, and are given up after MaxAttempts.
func (s *Service) RetryQueued(ctx context.Context) error {
	if s.ext == nil {
		return nil
	}
	due, err := s.db.DueMemoryTurns(ctx, s.now(), maxTurnsPerPass)
	if err != nil {
		return err
	}
	for len(due) > 0 {
		n := 1
		for n < len(due) && due[n].SessionID == due[0].SessionID {
			n++
		}
		if err := s.retrySession(ctx, due[:n]); err != nil {
			return err
		}
		due = due[n:]
	}
	return nil
}

func (s *Service) retrySession(ctx context.Context, due []store.PendingTurn) error {
	s.extractMu.Lock()
	defer s.extractMu.Unlock()
	ids := make([]int64, len(due))
	attempts := 0
	for i, p := range due {
		ids[i], attempts = p.TurnID, max(attempts, p.Attempts+1)
	}
	sess, err := s.db.Session(ctx, due[0].SessionID)
	if err != nil {
		return s.db.DequeueMemoryTurns(ctx, ids) // the session is gone
	}
	turns, err := s.db.TurnsByID(ctx, ids)
	if err != nil {
		return err
	}
	drop, err := s.stopgaps(ctx, sess.Scope, ids)
	if err != nil {
		return err
	}
	exs, err := s.exchanges(ctx, turns)
	if err != nil {
		return err
	}
	cands, err := s.modelPass(ctx, sess.Scope, exs, drop)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return s.reschedule(ctx, ids, attempts, err)
	}
	prov := Provenance{Source: SourceModel, SessionID: sess.ID, TurnIDs: ids, At: saidAt(exs)}
	if _, err := s.consolidate(ctx, sess.Scope, cands, prov, drop); err != nil {
		return err
	}
	return s.db.DequeueMemoryTurns(ctx, ids)
}

// modelPass extracts exchanges with the model; the memories it replaces
// (replaced) are not shown to it as known.
func (s *Service) modelPass(ctx context.Context, scope string, exs []Exchange, replaced []int64) ([]Candidate, error) {
	var all []Candidate
	for _, chunk := range chunks(exs) {
		known, err := s.known(ctx, scope, chunk)
		if err != nil {
			return nil, err
		}
		kept := known[:0]
		for _, m := range known {
			if !slices.Contains(replaced, m.ID) {
				kept = append(kept, m)
			}
		}
		cands, err := s.ext.Extract(ctx, Excerpt{Known: kept, New: chunk})
		if ctx.Err() == nil {
			s.outcome(err)
		}
		if err != nil {
			return nil, err
		}
		all = append(all, cands...)
	}
	return all, nil
}

func (s *Service) reschedule(ctx context.Context, ids []int64, attempts int, cause error) error {
	if attempts >= s.opts.MaxAttempts {
		s.log.Warn("memory model pass given up; the rule-based memories stay", "turns", len(ids), "err", cause)
		return s.db.DequeueMemoryTurns(ctx, ids)
	}
	delay := s.opts.RetryAfter << min(attempts, 16)
	if delay > maxRetryDelay || delay <= 0 {
		delay = maxRetryDelay
	}
	return s.db.RetryMemoryTurns(ctx, ids, s.now().Add(delay))
}

// stopgaps returns the rule memories of turns that the model pass replaces.
func (s *Service) stopgaps(ctx context.Context, scope string, ids []int64) ([]int64, error) {
	ms, err := s.db.MemoriesFromTurns(ctx, scope, SourceRules, ids)
	if err != nil {
		return nil, err
	}
	var out []int64
	for _, m := range ms {
		if !m.Pinned && m.Reinforced <= 1 {
			out = append(out, m.ID)
		}
	}
	return out, nil
}

// Decay ends the episodes whose importance, halved for every
// RetrieveOptions.HalfLife unused, fell below 0.1; pinned ones stay. It
// returns how many ended.
func (s *Service) Decay(ctx context.Context) (int, error) {
	eps, err := s.db.Memories(ctx, store.MemoryFilter{Type: store.MemoryEpisode})
	if err != nil {
		return 0, err
	}
	now := s.now()
	byScope := map[string][]int64{}
	for _, m := range eps {
		if !m.Pinned && EffectiveImportance(m, now, s.ret.opts.HalfLife) < decayFloor {
			byScope[m.Scope] = append(byScope[m.Scope], m.ID)
		}
	}
	n := 0
	for scope, ids := range byScope {
		if err := s.end(ctx, scope, ids, store.EndDecayed); err != nil {
			return n, err
		}
		n += len(ids)
	}
	return n, nil
}

func (s *Service) end(ctx context.Context, scope string, ids []int64, reason string) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	changes, rev, err := s.db.ApplyMemoryOps(ctx, scope, []store.MemoryOp{{Kind: store.MemoryEnd, IDs: ids, Reason: reason}}, s.now())
	if err != nil {
		return fmt.Errorf("end memories: %w", err)
	}
	s.ret.apply(scope, changes, rev)
	return nil
}

// outcome tells Options.Outcome how a model extraction went.
func (s *Service) outcome(err error) {
	if s.opts.Outcome != nil {
		s.opts.Outcome(err)
	}
}
