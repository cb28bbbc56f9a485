package tinker

import (
	"context"
	"time"
)

const (
	heartbeatTimeout = 10 * time.Second
	// heartbeatGrace is how long the session may go without a successful
	// heartbeat before the client warns that the service may end it.
	heartbeatGrace = 120 * time.Second
)

// heartbeatState is the heartbeat's record, guarded by Client.hbMu.
type heartbeatState struct {
	lastSuccess time.Time
	lastAttempt time.Time
	lastErr     error
	failures    int  // consecutive
	warned      bool // the 120 s warning was logged since the last success
}

// HeartbeatStatus is the heartbeat's state, for status displays.
type HeartbeatStatus struct {
	SessionID   string
	Healthy     bool      // a heartbeat succeeded within the last 120 s
	LastSuccess time.Time // or the session's start
	LastAttempt time.Time
	LastError   error // of the latest attempt; nil after a success
	Failures    int   // consecutive failed heartbeats
}

// Serve sends a session heartbeat every HeartbeatInterval (10 s) until ctx
// ends, then returns nil. Each heartbeat has a 10 s timeout and no retries;
// after 120 s without a successful one it logs a warning (once until the
// next success). It also refreshes a JWT credential before it expires.
// Start must have been called.
func (c *Client) Serve(ctx context.Context) error {
	if _, err := c.session(); err != nil {
		return err
	}
	t := time.NewTicker(c.opts.HeartbeatInterval)
	defer t.Stop()
	for {
		c.maybeRefreshJWT(ctx, jwtRefreshAhead)
		c.heartbeat(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// heartbeat sends one session_heartbeat and records the outcome.
func (c *Client) heartbeat(ctx context.Context) {
	id, err := c.session()
	if err != nil {
		return
	}
	body, err := marshal("session_heartbeat", map[string]string{"type": "session_heartbeat", "session_id": id})
	if err == nil {
		err = c.do(ctx, "session_heartbeat", body, nil, callOpts{noRetry: true, timeout: heartbeatTimeout})
	}
	if ctx.Err() != nil {
		return
	}
	c.recordHeartbeat(err)
}

func (c *Client) recordHeartbeat(err error) {
	now := c.opts.Now()
	c.hbMu.Lock()
	defer c.hbMu.Unlock()
	h := &c.hb
	h.lastAttempt, h.lastErr = now, err
	if err == nil {
		h.lastSuccess, h.failures, h.warned = now, 0, false
		return
	}
	h.failures++
	if since := now.Sub(h.lastSuccess); since > heartbeatGrace && !h.warned {
		h.warned = true
		c.log.Warn("tinker: no successful heartbeat; the service may end the session",
			"since", since.Round(time.Second), "failures", h.failures, "err", err)
	}
}

// Healthy reports whether the session exists and a heartbeat succeeded
// (or the session started) within the last 120 s.
func (c *Client) Healthy() bool { return c.Heartbeat().Healthy }

// Heartbeat returns the heartbeat's state.
func (c *Client) Heartbeat() HeartbeatStatus {
	id := c.SessionID()
	now := c.opts.Now()
	c.hbMu.Lock()
	defer c.hbMu.Unlock()
	h := c.hb
	return HeartbeatStatus{
		SessionID:   id,
		Healthy:     id != "" && now.Sub(h.lastSuccess) <= heartbeatGrace,
		LastSuccess: h.lastSuccess,
		LastAttempt: h.lastAttempt,
		LastError:   h.lastErr,
		Failures:    h.failures,
	}
}
