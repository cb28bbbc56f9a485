package trainer

import (
	"context"
	"time"

	"github.com/metaclaw/metaclaw/idle"
	"github.com/metaclaw/metaclaw/store/config"
)

// Serve trains until ctx ends: in mode rl whenever rl.batch_size rewarded
// samples wait, in madmax only while a training window is open, never
// while learning is paused; it also answers train-step requests. When a
// window closes or learning is paused, the step in flight finishes, the
// training state is saved, and the rest waits in the database. When ctx
// ends, the step in flight gets up to DrainTimeout to finish, the state is
// saved and the run ended; Serve then returns nil.
func (t *Trainer) Serve(ctx context.Context) error {
	if !t.serving.CompareAndSwap(false, true) {
		return ErrServing
	}
	defer t.serving.Store(false)
	var windows <-chan idle.Transition
	if t.opts.Windows != nil {
		ch, stop := t.opts.Windows.Subscribe()
		defer stop()
		windows = ch
	}
	work, cancelWork := t.drainContext(ctx)
	defer cancelWork()
	ticker := time.NewTicker(t.opts.Poll)
	defer ticker.Stop()
	for {
		t.tick(ctx, work)
		select {
		case <-ctx.Done():
			t.shutdown(work)
			return nil
		case <-ticker.C:
		case <-t.kick:
		case _, ok := <-windows:
			if !ok {
				windows = nil
			}
		}
	}
}

// drainContext returns the context of the work itself: it outlives ctx by
// DrainTimeout, so that the step in flight can finish at shutdown.
func (t *Trainer) drainContext(ctx context.Context) (context.Context, context.CancelFunc) {
	work, cancel := context.WithCancel(context.WithoutCancel(ctx))
	go func() {
		select {
		case <-work.Done():
			return
		case <-ctx.Done():
		}
		timer := time.NewTimer(t.opts.DrainTimeout)
		defer timer.Stop()
		select {
		case <-timer.C:
			t.log.Warn("trainer: abandoning work in flight at shutdown", "waited", t.opts.DrainTimeout)
			cancel()
		case <-work.Done():
		}
	}()
	return work, cancel
}

// tick answers a train-step request, trains while allowed, and saves the
// training state once training is no longer allowed.
func (t *Trainer) tick(ctx, work context.Context) {
	t.answerRequest(work)
	for ctx.Err() == nil && t.allowed() && !t.backingOff() {
		st, err := t.runStep(work, false)
		if err != nil {
			t.noteFailure(err)
			return
		}
		if st == nil {
			return // the batch is not full yet
		}
		t.noteSuccess()
	}
	if ctx.Err() == nil && !t.allowed() {
		t.saveIdle(work)
	}
}

// allowed reports whether automatic training may run now.
func (t *Trainer) allowed() bool {
	if t.opts.Paused() {
		return false
	}
	cfg, _ := t.current()
	switch cfg.Mode {
	case config.ModeRL:
		return true
	case config.ModeMadmax:
		return t.opts.Windows != nil && t.opts.Windows.Status().Open
	}
	return false
}

// saveIdle saves the training state after the window closed or learning
// was paused, when steps were done since the last save.
func (t *Trainer) saveIdle(ctx context.Context) {
	t.stepMu.Lock()
	defer t.stepMu.Unlock()
	if err := t.saveState(ctx); err != nil {
		t.log.Warn("save the training state after training stopped", "error", err)
	}
}

// shutdown saves the state and ends the run.
func (t *Trainer) shutdown(work context.Context) {
	t.stepMu.Lock()
	defer t.stepMu.Unlock()
	t.closeModel(work)
}

// noteFailure logs a failed step and backs off: RetryDelay, doubling up
// to MaxRetryDelay.
func (t *Trainer) noteFailure(err error) {
	t.failMu.Lock()
	defer t.failMu.Unlock()
	t.failures++
	delay := t.opts.RetryDelay << min(t.failures-1, 16)
	if delay > MaxRetryDelay || delay <= 0 {
		delay = MaxRetryDelay
	}
	t.retryAt = t.now().Add(delay)
	t.lastErr, t.lastErrAt = err.Error(), t.now()
	t.log.Warn("training step failed", "error", err, "retry_in", delay, "failures", t.failures)
	if t.opts.Outcome != nil {
		t.opts.Outcome(err)
	}
}

func (t *Trainer) noteSuccess() {
	t.failMu.Lock()
	defer t.failMu.Unlock()
	t.failures, t.retryAt, t.lastErr = 0, time.Time{}, ""
	if t.opts.Outcome != nil {
		t.opts.Outcome(nil)
	}
}

func (t *Trainer) backingOff() bool {
	t.failMu.Lock()
	defer t.failMu.Unlock()
	return t.now().Before(t.retryAt)
}

// Status is what the trainer is doing, for the tray, status and web page.
type Status struct {
	Training  bool   // a step is in flight
	ModelID   string // the training model, "" before the first step
	Step      int    // optimizer steps of the current adapter
	LastError string // the last failed step's error, "" after a success
	LastErrAt time.Time
	RetryAt   time.Time // automatic steps wait until then after failures
}

// Status returns the trainer's state without waiting for a step.
func (t *Trainer) Status() Status {
	var s Status
	if t.stepMu.TryLock() {
		if t.run != nil {
			s.ModelID, s.Step = t.run.ModelID, t.step
		}
		t.stepMu.Unlock()
	} else {
		s.Training = true
	}
	t.failMu.Lock()
	s.LastError, s.LastErrAt, s.RetryAt = t.lastErr, t.lastErrAt, t.retryAt
	t.failMu.Unlock()
	return s
}
