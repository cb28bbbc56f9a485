package llm

import (
	"errors"
	"math"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/metaclaw/metaclaw/proxy/retryafter"
)

// The SDKs' defaults when Poster.MaxRetryDelay is zero.
const (
	defaultBackoffCap    = 8 * time.Second // computed backoff
	defaultRetryAfterCap = 2 * time.Minute // server-directed wait
)

// retryDelay says whether attempt n (0-based) is retried after res or err,
// and after how long.
func (p *Poster) retryDelay(res *response, err error, n int) (time.Duration, bool) {
	if n >= p.MaxRetries {
		return 0, false
	}
	if err != nil {
		var perm permanent
		if errors.As(err, &perm) {
			return 0, false
		}
		return p.backoff(n), true
	}
	if !retryable(res) {
		return 0, false
	}
	if d, ok, tooLong := p.retryAfter(res.header, time.Now()); ok {
		// A wait longer than allowed returns the answer as it is.
		return d, !tooLong
	}
	return p.backoff(n), true
}

// retryable applies x-should-retry, then the retryable statuses.
func retryable(res *response) bool {
	switch strings.ToLower(res.header.Get("X-Should-Retry")) {
	case "true":
		return true
	case "false":
		return false
	}
	switch s := res.status; {
	case s == http.StatusRequestTimeout, s == http.StatusConflict, s == http.StatusTooManyRequests:
		return true
	default:
		return s >= 500
	}
}

// retryAfter reads the server's wait (see retryafter.Read). ok is false
// when it gave none; tooLong is true when the wait exceeds the cap.
func (p *Poster) retryAfter(h http.Header, now time.Time) (d time.Duration, ok, tooLong bool) {
	limit := p.MaxRetryDelay
	if limit <= 0 {
		limit = defaultRetryAfterCap
	}
	d, ok = retryafter.Read(h, now)
	return d, ok, ok && d > limit
}

// backoff is the wait before retry n+1: 0.5 s doubling per retry, capped,
// less up to 25 % jitter.
func (p *Poster) backoff(n int) time.Duration {
	limit := p.MaxRetryDelay
	if limit <= 0 {
		limit = defaultBackoffCap
	}
	d := limit
	if b := 0.5 * float64(time.Second) * math.Pow(2, float64(n)); b < float64(limit) {
		d = time.Duration(b)
	}
	if j := int64(d / 4); j > 0 {
		d -= time.Duration(rand.Int64N(j))
	}
	return d
}
