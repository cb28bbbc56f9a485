package llm

import (
	"errors"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
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

// retryAfter reads Retry-After-Ms (milliseconds) or else Retry-After
// (seconds or an HTTP date). ok is false when neither is usable; tooLong
// is true when the wait exceeds the cap.
func (p *Poster) retryAfter(h http.Header, now time.Time) (d time.Duration, ok, tooLong bool) {
	limit := p.MaxRetryDelay
	if limit <= 0 {
		limit = defaultRetryAfterCap
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if d, ok, tooLong := parseDelay(v, time.Millisecond, limit); ok {
			return d, ok, tooLong
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false, false
	}
	if d, ok, tooLong := parseDelay(v, time.Second, limit); ok {
		return d, ok, tooLong
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false, false
	}
	d = max(0, t.Sub(now))
	return d, true, d > limit
}

// parseDelay parses a non-negative number of units.
func parseDelay(v string, unit, limit time.Duration) (d time.Duration, ok, tooLong bool) {
	f, err := strconv.ParseFloat(v, 64)
	if (err != nil && !errors.Is(err, strconv.ErrRange)) || math.IsNaN(f) || f < 0 {
		return 0, false, false
	}
	ns := f * float64(unit)
	if ns > float64(limit) {
		return 0, true, true
	}
	return time.Duration(ns), true, false
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
