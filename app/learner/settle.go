package learner

import (
	"context"
	"time"
)

// settlePoll is how often Settle looks again.
const settlePoll = 20 * time.Millisecond

// maxEnded bounds the sessions remembered as ended for Settle: sessions
// nobody waits for are forgotten, oldest unknown, once there are this many.
const maxEnded = 1024

// markEnded remembers that the dispatcher handled the end of a session.
func (l *Learner) markEnded(session string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.ended) >= maxEnded {
		clear(l.ended)
	}
	l.ended[session] = true
}

// Settle waits until the learner has handled the end of session (the
// proxy's session_ended event) and has nothing queued or running any more:
// every event handed to Notify dispatched, the judging and the skill
// evolution they caused finished. It returns ctx's error if ctx ends
// first. A tool that drives MetaClaw step by step (metaclaw bench, between
// two benchmark days) ends a session and calls Settle before going on, so
// that the next step sees what the learner made of the last one. Settle
// needs Serve to be running.
func (l *Learner) Settle(ctx context.Context, session string) error {
	t := time.NewTicker(settlePoll)
	defer t.Stop()
	for {
		if l.settled(session) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

func (l *Learner) settled(session string) bool {
	l.mu.Lock()
	seen := l.ended[session]
	l.mu.Unlock()
	if !seen {
		return false
	}
	l.work.mu.Lock()
	busy := l.work.m[""] != nil
	l.work.mu.Unlock()
	if !busy {
		l.mu.Lock()
		delete(l.ended, session)
		l.mu.Unlock()
	}
	return !busy
}
