package weaver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/internal/wait"
	"github.com/metaclaw/metaclaw/app/learner/tinker"
)

// DefaultBaseURL is Weaver's console, which the reference README shows.
const DefaultBaseURL = tinker.WeaverBaseURL

// DefaultSDKVersion is sent as sdk_version when creating a session: the
// nex-weaver release whose protocol this client follows.
const DefaultSDKVersion = "1.19.2"

// DefaultUserAgent names MetaClaw to the service.
const DefaultUserAgent = "MetaClaw (Go Weaver client)"

// Options configure a Client. Zero values take the documented defaults.
type Options struct {
	// BaseURL is rl.base_url, without /api/v1 (default DefaultBaseURL).
	BaseURL string
	// APIKey is sent as X-WEAVER-API-KEY; never logged or put in errors.
	APIKey string
	// Tags label the session (default ["metaclaw"]).
	Tags []string
	// HTTPClient does the requests (default: 5 s connect timeout).
	HTTPClient *http.Client
	// Logger receives warnings (default slog.Default()).
	Logger *slog.Logger
	// HeartbeatInterval is the period of Serve's heartbeat (default 30 s,
	// the SDK's).
	HeartbeatInterval time.Duration
	// PollInterval is the first wait between operation polls, doubling to
	// 2 s (default 100 ms).
	PollInterval time.Duration
	// Now tells the time for heartbeat health (default time.Now).
	Now func() time.Time
}

func (o Options) normalize() (Options, error) {
	if strings.TrimSpace(o.APIKey) == "" {
		return o, errors.New("weaver: no api key (rl.api_key)")
	}
	if o.BaseURL == "" {
		o.BaseURL = DefaultBaseURL
	}
	u, err := url.Parse(o.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return o, errors.New("weaver: base url must be an http(s) URL (rl.base_url)")
	}
	o.BaseURL = strings.TrimRight(o.BaseURL, "/")
	if len(o.Tags) == 0 {
		o.Tags = []string{"metaclaw"}
	}
	if o.HTTPClient == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.DialContext = (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext
		o.HTTPClient = &http.Client{Transport: t}
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.HeartbeatInterval <= 0 {
		o.HeartbeatInterval = 30 * time.Second
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 100 * time.Millisecond
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o, nil
}

// Client talks to one Weaver service. It is safe for concurrent use.
type Client struct {
	opts Options
	log  *slog.Logger

	mu         sync.Mutex // guards sessionID, modelSeq, samplerSeq, opSeq
	sessionID  string
	modelSeq   int            // last model_seq_id
	samplerSeq int            // last sampling_session_seq_id
	opSeq      map[string]int // last seq_id per model

	hbMu sync.Mutex // guards hb
	hb   tinker.HeartbeatStatus
}

// New checks the options and returns a client. It does no I/O.
func New(opts Options) (*Client, error) {
	o, err := opts.normalize()
	if err != nil {
		return nil, err
	}
	return &Client{opts: o, log: o.Logger, opSeq: map[string]int{}}, nil
}

// Close drops idle connections. The session ends on the service when its
// heartbeats stop.
func (c *Client) Close() error {
	c.opts.HTTPClient.CloseIdleConnections()
	return nil
}

// Start creates a session. Calling it again starts a new one.
func (c *Client) Start(ctx context.Context) error {
	body := map[string]any{"tags": c.opts.Tags, "user_metadata": map[string]any{}, "sdk_version": DefaultSDKVersion}
	var resp map[string]any
	if err := c.call(ctx, http.MethodPost, "/api/v1/sessions", body, &resp, retryTransient); err != nil {
		return err
	}
	id := lookupString(resp, "id")
	if id == "" {
		return errors.New("weaver: create session: no id in the answer")
	}
	now := c.opts.Now()
	c.mu.Lock()
	c.sessionID, c.modelSeq, c.samplerSeq = id, 0, 0
	c.mu.Unlock()
	c.hbMu.Lock()
	c.hb = tinker.HeartbeatStatus{SessionID: id, Healthy: true, LastSuccess: now}
	c.hbMu.Unlock()
	return nil
}

// StartRetrying calls Start until it succeeds, waiting a second after the
// first failure, doubling up to a minute; onFail hears each failure. It
// reports false when ctx ended first.
func (c *Client) StartRetrying(ctx context.Context, onFail func(err error, next time.Duration)) bool {
	return wait.Until(ctx, time.Second, time.Minute, func() error { return c.Start(ctx) }, onFail)
}

// SessionID is the current session ("" before Start).
func (c *Client) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessionID
}

func (c *Client) session() (string, error) {
	if id := c.SessionID(); id != "" {
		return id, nil
	}
	return "", tinker.ErrNotStarted
}

// heartbeatGrace is how long without a successful heartbeat the session
// still counts as healthy, as for Tinker.
const heartbeatGrace = 120 * time.Second

// Serve sends a heartbeat every HeartbeatInterval until ctx ends, then
// returns nil. Start must have been called.
func (c *Client) Serve(ctx context.Context) error {
	if _, err := c.session(); err != nil {
		return err
	}
	t := time.NewTicker(c.opts.HeartbeatInterval)
	defer t.Stop()
	for {
		c.heartbeat(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

func (c *Client) heartbeat(ctx context.Context) {
	id, err := c.session()
	if err != nil {
		return
	}
	hctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	err = c.call(hctx, http.MethodPost, "/api/v1/sessions/"+url.PathEscape(id)+"/heartbeat", nil, nil, noRetry)
	if ctx.Err() != nil {
		return
	}
	now := c.opts.Now()
	c.hbMu.Lock()
	defer c.hbMu.Unlock()
	h := &c.hb
	h.LastAttempt, h.LastError = now, err
	if err == nil {
		h.LastSuccess, h.Failures = now, 0
	} else {
		h.Failures++
	}
}

// Heartbeat returns the heartbeat's state.
func (c *Client) Heartbeat() tinker.HeartbeatStatus {
	id := c.SessionID()
	now := c.opts.Now()
	c.hbMu.Lock()
	defer c.hbMu.Unlock()
	h := c.hb
	h.SessionID = id
	h.Healthy = id != "" && now.Sub(h.LastSuccess) <= heartbeatGrace
	return h
}

// nextSeq hands out the next operation seq_id of a model (1, 2, 3, ...).
func (c *Client) nextSeq(modelID string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.opSeq[modelID]++
	return c.opSeq[modelID]
}

func (c *Client) errorf(op, format string, args ...any) error {
	return fmt.Errorf("weaver: %s: "+format, append([]any{op}, args...)...)
}
