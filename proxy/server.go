// Package proxy is MetaClaw's hot path: the Fiber server that agents call
// instead of their LLM provider. It owns the routes, authentication, the
// upstream client, the SSE relay, injection and turn capture. Wire formats
// and translation live in proxy/openai, proxy/anthropic and proxy/sse
// (pure, no Fiber); the types it shares with the learner (events, messages,
// the Injector) in proxy/learning. It declares the small interfaces it needs (Recorder,
// Policy) and imports store, store/config and proxy/* only; app wires it up.
package proxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/recover"
	"github.com/metaclaw/metaclaw/proxy/learning"
	"github.com/metaclaw/metaclaw/store/config"
	"github.com/valyala/fasthttp"
)

// DefaultMaxAnswerBytes is Options.MaxAnswerBytes when unset.
const DefaultMaxAnswerBytes = 64 << 20

// Options configures a Server.
type Options struct {
	Config config.Config
	Logger *slog.Logger
	// Health returns extra fields for GET /healthz (pid, mode, version...).
	Health func() map[string]any
	// Recorder stores turns; nil records nothing.
	Recorder Recorder
	// Injectors add skills and memories to main turns, in order.
	Injectors []learning.Injector
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// RecordQueue is the recorder's queue length (default 4096).
	RecordQueue int
	// MaxAnswerBytes bounds a non-streamed upstream answer, which the proxy
	// reads whole to translate and record it (default 64 MiB); a larger
	// one is answered 502. Streamed answers are bounded per event instead.
	MaxAnswerBytes int64
	// Memory serves /v1/memory/* (memapi); nil answers them 404.
	Memory MemoryAPI
	// Trainer serves POST /v1/admin/train_step; nil answers it 503.
	Trainer TrainStepper
	// HeaderTimeout bounds the wait for a request's headers (10 s when
	// zero): a slow client cannot hold a connection longer.
	HeaderTimeout time.Duration
	// Policy serves chat turns from the trained model when the mode is rl
	// or madmax and it is ready; nil (or skills_only) uses llm.* only.
	Policy Policy
}

// Server is the proxy's HTTP server.
type Server struct {
	opts         Options
	lv           atomic.Pointer[live] // the configuration in force (live.go)
	log          *slog.Logger
	app          *fiber.App
	ln           net.Listener
	policy       *upstream // nil unless a Policy is set and the mode trains
	policyClient *client
	rec          *asyncRecorder
	cutsWarned   onceSet         // sessions whose cut was logged
	failures     failureLog      // the upstream's failures
	modelsKick   chan struct{}   // a new upstream's model list is wanted (capacity 1)
	budget       *budget         // proxy.max_inflight_bytes
	baseCtx      context.Context // cancelled when Serve returns: ends upstream calls
	cancelAll    context.CancelFunc
}

// New builds a server; Listen binds it and Serve runs it.
func New(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.RecordQueue == 0 {
		opts.RecordQueue = 4096
	}
	if opts.HeaderTimeout <= 0 {
		opts.HeaderTimeout = headerTimeout
	}
	if opts.MaxAnswerBytes <= 0 {
		opts.MaxAnswerBytes = DefaultMaxAnswerBytes
	}
	cfg := opts.Config
	s := &Server{opts: opts, log: opts.Logger, modelsKick: make(chan struct{}, 1)}
	s.lv.Store(newLive(cfg, nil))
	s.baseCtx, s.cancelAll = context.WithCancel(context.Background())
	if opts.Policy != nil && cfg.Resolve().Mode != config.ModeSkillsOnly {
		s.policy, s.policyClient = newPolicyUpstream(opts.Policy)
	}
	if opts.Recorder != nil {
		s.rec = newAsyncRecorder(opts.Recorder, s.log, opts.RecordQueue, opts.Now)
	}
	s.budget = newBudget(func() int64 { return int64(s.conf().Proxy.MaxInflightBytes) })
	s.app = fiber.New(fiber.Config{
		DisableStartupMessage: true,
		BodyLimit:             cfg.Proxy.MaxBodyBytes,
		// Headers get headerTimeout; HeaderReceived gives the body
		// bodyTimeout, which readBody reads (StreamRequestBody).
		ReadTimeout:       opts.HeaderTimeout,
		IdleTimeout:       2 * time.Minute,
		ReadBufferSize:    readBufferSize,
		StreamRequestBody: true,
		ErrorHandler:      errorHandler,
		// Bodies are the handlers' to read (a multipart body is relayed
		// as sent, not parsed).
		DisablePreParseMultipartForm: true,
		AppName:                      "metaclaw",
	})
	s.app.Server().ErrorHandler = headerErrorHandler(s.app.Server().ErrorHandler)
	s.app.Server().HeaderReceived = func(*fasthttp.RequestHeader) fasthttp.RequestConfig {
		return fasthttp.RequestConfig{ReadTimeout: bodyTimeout}
	}
	s.routes()
	return s
}

