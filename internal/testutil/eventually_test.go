package testutil

import (
	"sync/atomic"
	"testing"
)

// Eventually returns once the condition holds, having asked again after
// each false answer.
func TestEventuallyPollsUntilTrue(t *testing.T) {
	var calls atomic.Int32
	Eventually(t, "the third call", func() bool { return calls.Add(1) >= 3 })
	if n := calls.Load(); n != 3 {
		t.Errorf("cond called %d times, want 3", n)
	}
}
