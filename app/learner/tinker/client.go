package tinker

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/internal/wait"
)

// Client talks to one Tinker-compatible service on behalf of one session.
// Make it with New, call Start, and run Serve for the heartbeat.
type Client struct {
	opts      Options
	log       *slog.Logger
	life      context.Context // ends at Close; bounds detached submissions
	closeLife context.CancelFunc

	mu         sync.Mutex // guards flags, sessionID, modelSeq, samplerSeq, sampleSem
	flags      Flags
	sessionID  string
	modelSeq   int           // next model_seq_id
	samplerSeq int           // next sampling_session_seq_id
	sampleSem  chan struct{} // bounds asample requests in flight

	sessMu sync.Mutex // serialises use of the session counters with the submission

	pauseMu    sync.Mutex // guards pauseUntil
	pauseUntil time.Time  // client-wide asample back-pressure pause

	hbMu sync.Mutex // guards hb
	hb   heartbeatState

	authMu sync.Mutex // guards jwt and jwtExp
	jwt    string     // short-lived credential, when the service wants one
	jwtExp time.Time
}

// New checks the options and returns a client. It does no I/O.
func New(opts Options) (*Client, error) {
	o, err := opts.normalize()
	if err != nil {
		return nil, err
	}
	life, closeLife := context.WithCancel(context.Background())
	return &Client{opts: o, log: o.Logger, life: life, closeLife: closeLife, flags: DefaultFlags()}, nil
}

// Close aborts submissions in flight (which then break their sequences)
// and drops idle connections. It does not end the session on the service,
// which times out without heartbeats. The client must not be used after.
func (c *Client) Close() error {
	c.closeLife()
	c.opts.HTTPClient.CloseIdleConnections()
	return nil
}

// Start fetches the feature flags (client/config), exchanges the key for a
// JWT when the service asks for it, and creates a session. Calling it again
// starts a new session; Models and SamplingSessions of the old one keep
// their own sequence state.
func (c *Client) Start(ctx context.Context) error {
	flags, err := c.fetchFlags(ctx)
	if err != nil {
		return err
	}
	if flags.PJWTAuthEnabled {
		if err := c.refreshJWT(ctx); err != nil {
			return err
		}
	}
	id, err := c.createSession(ctx)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.flags, c.sessionID, c.modelSeq, c.samplerSeq = flags, id, 0, 0
	c.sampleSem = make(chan struct{}, flags.SampleMaxConcurrentRequests)
	c.mu.Unlock()
	c.hbMu.Lock()
	c.hb = heartbeatState{lastSuccess: c.opts.Now()}
	c.hbMu.Unlock()
	return nil
}

// StartRetrying calls Start until it succeeds, waiting a second after the
// first failure, doubling up to a minute; onFail hears each failure and
// the wait that follows. It reports false when ctx ended first.
func (c *Client) StartRetrying(ctx context.Context, onFail func(err error, next time.Duration)) bool {
	return wait.Until(ctx, time.Second, time.Minute, func() error { return c.Start(ctx) }, onFail)
}

// fetchFlags posts client/config. A 404 means an older service: defaults.
func (c *Client) fetchFlags(ctx context.Context) (Flags, error) {
	body, err := marshal("client/config", map[string]string{"sdk_version": c.opts.SDKVersion})
	if err != nil {
		return Flags{}, err
	}
	flags := DefaultFlags()
	err = c.do(ctx, "client/config", body, &flags, callOpts{})
	if statusOf(err) == http.StatusNotFound {
		c.log.Info("tinker: service has no client/config; using default flags")
		return DefaultFlags(), nil
	}
	if err != nil {
		return Flags{}, err
	}
	return flags.sane(), nil
}

type createSessionRequest struct {
	Type         string            `json:"type"`
	Tags         []string          `json:"tags"`
	UserMetadata map[string]string `json:"user_metadata"`
	SDKVersion   string            `json:"sdk_version"`
	ProjectID    string            `json:"project_id,omitempty"`
}

type createSessionResponse struct {
	SessionID      string `json:"session_id"`
	InfoMessage    string `json:"info_message"`
	WarningMessage string `json:"warning_message"`
	ErrorMessage   string `json:"error_message"`
}

func (c *Client) createSession(ctx context.Context) (string, error) {
	meta := c.opts.UserMetadata
	if meta == nil {
		meta = map[string]string{}
	}
	req := createSessionRequest{Type: "create_session", Tags: c.opts.Tags, UserMetadata: meta,
		SDKVersion: c.opts.SDKVersion, ProjectID: c.opts.ProjectID}
	body, err := marshal("create_session", req)
	if err != nil {
		return "", err
	}
	var resp createSessionResponse
	if err := c.do(ctx, "create_session", body, &resp, callOpts{}); err != nil {
		return "", err
	}
	c.logServiceMessages(resp)
	if resp.SessionID == "" {
		return "", errors.New("tinker: create_session: no session_id in the answer")
	}
	return resp.SessionID, nil
}

func (c *Client) logServiceMessages(r createSessionResponse) {
	if r.InfoMessage != "" {
		c.log.Info("tinker: service says", "message", r.InfoMessage)
	}
	if r.WarningMessage != "" {
		c.log.Warn("tinker: service warns", "message", r.WarningMessage)
	}
	if r.ErrorMessage != "" {
		c.log.Error("tinker: service reports an error", "message", r.ErrorMessage)
	}
}

// SessionID is the current session, or "" before Start.
func (c *Client) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessionID
}

// Flags are the feature flags in force (the defaults before Start).
func (c *Client) Flags() Flags {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.flags
}

// BaseURL is the service root in use.
func (c *Client) BaseURL() string { return c.opts.BaseURL }

// session returns the session id, or ErrNotStarted.
func (c *Client) session() (string, error) {
	if id := c.SessionID(); id != "" {
		return id, nil
	}
	return "", ErrNotStarted
}
