package idle

import (
	"context"
	"time"
)

// step reads the signals, evaluates and records the window. The busy
// source is asked when forceBusy is set or BusyPoll has passed.
func (s *Scheduler) step(ctx context.Context, forceBusy bool) Window {
	s.stepMu.Lock()
	defer s.stepMu.Unlock()
	now := s.clock.Now()
	if forceBusy || s.busyAt.IsZero() || now.Sub(s.busyAt) >= s.opts.BusyPoll || now.Before(s.busyAt) {
		s.refreshBusy(ctx, now)
	}
	in := WindowInputs{Now: now, Busy: s.busy, Paused: s.opts.Paused != nil && s.opts.Paused()}
	if !in.Paused {
		in.Idle = s.readIdle(ctx)
	}
	w := EvaluateWindow(s.Config(), in)
	s.record(now, w)
	return w
}

// readIdle asks the idle source once. Call with stepMu held.
func (s *Scheduler) readIdle(ctx context.Context) IdleReading {
	src := s.opts.Idle
	if src == nil {
		return IdleReading{}
	}
	ctx, cancel := context.WithTimeout(ctx, schedIdleTimeout)
	defer cancel()
	name := src.Name()
	d, err := src.Idle(ctx)
	s.noteErr(ctx, &s.idleErr, "keyboard idle source", err, "source", name)
	if err != nil {
		return IdleReading{Source: name, Err: err}
	}
	return IdleReading{Idle: d, OK: true, Source: name}
}

// refreshBusy asks the busy source for the times around now. On failure
// there is no meeting signal until it answers again. Call with stepMu held.
func (s *Scheduler) refreshBusy(ctx context.Context, now time.Time) {
	src := s.opts.Busy
	if src == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, schedBusyTimeout)
	defer cancel()
	ivs, err := src.Busy(ctx, now.Add(-schedBusyBehind), now.Add(schedBusyAhead))
	s.busyAt = now
	s.noteErr(ctx, &s.busyErr, "calendar busy times", err)
	if err != nil {
		ivs = nil
	}
	s.busy = ivs
}

// noteErr logs a source failing, once per distinct error, and its
// recovery. *last holds the error last logged. Call with stepMu held.
func (s *Scheduler) noteErr(ctx context.Context, last *string, what string, err error, args ...any) {
	if err == nil {
		if *last != "" {
			s.log.Info("scheduler: "+what+" works again", args...)
			*last = ""
		}
		return
	}
	if ctx.Err() != nil || err.Error() == *last {
		return
	}
	*last = err.Error()
	s.log.Warn("scheduler: "+what+" failed", append(args, "err", err)...)
}

// record stores w as the current state and, if it differs from the last
// one, publishes and logs the transition.
func (s *Scheduler) record(now time.Time, w Window) {
	s.mu.Lock()
	prev := s.last
	s.last, s.evaluated = w, true
	changed := schedChanged(prev, w)
	tr := Transition{Opened: w.Open, Window: w, Prev: prev, At: now}
	if changed {
		s.lastTr, s.hasTr = tr, true
		for _, ch := range s.subs {
			schedOffer(ch, tr)
		}
	}
	s.mu.Unlock()
	if changed {
		s.logTransition(tr)
	}
}

// schedChanged reports whether going from prev to w is a transition: the
// window opened or closed, or, while open, its reason or end changed.
// Details alone (idle minutes ticking up) are not.
func schedChanged(prev, w Window) bool {
	if prev.Open != w.Open {
		return true
	}
	return w.Open && (prev.Reason != w.Reason || !prev.Until.Equal(w.Until))
}

// schedOffer puts tr in ch without waiting, replacing a transition the
// subscriber has not received yet. The publisher, holding s.mu, is the
// only sender, so after the drain there is room.
func schedOffer(ch chan Transition, tr Transition) {
	select {
	case ch <- tr:
		return
	default:
	}
	select {
	case <-ch:
	default:
	}
	select {
	case ch <- tr:
	default:
	}
}

func (s *Scheduler) logTransition(tr Transition) {
	w := tr.Window
	switch {
	case !tr.Opened:
		s.log.Info("training window closed", "was", tr.Prev.Reason, "detail", w.Detail)
	case tr.Prev.Open:
		s.log.Info("training window changed", "reason", w.Reason, "until", schedTime(w.Until), "detail", w.Detail)
	default:
		s.log.Info("training window opened", "reason", w.Reason, "until", schedTime(w.Until), "detail", w.Detail)
	}
}

// schedTime formats a window end for the log: RFC 3339, or "unknown".
func schedTime(t time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	return t.Format(time.RFC3339)
}
