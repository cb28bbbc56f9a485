package calendar

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"golang.org/x/oauth2"
	"google.golang.org/api/googleapi"

	"github.com/metaclaw/metaclaw/idle"
)

// ErrNoData is what Cache.Busy answers before the first successful refresh.
var ErrNoData = errors.New("google calendar: no busy times fetched yet")

// CacheOptions tunes a Cache. Zero fields take the defaults in brackets.
type CacheOptions struct {
	Interval   time.Duration // between successful refreshes [5m]
	Lookback   time.Duration // fetched before now, for a meeting under way [2h]
	Horizon    time.Duration // fetched after now [36h]
	MinBackoff time.Duration // first retry after a transient failure [5s]
	MaxBackoff time.Duration // cap of the exponential backoff [15m]
	// MaxRetryAfter caps a server's Retry-After [1h].
	MaxRetryAfter time.Duration
	// Clock decides what "now" is [the client's clock].
	Clock idle.Clock
	// After waits between refreshes [time.After]; tests pass one that
	// returns at once or under their control.
	After func(time.Duration) <-chan time.Time
}

// Status is what the dashboard shows about the calendar signal.
type Status struct {
	Mode            Mode
	Connected       bool      // a token is stored and Google has not refused it
	ReconnectNeeded bool      // Google refused the grant: run connect again
	LastRefresh     time.Time // last successful refresh; zero if none
	LastAttempt     time.Time
	LastError       string // empty after a success
	NextRefresh     time.Time
	Busy            int // busy intervals held
}

// Cache holds the busy times of the next day or two in memory and keeps
// them fresh. Busy answers from memory; Serve refreshes. While refreshes
// fail it keeps serving the last good data (a disconnect clears it).
type Cache struct {
	client *Client
	opts   CacheOptions
	log    *slog.Logger
	poke   chan struct{}

	mu     sync.Mutex // guards busy, have and status
	busy   []idle.Interval
	have   bool
	status Status
}

var _ idle.BusySource = (*Cache)(nil)

// NewCache wraps client. Call Serve to keep it filled.
func NewCache(client *Client, opts CacheOptions) *Cache {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&opts.Interval, 5*time.Minute)
	def(&opts.Lookback, 2*time.Hour)
	def(&opts.Horizon, 36*time.Hour)
	def(&opts.MinBackoff, 5*time.Second)
	def(&opts.MaxBackoff, 15*time.Minute)
	def(&opts.MaxRetryAfter, time.Hour)
	if opts.Clock == nil {
		opts.Clock = client.cfg.Clock
	}
	if opts.After == nil {
		opts.After = time.After
	}
	return &Cache{client: client, opts: opts, log: client.cfg.Logger,
		poke: make(chan struct{}, 1), status: Status{Mode: client.cfg.Mode}}
}

// Busy returns the cached busy intervals overlapping [from, to), sorted by
// start and not clipped. It never touches the network.
func (c *Cache) Busy(_ context.Context, from, to time.Time) ([]idle.Interval, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.have {
		return nil, ErrNoData
	}
	var out []idle.Interval
	for _, iv := range c.busy {
		if iv.Start.Before(to) && iv.End.After(from) {
			out = append(out, iv)
		}
	}
	return out, nil
}

// Status reports connection and refresh state.
func (c *Cache) Status() Status {
	c.mu.Lock()
	st := c.status
	st.Busy = len(c.busy)
	c.mu.Unlock()
	st.Connected = c.client.Connected() && !st.ReconnectNeeded
	return st
}

// Poke makes Serve refresh now, e.g. right after a connect. It never blocks.
func (c *Cache) Poke() {
	select {
	case c.poke <- struct{}{}:
	default:
	}
}

