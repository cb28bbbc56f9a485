// Package retryafter reads how long a server asks its client to wait
// before retrying. The proxy's upstream retries, the learner's LLM client
// and its Tinker client share it.
package retryafter

import (
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Read reads how long a server asks the client to wait before
// retrying: Retry-After-Ms (milliseconds, as OpenAI's and Anthropic's APIs
// and Tinker send it) when it is a usable number, or else Retry-After
// (seconds, fractions allowed, or an HTTP date; a date in the past means
// now). Waits too long for a Duration come back as the longest one. ok is
// false when neither header is usable; callers apply their own caps.
func Read(h http.Header, now time.Time) (d time.Duration, ok bool) {
	if d, ok := delay(h.Get("Retry-After-Ms"), time.Millisecond); ok {
		return d, true
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if d, ok := delay(v, time.Second); ok {
		return d, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(0, t.Sub(now)), true
}

// delay parses a non-negative number of units.
func delay(v string, unit time.Duration) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(v, 64)
	if (err != nil && !errors.Is(err, strconv.ErrRange)) || math.IsNaN(f) || f < 0 {
		return 0, false
	}
	if ns := f * float64(unit); ns < math.MaxInt64 {
		return time.Duration(ns), true
	}
	return math.MaxInt64, true
}
