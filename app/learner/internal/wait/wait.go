// Package wait has the learner's one context-aware sleep, used by its
// clients' retries and backoffs (llm, tinker, opd, policy), and its one
// "retry until it works" loop with doubling waits (the policy's set-up,
// the training session's start); how long a server asks them to wait is
// read by proxy/retryafter. Only app/learner packages import it.
package wait

import (
	"context"
	"time"
)

// Sleep waits for d or until ctx ends, and then returns ctx's error (nil
// when the full d passed). A d of zero or less returns at once.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Until runs step until it succeeds, waiting first after the first
// failure and twice as long after each next one, up to most; onFail hears
// each failure with the wait that follows. It reports false when ctx
// ended first.
func Until(ctx context.Context, first, most time.Duration, step func() error, onFail func(err error, next time.Duration)) bool {
	delay := first
	for {
		err := step()
		if err == nil {
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		onFail(err, delay)
		if Sleep(ctx, delay) != nil {
			return false
		}
		delay = min(2*delay, most)
	}
}