// Refresh fetches [now-Lookback, now+Horizon) once and records the outcome.
func (c *Cache) Refresh(ctx context.Context) error {
	now := c.opts.Clock.Now()
	ivs, err := c.client.Fetch(ctx, now.Add(-c.opts.Lookback), now.Add(c.opts.Horizon))
	c.mu.Lock()
	defer c.mu.Unlock()
	c.status.LastAttempt = now
	if err != nil {
		c.status.LastError = err.Error()
		c.status.ReconnectNeeded = errors.Is(err, ErrReconnectNeeded)
		if errors.Is(err, ErrNotConnected) {
			c.busy, c.have = nil, false // disconnected on purpose: forget the meetings
		}
		return err
	}
	c.busy, c.have = slices.Clip(ivs), true
	c.status.LastRefresh, c.status.LastError, c.status.ReconnectNeeded = now, "", false
	return nil
}

// Serve refreshes every Interval until ctx ends, then returns nil. After a
// transient failure (network, 429, 5xx, Google's rate-limit 403s) it
// retries with exponential backoff and jitter, waiting at least as long as
// a Retry-After header asks; other failures wait a normal Interval.
func (c *Cache) Serve(ctx context.Context) error {
	failures := 0
	var lastErr string
	for {
		err := c.Refresh(ctx)
		if ctx.Err() != nil {
			return nil
		}
		delay := c.delay(err, &failures)
		c.logChange(err, &lastErr, delay)
		c.mu.Lock()
		c.status.NextRefresh = c.opts.Clock.Now().Add(delay)
		c.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil
		case <-c.poke:
		case <-c.opts.After(delay):
		}
	}
}

func (c *Cache) delay(err error, failures *int) time.Duration {
	if err == nil || !transient(err) {
		*failures = 0
		return c.opts.Interval
	}
	*failures++
	d := backoff(c.opts.MinBackoff, c.opts.MaxBackoff, *failures)
	if ra := retryAfter(err, c.opts.Clock.Now()); ra > d {
		d = min(ra, c.opts.MaxRetryAfter)
	}
	return d
}

// backoff is MinBackoff doubled per failure, capped, with the upper half
// jittered so many clients do not retry in step.
func backoff(lo, hi time.Duration, n int) time.Duration {
	d := lo
	for i := 1; i < n && d < hi; i++ {
		d *= 2
	}
	d = min(d, hi)
	half := d / 2
	return half + rand.N(half+1)
}

// transient says whether a failed refresh is worth retrying soon.
func transient(err error) bool {
	if errors.Is(err, ErrNotConnected) || errors.Is(err, ErrReconnectNeeded) {
		return false
	}
	var gerr *googleapi.Error
	if errors.As(err, &gerr) {
		return gerr.Code == http.StatusTooManyRequests || gerr.Code >= 500 ||
			gerr.Code == http.StatusForbidden && rateLimited(gerr)
	}
	var rerr *oauth2.RetrieveError
	if errors.As(err, &rerr) && rerr.Response != nil {
		return rerr.Response.StatusCode == http.StatusTooManyRequests || rerr.Response.StatusCode >= 500
	}
	return true // network errors, timeouts, truncated answers
}

// rateLimited reports Google Calendar's 403 flavour of "slow down".
func rateLimited(gerr *googleapi.Error) bool {
	for _, item := range gerr.Errors {
		switch item.Reason {
		case "rateLimitExceeded", "userRateLimitExceeded", "quotaExceeded":
			return true
		}
	}
	return false
}

// retryAfter reads a Retry-After header (seconds or an HTTP date).
func retryAfter(err error, now time.Time) time.Duration {
	var h http.Header
	var gerr *googleapi.Error
	var rerr *oauth2.RetrieveError
	switch {
	case errors.As(err, &gerr):
		h = gerr.Header
	case errors.As(err, &rerr) && rerr.Response != nil:
		h = rerr.Response.Header
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(v); err == nil && secs > 0 {
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// logChange logs a failure when it first appears or changes, and the
// recovery, rather than every retry.
func (c *Cache) logChange(err error, last *string, delay time.Duration) {
	switch {
	case err == nil && *last != "":
		c.log.Info("calendar: busy times refreshed again")
		*last = ""
	case err != nil && err.Error() != *last:
		c.log.Warn("calendar: refresh failed; serving the last busy times", "err", err, "retry_in", delay)
		*last = err.Error()
	}
}
