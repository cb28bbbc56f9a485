// Package testutil holds small helpers shared by the project's tests. It
// imports nothing of the project, so every package's tests may use it.
package testutil

import (
	"testing"
	"time"
)

// Patience bounds every wait in Eventually so that a bug fails the test
// instead of hanging it. It is never an assertion about speed.
const Patience = 30 * time.Second

// Eventually polls cond until it holds and fails t when it still does not
// after Patience; what names the awaited state in the failure. The first
// polls come quickly (from 2 ms, doubling up to 100 ms) so that a test
// waits little longer than the state takes to arrive.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	eventually(t, what, cond, Patience)
}

func eventually(t testing.TB, what string, cond func() bool, patience time.Duration) {
	t.Helper()
	deadline := time.Now().Add(patience)
	pause := 2 * time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", patience, what)
			return
		}
		time.Sleep(pause)
		pause = min(2*pause, 100*time.Millisecond)
	}
}
