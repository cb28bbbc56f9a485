package testutil

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
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

// recorder is a testing.TB that keeps what Fatalf was told.
type recorder struct {
	testing.TB
	fatal string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
}

// A condition that never holds fails the test, naming what was awaited.
func TestEventuallyFailsNamingWhat(t *testing.T) {
	r := &recorder{TB: t}
	eventually(r, "the moon", func() bool { return false }, 20*time.Millisecond)
	if !strings.Contains(r.fatal, "the moon") {
		t.Errorf("failure %q does not name what was awaited", r.fatal)
	}
}
