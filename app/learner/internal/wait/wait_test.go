package wait

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

func TestSleep(t *testing.T) {
	if err := Sleep(context.Background(), time.Millisecond); err != nil {
		t.Fatalf("full sleep: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled sleep: %v", err)
	}
	if err := Sleep(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("zero sleep on a cancelled context: %v", err)
	}
}

// TestUntil: failures are retried with doubling waits up to the cap, each
// reported with the wait that follows; success ends it; a cancelled
// context ends it with false.
func TestUntil(t *testing.T) {
	calls := 0
	var waits []time.Duration
	ok := Until(context.Background(), time.Millisecond, 3*time.Millisecond, func() error {
		calls++
		if calls < 4 {
			return errors.New("not yet")
		}
		return nil
	}, func(err error, next time.Duration) { waits = append(waits, next) })
	want := []time.Duration{time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond}
	if !ok || calls != 4 || !slices.Equal(waits, want) {
		t.Fatalf("Until = %v after %d calls, waits %v; want true after 4, %v", ok, calls, waits, want)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ok = Until(ctx, time.Hour, time.Hour, func() error { return errors.New("down") }, func(error, time.Duration) { cancel() })
	if ok {
		t.Fatal("Until reported success after its context ended")
	}
}
