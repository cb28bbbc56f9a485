// Package wait has the learner's one context-aware sleep, used by its
// clients' retries and backoffs (llm, tinker, opd, policy); how long a
// server asks them to wait is read by proxy/retryafter. Only app/learner
// packages import it.
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
