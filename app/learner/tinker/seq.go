package tinker

import (
	"context"
	"fmt"
	"sync"
)

// sequence hands out the seq ids of one model or sampling session and
// keeps their submissions in order.
type sequence struct {
	mu     sync.Mutex // guards next and broken; held across a submission
	next   int
	broken error // why the sequence has a hole, once it has one
}

func newSequence(first int) *sequence { return &sequence{next: first} }

// submit reserves n consecutive seq ids and calls send(first) with the lock
// held, so nothing else is submitted in between. send runs on a context
// that ignores the caller's cancellation (but not Close): once ids are
// taken they must reach the service. If send fails, the sequence is broken
// for good and the error wraps ErrSequenceBroken.
func (c *Client) submitSeq(ctx context.Context, s *sequence, n int, send func(ctx context.Context, first int) error) error {
	if s == nil {
		return fmt.Errorf("tinker: use of a zero Model or SamplingSession")
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("tinker: not submitted: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken != nil {
		return fmt.Errorf("%w (earlier: %v)", ErrSequenceBroken, s.broken)
	}
	first := s.next
	s.next += n
	sctx, done := c.detached(ctx)
	defer done()
	if err := send(sctx, first); err != nil {
		s.broken = fmt.Errorf("seq_id %d: %w", first, err)
		return fmt.Errorf("%w: seq_id %d was taken but not delivered: %w", ErrSequenceBroken, first, err)
	}
	return nil
}

// lastSeq is the last seq id handed out (-1 if none), for tests and logs.
func (s *sequence) lastSeq() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next - 1
}

// detached returns a context with ctx's values that is cancelled only by
// Close.
func (c *Client) detached(ctx context.Context) (context.Context, func()) {
	d, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(c.life, cancel)
	return d, func() { stop(); cancel() }
}