func (s *Server) routes() {
	s.app.Use(recover.New(), closeUnread, s.guardHost)
	s.app.Get("/healthz", s.healthz)
	v1 := s.app.Group("/v1", s.guardBrowser, s.authenticate, s.readBody)
	v1.Post("/chat/completions", s.handleChat)
	v1.Post("/messages", s.handleMessages)
	v1.All("/chat/completions", methodNotAllowed)
	v1.All("/messages", methodNotAllowed)
	v1.Get("/models", s.handleModels)
	s.memoryRoutes(v1)
	s.adminRoutes(v1)
	v1.All("/*", s.handlePassthrough)
}

func (s *Server) healthz(c *fiber.Ctx) error {
	body := map[string]any{"status": "ok", "service": "metaclaw"}
	if s.opts.Health != nil {
		for k, v := range s.opts.Health() {
			body[k] = v
		}
	}
	if s.rec != nil {
		body["recorder"] = s.rec.stats()
	}
	body["inflight_bytes"] = s.budget.inUse()
	return c.JSON(body)
}

// methodNotAllowed answers a model endpoint asked with another method than
// POST, in its API's shape, instead of relaying it.
func methodNotAllowed(c *fiber.Ctx) error {
	c.Set(fiber.HeaderAllow, http.MethodPost)
	return sendError(c, http.StatusMethodNotAllowed, "method_not_allowed", c.Method()+" is not allowed on "+c.Path()+"; use POST")
}

// authenticate checks proxy.api_key, when one is set, in constant time.
// With forward_client_auth the caller's Authorization / x-api-key belong
// to the upstream, so the proxy key is then read from X-MetaClaw-Key.
func (s *Server) authenticate(c *fiber.Ctx) error {
	want := s.conf().Proxy.APIKey
	if want == "" {
		return c.Next()
	}
	presented := c.Get("X-MetaClaw-Key")
	if presented == "" && !s.conf().Proxy.ForwardClientAuth {
		presented = credentialOf(c.Get(fiber.HeaderAuthorization), c.Get("X-Api-Key"))
	}
	if !checkKey(presented, want) {
		return sendError(c, fiber.StatusUnauthorized, "invalid_api_key", "invalid or missing proxy API key")
	}
	return c.Next()
}

// Stats returns the recorder's counters (zero when nothing is recorded).
func (s *Server) Stats() RecorderStats {
	if s.rec == nil {
		return RecorderStats{}
	}
	return s.rec.stats()
}

// Events returns the channel of turn-recorded and session-ended events for
// the learner; nil when nothing is recorded. Events nobody reads in time
// are dropped and counted.
func (s *Server) Events() <-chan learning.Event {
	if s.rec == nil {
		return nil
	}
	return s.rec.events
}

// Listen binds the listening socket, so that an address in use is reported
// before anything else starts.
func (s *Server) Listen(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("proxy listen on %s: %w", addr, err)
	}
	s.ln = newConnLimiter(ln, func() int { return s.conf().Proxy.MaxConnsPerAddress }, lingerBytes+2*int64(s.opts.Config.Proxy.MaxBodyBytes))
	return nil
}

// Addr returns the bound address, e.g. "127.0.0.1:30000".
func (s *Server) Addr() string {
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

// Serve answers requests until ctx is cancelled, then stops accepting, lets
// in-flight requests finish for up to grace, and writes the turns still
// queued. Its background work (recorder, session reaper, model list) ends
// before it returns.
func (s *Server) Serve(ctx context.Context, grace time.Duration) error {
	if s.ln == nil {
		return errors.New("proxy: Serve before Listen")
	}
	bg, stopBG := context.WithCancel(context.Background())
	done := s.startBackground(bg, grace)
	errc := make(chan error, 1)
	go func() { errc <- s.app.Listener(s.ln) }()
	var serveErr error
	select {
	case err := <-errc:
		serveErr = fmt.Errorf("proxy serve: %w", err)
	case <-ctx.Done():
		if err := s.app.ShutdownWithTimeout(grace); err != nil {
			s.log.Warn("proxy shutdown", "err", err)
		}
		// A shutdown that came before fiber took the listener stops
		// nothing; closing the listener makes that late Listener return.
		_ = s.ln.Close()
		<-errc
	}
	s.cancelAll()
	stopBG()
	<-done
	return serveErr
}

// startBackground runs the recorder, the session reaper and the model-list
// refresher; the returned channel is closed when all have ended.
func (s *Server) startBackground(ctx context.Context, drain time.Duration) <-chan struct{} {
	done := make(chan struct{})
	var tasks []func()
	if s.rec != nil {
		idle := time.Duration(s.conf().Proxy.SessionIdleMinutes) * time.Minute
		tasks = append(tasks,
			func() { s.rec.run(ctx, drain) },
			func() { s.rec.reap(ctx, idle, min(idle/4, time.Minute)) })
	}
	tasks = append(tasks, func() { s.refreshModels(ctx) })
	remaining := make(chan struct{}, len(tasks))
	for _, task := range tasks {
		go func() { task(); remaining <- struct{}{} }()
	}
	go func() {
		for range tasks {
			<-remaining
		}
		close(done)
	}()
	return done
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
