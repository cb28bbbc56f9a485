package policy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/backend"
	"github.com/metaclaw/metaclaw/app/learner/tinker"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// Headers between the proxy and its policy; the same values as the proxy's
// PolicySessionHeader, PolicyTurnTypeHeader and PolicySampleHeader.
const (
	SessionHeader  = "X-Metaclaw-Session-Id"
	TurnTypeHeader = "X-Metaclaw-Turn-Type"
	SampleHeader   = "X-Metaclaw-Sample-Id"
)

// Store is what the Server needs of the database; *store.DB has it.
type Store interface {
	InsertSample(ctx context.Context, s *store.Sample) error
	ServingCheckpoint(ctx context.Context) (string, error)
	SkillGeneration(ctx context.Context) (int, error)
}

var _ Store = (*store.DB)(nil)

// Options configure a Server. Zero values take the documented defaults.
type Options struct {
	// RL is the rl.* configuration: model, backend, base_url, api_key,
	// tokenizer, hf_endpoint and max_tokens are used.
	RL config.RL
	// DataDir is the data directory; tokenizers are cached in
	// DataDir/tokenizers/<repo>/. Required.
	DataDir string
	// DB records samples and tells the serving checkpoint and the skill
	// generation; nil records nothing and serves the base model unless
	// UseCheckpoint says otherwise.
	DB Store
	// Logger receives the Server's log (default: discarded).
	Logger *slog.Logger
	// HFToken is sent to the Hugging Face Hub as a bearer token when set
	// (for gated repos); it is never logged.
	HFToken string
	// HubClient fetches from the Hugging Face Hub (default: a client with
	// a 2 minute timeout).
	HubClient *http.Client
	// TinkerHTTPClient does the Tinker requests (default: the tinker
	// package's).
	TinkerHTTPClient *http.Client
	// HeartbeatInterval is the Tinker session heartbeat period (default
	// 10 s).
	HeartbeatInterval time.Duration
	// PollInterval is how often Serve checks the heartbeat and re-reads
	// the serving checkpoint from DB (default 3 s).
	PollInterval time.Duration
	// RetryInterval is the first wait before retrying a failed set-up
	// step; it doubles up to 30 s (default 1 s).
	RetryInterval time.Duration
	// SampleTimeout bounds one request's sampling (default 5 min).
	SampleTimeout time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.HubClient == nil {
		o.HubClient = &http.Client{Timeout: 2 * time.Minute}
	}
	o.HeartbeatInterval = cmpOr(o.HeartbeatInterval, 10*time.Second)
	o.PollInterval = cmpOr(o.PollInterval, 3*time.Second)
	o.RetryInterval = cmpOr(o.RetryInterval, time.Second)
	o.SampleTimeout = cmpOr(o.SampleTimeout, 5*time.Minute)
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.RL.MaxTokens <= 0 {
		o.RL.MaxTokens = 4096
	}
	o.RL.HFEndpoint = strings.TrimRight(cmpOr(o.RL.HFEndpoint, "https://huggingface.co"), "/")
	return o
}

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// Server serves chat turns from the policy. Make it with New, run Serve,
// and hand it to the proxy as its Policy. All methods are safe for
// concurrent use.
type Server struct {
	opts   Options
	log    *slog.Logger
	client backend.Client // nil when rl.api_key is not set
	hub    hub

	rt      atomic.Pointer[runtime] // tokenizer and template, once loaded
	cur     atomic.Pointer[sampler] // the sampling session new requests use
	verdict atomic.Pointer[verdict] // what Ready answers
	kick    chan struct{}           // wakes the swapper (capacity 1)

	// insertMu serialises sample inserts: SQLite has one writer at a time,
	// and concurrent requests queueing here rather than in SQLite's busy
	// handler never time out.
	insertMu sync.Mutex

	mu     sync.Mutex // guards want, dbSeen, h, down and downed
	want   string     // the checkpoint to serve ("" = the base model)
	dbSeen string     // the serving checkpoint last read from DB
	h      health
	down   chan struct{} // closed while the service is found down
	downed bool          // down is closed
}

// verdict is Ready's answer.
type verdict struct {
	ok     bool
	reason string
}

// health is what decides Ready, guarded by Server.mu.
type health struct {
	noKey       bool
	connected   bool
	connectErr  error
	heartbeatOK bool
	heartbeat   error
	sampleErr   error // the service failed a sample; cleared by a later heartbeat
	sampleErrAt time.Time
	repo        string
	tokErr      error
	swapErr     error // opening a sampling session for want failed
}

