package faketinker

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Options configure a Server. Zero values take the documented defaults.
type Options struct {
	// Addr is where to listen (default "127.0.0.1:0").
	Addr string
	// APIKey is the key clients must send as X-API-Key (default "tml-fake-key").
	APIKey string
	// PathPrefix is put before /api/v1 (e.g. "/train", as MinT has).
	PathPrefix string
	// TokenizerID is get_info's model_data.tokenizer_id (default: the
	// model's base model name).
	TokenizerID string
	// SupportedModels are listed by get_server_capabilities (default a few
	// Qwen and Llama names). Any base model is accepted.
	SupportedModels []string
	// MaxContextLength is every supported model's max_context_length
	// (default 32768).
	MaxContextLength int
	// VocabLo and VocabHi bound the default sampler's tokens, [lo, hi)
	// (default [1000, 2000)).
	VocabLo, VocabHi int
	// MaxSampleLen bounds the default sampler's completion length when the
	// request sets no max_tokens (default 16).
	MaxSampleLen int
	// StopStringTokens maps stop strings to the token ids that end a
	// sample, since the fake has no tokenizer.
	StopStringTokens map[string]int
	// TryAgainPolls: each future first answers this many polls with
	// try_again (or 408, with TryAgain408).
	TryAgainPolls int
	TryAgain408   bool
	// LongPoll is how long retrieve_future waits for a pending request
	// before answering try_again (default 200 ms).
	LongPoll time.Duration
	// SampleDelay and SampleTokenDelay delay each sample's completion by
	// SampleDelay plus SampleTokenDelay per generated token.
	SampleDelay, SampleTokenDelay time.Duration
	// Flags override or add client/config flags.
	Flags map[string]any
	// JWT makes client/config ask for the JWT exchange: auth/token trades
	// the key for a JWT, which then must be sent in X-API-Key.
	JWT bool
	// Now tells time for heartbeats (default time.Now).
	Now func() time.Time
}

func (o Options) withDefaults() Options {
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	def(&o.Addr, "127.0.0.1:0")
	def(&o.APIKey, "tml-fake-key")
	o.PathPrefix = strings.TrimRight(o.PathPrefix, "/")
	if len(o.SupportedModels) == 0 {
		o.SupportedModels = []string{"Qwen/Qwen3-8B", "Qwen/Qwen3-4B-Instruct-2507", "meta-llama/Llama-3.1-8B-Instruct"}
	}
	if o.MaxContextLength <= 0 {
		o.MaxContextLength = 32768
	}
	if o.VocabHi <= o.VocabLo {
		o.VocabLo, o.VocabHi = 1000, 2000
	}
	if o.MaxSampleLen <= 0 {
		o.MaxSampleLen = 16
	}
	if o.LongPoll <= 0 {
		o.LongPoll = 200 * time.Millisecond
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Server is a fake Tinker service. It is an http.Handler; New also serves
// it on a local listener.
type Server struct {
	opts Options

	lnMu sync.Mutex // guards addr, ln, srv
	addr string
	ln   net.Listener
	srv  *http.Server

	mu sync.Mutex // guards everything below
	st state
}

// New starts a fake service on Options.Addr and panics if it cannot
// listen, like httptest.NewServer. Close it when done.
func New(opts Options) *Server {
	s, err := Start(opts)
	if err != nil {
		panic(err)
	}
	return s
}

// Start is New returning the listen error.
func Start(opts Options) (*Server, error) {
	s := NewHandler(opts)
	if err := s.listen(s.opts.Addr); err != nil {
		return nil, err
	}
	return s, nil
}

// NewHandler returns a fake service that is not listening, to mount as an
// http.Handler; URL, SetDown(DownRefuse) and Close do nothing useful then.
func NewHandler(opts Options) *Server {
	s := &Server{opts: opts.withDefaults()}
	s.st = newState(s.opts)
	return s
}

func (s *Server) listen(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("faketinker: listen %s: %w", addr, err)
	}
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	s.lnMu.Lock()
	s.addr, s.ln, s.srv = ln.Addr().String(), ln, srv
	s.lnMu.Unlock()
	go func() { _ = srv.Serve(ln) }()
	return nil
}

// URL is the base URL to give a client: http://127.0.0.1:port plus the
// path prefix.
func (s *Server) URL() string {
	s.lnMu.Lock()
	defer s.lnMu.Unlock()
	return "http://" + s.addr + s.opts.PathPrefix
}

// APIKey is the key the server accepts.
func (s *Server) APIKey() string { return s.opts.APIKey }

// Close stops serving and ends pending long polls.
func (s *Server) Close() {
	s.stopListening()
	s.mu.Lock()
	s.st.closed = true
	s.mu.Unlock()
}

func (s *Server) stopListening() {
	s.lnMu.Lock()
	srv := s.srv
	s.srv, s.ln = nil, nil
	s.lnMu.Unlock()
	if srv != nil {
		srv.SetKeepAlivesEnabled(false)
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		if srv.Shutdown(ctx) != nil {
			_ = srv.Close()
		}
	}
}

// call is one request as the handlers see it.
type call struct {
	endpoint string
	body     []byte
	idem     string
	header   http.Header
}

// reply is a handler's answer.
type reply struct {
	status int
	body   any
	header map[string]string
}

func ok(body any) reply { return reply{status: http.StatusOK, body: body} }

func fail(status int, format string, args ...any) reply {
	return reply{status: status, body: detail(fmt.Sprintf(format, args...))}
}

// ServeHTTP routes /api/v1/<endpoint> (under PathPrefix) to the handlers.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	endpoint, found := strings.CutPrefix(r.URL.Path, s.opts.PathPrefix+"/api/v1/")
	body, err := io.ReadAll(io.LimitReader(r.Body, 256<<20))
	c := &call{endpoint: endpoint, body: body, idem: r.Header.Get("X-Idempotency-Key"), header: r.Header}
	var rep reply
	switch {
	case err != nil:
		rep = fail(http.StatusBadRequest, "read body: %v", err)
	case !found:
		rep = fail(http.StatusNotFound, "no such endpoint %s", r.URL.Path)
	default:
		rep = s.serve(r.Context(), r.Method, c)
	}
	s.logRequest(c, rep)
	write(w, rep)
}

