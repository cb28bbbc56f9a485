package tinker

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

const (
	pollTimeout     = 45 * time.Second
	maxImmediate5xx = 10 // consecutive 5xx polls re-polled at once, then back-off
	max400Polls     = 3
	maxResubmits    = 10
	billingStep     = 5 * time.Second
	bigPrompt       = 128 << 10
)

// futureRef is the answer of an async endpoint.
type futureRef struct {
	RequestID string `json:"request_id"`
	ModelID   string `json:"model_id"`
}

// submission is one async request, kept for resubmission after a 410.
type submission struct {
	endpoint string // e.g. "forward_backward"
	reqType  string // X-Tinker-Request-Type, e.g. "ForwardBackward"
	body     []byte
	sample   bool // asample: 429 means a client-wide pause, then resubmit
}

// send posts an async request and returns its future. After the HTTP
// layer's own retries it resubmits, with the same idempotency key, on
// retryable failures (back-off min(2ⁿ, 30) s within SubmitBudget), pauses
// in 5 s steps on 402 (up to billing_exception_max_pause_duration_sec),
// and for asample turns a 429 into a client-wide pause of 1 s (5 s for
// bodies over 128 KiB) before resubmitting.
func (c *Client) send(ctx context.Context, s submission) (futureRef, error) {
	o := callOpts{idemKey: newIdemKey(), backpressure: s.sample}
	if s.sample {
		o.headers = map[string]string{"X-Tinker-Sampling-Backpressure": "1"}
	}
	var spent, billed time.Duration
	for n := 0; ; n++ {
		if s.sample {
			if err := c.waitSamplePause(ctx); err != nil {
				return futureRef{}, fmt.Errorf("tinker: %s: %w", s.endpoint, err)
			}
		}
		var ref futureRef
		err := c.do(ctx, s.endpoint, s.body, &ref, o)
		if err == nil && ref.RequestID == "" {
			return ref, fmt.Errorf("tinker: %s: no request_id in the answer", s.endpoint)
		}
		if err == nil {
			return ref, nil
		}
		d, ok := c.resendDelay(err, n, s, &spent, &billed)
		if !ok {
			return futureRef{}, err
		}
		if d > 0 {
			if err := c.opts.Sleep(ctx, d); err != nil {
				return futureRef{}, fmt.Errorf("tinker: %s: %w", s.endpoint, err)
			}
		}
	}
}

// resendDelay decides whether send tries again after err, and when.
func (c *Client) resendDelay(err error, n int, s submission, spent, billed *time.Duration) (time.Duration, bool) {
	st := statusOf(err)
	switch {
	case s.sample && st == http.StatusTooManyRequests:
		p := time.Second
		if len(s.body) > bigPrompt {
			p = 5 * time.Second
		}
		c.pauseSampling(p)
		*spent += p
		return 0, *spent <= c.opts.SubmitBudget
	case st == http.StatusPaymentRequired:
		*billed += billingStep
		return billingStep, *billed <= c.billingCap()
	case retryable(err):
		d := expBackoff(n)
		*spent += d
		return d, *spent <= c.opts.SubmitBudget
	}
	return 0, false
}

// retryable reports a connection error or a 408, 409, 429 or 5xx.
func retryable(err error) bool {
	var ce *ConnError
	if errors.As(err, &ce) {
		return true
	}
	s := statusOf(err)
	return s == 408 || s == 409 || s == 429 || s >= 500
}

// expBackoff is min(2ⁿ, 30) s.
func expBackoff(n int) time.Duration {
	if n >= 5 {
		return 30 * time.Second
	}
	return time.Duration(1<<n) * time.Second
}

func (c *Client) billingCap() time.Duration {
	return time.Duration(c.Flags().BillingExceptionMaxPauseSec) * time.Second
}

// pauseSampling holds every asample submission for d from now.
func (c *Client) pauseSampling(d time.Duration) {
	until := c.opts.Now().Add(d)
	c.pauseMu.Lock()
	if until.After(c.pauseUntil) {
		c.pauseUntil = until
	}
	c.pauseMu.Unlock()
}

// waitSamplePause sleeps out the client-wide sampling pause, if any.
func (c *Client) waitSamplePause(ctx context.Context) error {
	c.pauseMu.Lock()
	d := c.pauseUntil.Sub(c.opts.Now())
	c.pauseMu.Unlock()
	if d <= 0 {
		return nil
	}
	return c.opts.Sleep(ctx, d)
}

// await polls retrieve_future for id until the request completes, fails or
// ctx ends; rtt is the submission's round trip, reported on the first poll.
func (c *Client) await(ctx context.Context, s submission, id string, rtt time.Duration, out any) error {
	p := &poller{c: c, s: s, id: id}
	for iter := 0; ; iter++ {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("tinker: %s: waiting for request %s: %w", s.endpoint, p.id, err)
		}
		if p.resubmitted {
			iter, p.resubmitted = 0, false
		}
		resp, err := c.poll(ctx, p.id, s.reqType, iter, rtt)
		done, wait, err := p.step(ctx, resp, err, out)
		if done || err != nil {
			return err
		}
		if wait > 0 {
			if err := c.opts.Sleep(ctx, wait); err != nil {
				return fmt.Errorf("tinker: %s: waiting for request %s: %w", s.endpoint, p.id, err)
			}
		}
	}
}

// poll sends one retrieve_future, without HTTP-level retries.
func (c *Client) poll(ctx context.Context, id, reqType string, iter int, rtt time.Duration) (*rawResponse, error) {
	body, err := marshal("retrieve_future", map[string]any{"request_id": id, "allow_metadata_only": false})
	if err != nil {
		return nil, err
	}
	h := map[string]string{"X-Tinker-Request-Iteration": strconv.Itoa(iter), "X-Tinker-Request-Type": reqType}
	if iter == 0 {
		h["X-Tinker-Create-Promise-Roundtrip-Time"] = strconv.FormatFloat(rtt.Seconds(), 'f', 6, 64)
	}
	c.maybeRefreshJWT(ctx, jwtMinLeft)
	return c.attempt(ctx, "retrieve_future", body, callOpts{noRetry: true, timeout: pollTimeout, idemKey: newIdemKey(), headers: h})
}