// New checks the options and returns a Server. It does no I/O. A missing
// rl.api_key is not an error: the Server then reports not ready.
func New(opts Options) (*Server, error) {
	o := opts.withDefaults()
	if o.DataDir == "" {
		return nil, errors.New("policy: no data directory")
	}
	if o.RL.Model == "" {
		return nil, errors.New("policy: rl.model is not set")
	}
	s := &Server{opts: o, log: o.Logger, kick: make(chan struct{}, 1), down: make(chan struct{}),
		hub: hub{endpoint: o.RL.HFEndpoint, token: o.HFToken, dir: tokenizerDir(o.DataDir), http: o.HubClient}}
	if strings.TrimSpace(o.RL.APIKey) == "" {
		s.h.noKey = true
	} else {
		c, err := backend.New(tinker.Options{Backend: o.RL.Backend, BaseURL: o.RL.BaseURL, APIKey: o.RL.APIKey,
			HTTPClient: o.TinkerHTTPClient, Logger: o.Logger, HeartbeatInterval: o.HeartbeatInterval, Now: o.Now,
			Tags: []string{"metaclaw", "policy"}})
		if err != nil {
			return nil, fmt.Errorf("policy: %w", err)
		}
		s.client = c
	}
	s.updateLocked()
	return s, nil
}

// Ready reports whether the Server can serve now and, when it cannot, why.
// It reads one atomic value.
func (s *Server) Ready() (bool, string) {
	v := s.verdict.Load()
	return v.ok, v.reason
}

// Status is the Server's state, for status displays.
type Status struct {
	Ready  bool
	Reason string // why not ready
	// BaseModel is rl.model.
	BaseModel string
	// Serving is the sampler checkpoint new requests use ("" = the base
	// model, also before any sampling session exists).
	Serving string
	// Wanted is the checkpoint to serve; it differs from Serving while a
	// swap is under way or failing.
	Wanted string
	// SwapError is why opening a sampling session for Wanted failed.
	SwapError string
	// TokenizerRepo is the Hugging Face repo of the tokenizer.
	TokenizerRepo string
	// SessionID is the Tinker session.
	SessionID string
}

// Status returns the Server's state.
func (s *Server) Status() Status {
	ok, reason := s.Ready()
	st := Status{Ready: ok, Reason: reason, BaseModel: s.opts.RL.Model, Serving: s.Serving()}
	s.mu.Lock()
	st.Wanted, st.TokenizerRepo = s.want, s.h.repo
	if s.h.swapErr != nil {
		st.SwapError = s.h.swapErr.Error()
	}
	s.mu.Unlock()
	if s.client != nil {
		st.SessionID = s.client.SessionID()
	}
	return st
}

// Serving returns the sampler checkpoint new requests use ("" = the base
// model).
func (s *Server) Serving() string {
	if sm := s.cur.Load(); sm != nil {
		return sm.path
	}
	return ""
}

// setHealth changes the health under the lock and recomputes Ready.
func (s *Server) setHealth(f func(h *health)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.h)
	s.updateLocked()
}

// updateLocked recomputes Ready's answer; s.mu must be held (or s not yet
// shared).
func (s *Server) updateLocked() {
	h := &s.h
	cur := s.cur.Load()
	var reason string
	switch {
	case h.noKey:
		reason = "rl.api_key is not set"
	case !h.connected && h.connectErr != nil:
		reason = connectReason(h.connectErr)
	case !h.connected:
		reason = "connecting to the training service"
	case !h.heartbeatOK:
		reason = "training service unreachable: heartbeat failing: " + errText(h.heartbeat)
	case h.sampleErr != nil:
		reason = "training service failing: " + h.sampleErr.Error()
	case s.rt.Load() == nil && h.tokErr != nil:
		reason = fmt.Sprintf("tokenizer %s not loaded: %v", h.repo, h.tokErr)
	case s.rt.Load() == nil:
		reason = "loading the tokenizer"
	case (cur == nil || cur.broken.Load()) && h.swapErr != nil:
		reason = "cannot open a sampling session: " + h.swapErr.Error()
	case cur == nil || cur.broken.Load():
		reason = "opening a sampling session"
	}
	s.verdict.Store(&verdict{ok: reason == "", reason: reason})
	down := h.sampleErr != nil || (h.connected && !h.heartbeatOK)
	switch {
	case down && !s.downed:
		close(s.down)
		s.downed = true
	case !down && s.downed:
		s.down, s.downed = make(chan struct{}), false
	}
}

// outage returns a channel that is closed when the service is found down
// (heartbeat or sampling failing), for requests waiting on it.
func (s *Server) outage() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.down
}

// connectReason says why the session could not be started.
func connectReason(err error) string {
	var ce *tinker.ConnError
	if errors.As(err, &ce) {
		return "training service unreachable: " + err.Error()
	}
	return "training service refused the session: " + err.Error()
}

func errText(err error) string {
	if err == nil {
		return "no answer"
	}
	return err.Error()
}
