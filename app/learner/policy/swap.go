package policy

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/tinker"
)

// sampler is an open sampling session and the checkpoint it serves.
// Requests take the current one when they start and keep it to the end.
type sampler struct {
	ss   tinker.SamplingSession
	path string // sampler checkpoint, "" = the base model
	// broken is set when the session can no longer be used (a broken
	// sequence, a lost Tinker session); the swapper then replaces it.
	broken atomic.Bool
}

// label is what a sample records as its checkpoint: the sampler path, or
// the base model's name.
func (sm *sampler) label(base string) string {
	if sm.path == "" {
		return base
	}
	return sm.path
}

// UseCheckpoint makes the Server serve the sampler checkpoint path
// (tinker://…/sampler_weights/…; "" = the base model). It returns at once:
// Serve opens a sampling session for it in the background, requests keep
// using the current one until that exists, and new requests use the new
// one from then on. The trainer calls it after each step (after
// store.DB.SetServingCheckpoint); a change of the serving checkpoint in
// the database has the same effect within PollInterval.
func (s *Server) UseCheckpoint(path string) {
	s.mu.Lock()
	s.want = path
	s.mu.Unlock()
	s.kickSwap()
}

func (s *Server) kickSwap() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

func (s *Server) wanted() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.want
}

// pollDB reads the serving checkpoint and, when it changed since the last
// read, makes it the one to serve.
func (s *Server) pollDB(ctx context.Context) {
	if s.opts.DB == nil {
		return
	}
	ck, err := s.opts.DB.ServingCheckpoint(ctx)
	if err != nil {
		s.log.Warn("policy: cannot read the serving checkpoint", "err", err)
		return
	}
	s.mu.Lock()
	changed := ck != s.dbSeen
	if changed {
		s.dbSeen, s.want = ck, ck
	}
	s.mu.Unlock()
	if changed {
		s.kickSwap()
	}
}

// swapLoop opens sampling sessions when the wanted checkpoint changes or
// the current session broke, retrying failures with back-off, until ctx
// ends.
func (s *Server) swapLoop(ctx context.Context) {
	wait := s.opts.RetryInterval
	var retry <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.kick:
		case <-retry:
		}
		retry = nil
		if err := s.swap(ctx); err != nil {
			if ctx.Err() != nil {
				return
			}
			s.log.Warn("policy: cannot open a sampling session; retrying", "in", wait, "err", err)
			retry = time.After(wait)
			wait = min(2*wait, maxRetry)
			continue
		}
		wait = s.opts.RetryInterval
	}
}

// swap opens a sampling session for the wanted checkpoint unless the
// current one serves it, and makes it current. It repeats while the
// wanted checkpoint changed meanwhile.
func (s *Server) swap(ctx context.Context) error {
	for {
		want := s.wanted()
		if cur := s.cur.Load(); cur != nil && cur.path == want && !cur.broken.Load() {
			return nil
		}
		ss, err := s.client.CreateSamplingSession(ctx, s.opts.RL.Model, want)
		if err != nil {
			s.setHealth(func(h *health) { h.swapErr = err })
			return err
		}
		old := s.cur.Swap(&sampler{ss: ss, path: want})
		s.setHealth(func(h *health) { h.swapErr = nil })
		s.log.Info("policy: serving", "checkpoint", (&sampler{path: want}).label(s.opts.RL.Model),
			"sampling_session", ss.ID, "previous", labelOf(old, s.opts.RL.Model))
	}
}

func labelOf(sm *sampler, base string) string {
	if sm == nil {
		return ""
	}
	return sm.label(base)
}