func write(w http.ResponseWriter, rep reply) {
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	var b []byte
	switch v := rep.body.(type) {
	case nil:
	case []byte:
		b = v
	default:
		b, _ = json.Marshal(v)
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(rep.status)
	_, _ = w.Write(b)
}

// serve applies the service-wide rules (down, auth, faults, idempotency)
// and then the endpoint's handler.
func (s *Server) serve(ctx context.Context, method string, c *call) reply {
	if rep, stop := s.gate(c); stop {
		return rep
	}
	h, found := s.route(c.endpoint)
	if !found {
		return fail(http.StatusNotFound, "no such endpoint %s", c.endpoint)
	}
	if h.get != (method == http.MethodGet) {
		return fail(http.StatusMethodNotAllowed, "%s does not take %s", c.endpoint, method)
	}
	if rep, hit := s.replay(c); hit {
		return rep
	}
	rep := h.fn(ctx, c)
	s.remember(c, rep)
	return rep
}

// gate answers for a down service, a bad credential or an injected fault.
func (s *Server) gate(c *call) (reply, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.down == Down503 {
		return fail(http.StatusServiceUnavailable, "service unavailable"), true
	}
	if !s.authorized(c) {
		return fail(http.StatusUnauthorized, "invalid api key"), true
	}
	if f, found := s.st.popFault(c.endpoint); found {
		return f.reply(), true
	}
	return reply{}, false
}

// authorized checks X-API-Key: the key, or in JWT mode an issued JWT (the
// key alone then only opens auth/token). healthz needs no key.
func (s *Server) authorized(c *call) bool {
	k := c.header.Get("X-API-Key")
	switch {
	case c.endpoint == "healthz":
		return true
	case !s.opts.JWT || c.endpoint == "auth/token" || c.endpoint == "client/config":
		return k == s.opts.APIKey
	}
	return s.st.jwts[k]
}

// replay answers a repeated idempotency key with the first answer.
func (s *Server) replay(c *call) (reply, bool) {
	if c.idem == "" || c.endpoint == "retrieve_future" {
		return reply{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	prev, found := s.st.idem[c.idem]
	if !found {
		return reply{}, false
	}
	if prev.hash != sha256.Sum256(c.body) {
		return fail(http.StatusBadRequest, "idempotency key reused with a different body"), true
	}
	return prev.rep, true
}

// remember stores a successful answer under its idempotency key.
func (s *Server) remember(c *call, rep reply) {
	if c.idem == "" || c.endpoint == "retrieve_future" || rep.status != http.StatusOK {
		return
	}
	s.mu.Lock()
	s.st.idem[c.idem] = idemEntry{hash: sha256.Sum256(c.body), rep: rep}
	s.mu.Unlock()
}

// decode reads a JSON body into v, or says why not.
func decode(c *call, v any) (reply, bool) {
	if err := json.Unmarshal(c.body, v); err != nil {
		return fail(http.StatusBadRequest, "%s: bad json: %v", c.endpoint, err), false
	}
	return reply{}, true
}
