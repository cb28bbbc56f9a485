package proxy

import (
	"context"
	"errors"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// bodyCopies is how many times a request body counts against
// proxy.max_inflight_bytes: the proxy holds it as received, as parsed, and
// as sent upstream and recorded (measured with BenchmarkLargeBodiesRSS).
const bodyCopies = 3

// budgetWait is how long a request waits for room in the budget before it
// is answered 503.
const budgetWait = 2 * time.Second

// returnAfter is how long the budget must stay empty before the heap is
// given back to the OS, when it holds more than returnAbove bytes.
const (
	returnAfter = time.Second
	returnAbove = 64 << 20
)

// errOverBudget: the budget had no room within budgetWait.
var errOverBudget = errors.New("the proxy is holding as many request bodies as proxy.max_inflight_bytes allows")

// budget bounds the bytes held for the request bodies in flight across all
// requests. A request takes its share before its body is read and gives
// it back when nothing of it is held any more (see lease). One request is
// always let in when nothing else is held, however large.
type budget struct {
	limit func() int64 // proxy.max_inflight_bytes in force

	mu    sync.Mutex    // guards the fields below
	used  int64         // bytes taken
	freed chan struct{} // closed (and replaced) whenever bytes are given back
	timer *time.Timer   // returns memory to the OS once the budget stays empty
}

func newBudget(limit func() int64) *budget {
	return &budget{limit: limit, freed: make(chan struct{})}
}

// take reserves n bytes, waiting up to wait for room.
func (b *budget) take(ctx context.Context, n int64, wait time.Duration) error {
	var deadline <-chan time.Time
	for {
		b.mu.Lock()
		if b.used == 0 || b.used+n <= b.limit() {
			b.used += n
			if b.timer != nil {
				b.timer.Stop()
			}
			b.mu.Unlock()
			return nil
		}
		freed := b.freed
		b.mu.Unlock()
		if deadline == nil {
			t := time.NewTimer(wait)
			defer t.Stop()
			deadline = t.C
		}
		select {
		case <-freed:
		case <-deadline:
			return errOverBudget
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// put gives back n bytes. When the budget has stayed empty a little while
// and the heap is large, the memory is returned to the OS: a burst of large
// requests (or one with a great many messages) leaves the Go heap large,
// and with nothing allocating afterwards the runtime would keep it.
func (b *budget) put(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= n
	close(b.freed)
	b.freed = make(chan struct{})
	if b.used > 0 {
		return
	}
	if b.timer == nil {
		b.timer = time.AfterFunc(returnAfter, b.returnMemory)
		return
	}
	b.timer.Reset(returnAfter)
}

func (b *budget) returnMemory() {
	b.mu.Lock()
	busy := b.used > 0
	b.mu.Unlock()
	if !busy && heapHeld() > returnAbove {
		debug.FreeOSMemory()
	}
}

// heapHeld returns the bytes of heap the process holds from the OS: live
// and dead objects, and free spans not yet returned.
func heapHeld() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"}}
	metrics.Read(s)
	var n uint64
	for _, v := range s {
		if v.Value.Kind() == metrics.KindUint64 {
			n += v.Value.Uint64()
		}
	}
	return n
}

// inUse returns the bytes taken.
func (b *budget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// lease is one request's share of the budget. Everything that still holds
// the request's bytes after the handler returns (a streamed answer being
// relayed, a turn waiting to be recorded) retains the lease and releases
// it when done; the share goes back when the last one has. A nil lease
// (a request without a body) does nothing.
type lease struct {
	b    *budget
	n    int64 // bytes taken; grows while the body is read
	refs atomic.Int32
}

func (b *budget) newLease() *lease {
	l := &lease{b: b}
	l.refs.Store(1)
	return l
}

// grow takes n more bytes for the lease.
func (l *lease) grow(ctx context.Context, n int64) error {
	if err := l.b.take(ctx, n, budgetWait); err != nil {
		return err
	}
	l.n += n
	return nil
}

func (l *lease) retain() {
	if l != nil {
		l.refs.Add(1)
	}
}

func (l *lease) release() {
	if l != nil && l.refs.Add(-1) == 0 && l.n > 0 {
		l.b.put(l.n)
	}
}
