package policy

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/internal/wait"
	"github.com/metaclaw/metaclaw/app/learner/tinker"
)

// maxRetry caps the wait between retries of a failed set-up step.
const maxRetry = 30 * time.Second

// Serve runs the Server until ctx ends, then returns nil: it connects to
// the training service (retrying until it answers), keeps the session
// alive, loads the tokenizer and chat template (fetching them once),
// opens the sampling session of the serving checkpoint and swaps it when
// the checkpoint changes. Without rl.api_key it only waits. Call it once.
func (s *Server) Serve(ctx context.Context) error {
	if s.client == nil {
		<-ctx.Done()
		return nil
	}
	defer s.client.Close()
	if !s.connect(ctx) {
		return nil
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { _ = s.client.Serve(ctx) })
	s.pollDB(ctx)
	if !s.loadRuntime(ctx) {
		return nil
	}
	wg.Go(func() { s.swapLoop(ctx) })
	s.kickSwap()
	s.monitor(ctx)
	return nil
}

// connect starts the Tinker session, retrying until it works; false when
// ctx ended first.
func (s *Server) connect(ctx context.Context) bool {
	return s.retry(ctx, "connect to the training service", func() error {
		err := s.client.Start(ctx)
		s.setHealth(func(h *health) {
			h.connected, h.connectErr = err == nil, err
			h.heartbeatOK, h.heartbeat = err == nil, nil
		})
		return err
	})
}

// loadRuntime loads the tokenizer and chat template, retrying until it
// works; false when ctx ended first.
func (s *Server) loadRuntime(ctx context.Context) bool {
	repo := s.tokenizerRepo(ctx)
	s.setHealth(func(h *health) { h.repo = repo })
	return s.retry(ctx, "load the tokenizer", func() error {
		rt, err := s.hub.load(ctx, repo, s.opts.RL.Model)
		if err == nil {
			s.rt.Store(rt)
			s.log.Info("policy tokenizer loaded", "repo", repo, "stop_tokens", rt.stopTexts)
		}
		s.setHealth(func(h *health) { h.tokErr = err })
		return err
	})
}

// retry runs step until it succeeds, waiting RetryInterval, doubling up
// to maxRetry, between attempts. It reports false when ctx ended first.
func (s *Server) retry(ctx context.Context, what string, step func() error) bool {
	return wait.Until(ctx, s.opts.RetryInterval, maxRetry, step, func(err error, next time.Duration) {
		s.log.Warn("policy: cannot "+what+"; retrying", "in", next, "err", err)
	})
}

// monitor checks the heartbeat and the serving checkpoint every
// PollInterval until ctx ends.
func (s *Server) monitor(ctx context.Context) {
	t := time.NewTicker(s.opts.PollInterval)
	defer t.Stop()
	var lastRestart time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.checkHeartbeat()
		s.pollDB(ctx)
		if s.needsRestart() && s.opts.Now().Sub(lastRestart) > maxRetry {
			lastRestart = s.opts.Now()
			s.restart(ctx)
		}
	}
}

// checkHeartbeat copies the heartbeat's state into the health, and clears
// a sampling failure once a heartbeat succeeded after it.
func (s *Server) checkHeartbeat() {
	hb := s.client.Heartbeat()
	s.setHealth(func(h *health) {
		h.heartbeatOK = hb.Healthy && hb.Failures == 0
		h.heartbeat = hb.LastError
		if h.sampleErr != nil && hb.LastSuccess.After(h.sampleErrAt) {
			h.sampleErr = nil
		}
	})
}

// needsRestart reports whether the session looks lost: no successful
// heartbeat for the service's grace period although the service answers.
func (s *Server) needsRestart() bool {
	hb := s.client.Heartbeat()
	var ae *tinker.APIError
	return !hb.Healthy && errors.As(hb.LastError, &ae)
}

// restart starts a new Tinker session and reopens the sampling session on
// it.
func (s *Server) restart(ctx context.Context) {
	s.log.Warn("policy: the training session looks lost; starting a new one")
	if err := s.client.Start(ctx); err != nil {
		s.log.Warn("policy: cannot start a new training session", "err", err)
		return
	}
	if sm := s.cur.Load(); sm != nil {
		sm.broken.Store(true)
	}
	s.setHealth(func(*health) {})
	s.kickSwap()
}

// noteSampleError records a failed sample: a service failure makes Ready
// false until the next successful heartbeat, and a broken sequence makes
// the swapper open a new sampling session.
func (s *Server) noteSampleError(sm *sampler, err error) {
	broken := errors.Is(err, tinker.ErrSequenceBroken)
	if broken {
		sm.broken.Store(true)
		s.kickSwap()
	}
	failing := serviceFailure(err)
	if !broken && !failing {
		return
	}
	s.setHealth(func(h *health) {
		if failing {
			h.sampleErr, h.sampleErrAt = err, s.opts.Now()
		}
	})
}

// serviceFailure reports whether err says the service is down or refuses
// us, rather than that the request was wrong or abandoned.
func serviceFailure(err error) bool {
	var ce *tinker.ConnError
	if errors.As(err, &ce) {
		return true
	}
	var ae *tinker.APIError
	if errors.As(err, &ae) {
		return ae.Status >= 500 || ae.Status == 401 || ae.Status == 403
	}
	return false
}
