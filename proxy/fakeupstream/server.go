package fakeupstream

import (
	"bytes"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultModels are the model ids listed by GET /v1/models on a new Server.
var DefaultModels = []string{"fake-model", "gpt-4o-mini", "kimi-k2-0905-preview", "claude-sonnet-4-5"}

// DefaultEmbeddingDim is the dimension of embeddings on a new Server.
const DefaultEmbeddingDim = 64

// Server is a fake LLM provider. It is safe for concurrent use. Create it
// with [New], then either [Server.Start] it or mount [Server.Handler].
type Server struct {
	mu         sync.Mutex
	queue      []*compiled
	pathQueues map[string][]*compiled
	def        *compiled
	models     []string
	dim        int
	recordOff  bool
	records    []Recorded

	seq       atomic.Uint64
	done      chan struct{}
	closeOnce sync.Once
	httpSrv   *http.Server
}

// Recorded is one request received by the server.
type Recorded struct {
	Method   string
	Path     string
	RawQuery string
	// Header is a clone of the request headers (canonical keys, e.g.
	// "Authorization", "X-Api-Key", "Anthropic-Version").
	Header http.Header
	Body   []byte
	Time   time.Time
}

// New returns a Server answering with [DefaultText], listing
// [DefaultModels] and producing [DefaultEmbeddingDim]-dimensional embeddings.
func New() *Server {
	s := &Server{done: make(chan struct{})}
	s.resetLocked()
	return s
}

// resetLocked restores the initial configuration; s.mu must be held (or s
// not yet shared).
func (s *Server) resetLocked() {
	s.queue = nil
	s.pathQueues = map[string][]*compiled{}
	s.def = compile(Reply{Text: DefaultText})
	s.models = append([]string(nil), DefaultModels...)
	s.dim = DefaultEmbeddingDim
	s.recordOff = false
	s.records = nil
}

// Start listens on 127.0.0.1 on a free port and serves in the background. It
// returns the base URL, like "http://127.0.0.1:PORT"; OpenAI clients use
// baseURL+"/v1", the Anthropic SDK uses baseURL itself.
func (s *Server) Start() (baseURL string, err error) {
	return s.Listen("127.0.0.1:0")
}

// Listen is like [Server.Start] but listens on addr (host:port).
func (s *Server) Listen(addr string) (baseURL string, err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	s.mu.Lock()
	if s.httpSrv != nil {
		s.mu.Unlock()
		ln.Close()
		return "", errors.New("fakeupstream: server already started")
	}
	s.httpSrv = srv
	s.mu.Unlock()
	go srv.Serve(ln) //nolint:errcheck // Serve returns ErrServerClosed on Close.
	return "http://" + ln.Addr().String(), nil
}

// Handler returns the server's HTTP handler, for example to mount it in an
// httptest.Server. Close the Server too: that releases hanging and held
// responses.
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.serveHTTP) }

// Close releases every hanging or held response and, if the server was
// started, closes the listener and all connections. It is idempotent; a
// closed Server cannot be started again.
func (s *Server) Close() error {
	s.closeOnce.Do(func() { close(s.done) })
	s.mu.Lock()
	srv := s.httpSrv
	s.mu.Unlock()
	if srv == nil {
		return nil
	}
	return srv.Close()
}

// Enqueue appends a scripted reply. The generation endpoints
// (/v1/chat/completions and /v1/messages) take replies first-in first-out
// and fall back to the default reply when the queue is empty. Note that SDK
// clients retry 408/409/429/5xx replies, consuming one queued reply per try.
func (s *Server) Enqueue(r Reply) {
	c := compile(r)
	s.mu.Lock()
	s.queue = append(s.queue, c)
	s.mu.Unlock()
}

// EnqueueFor queues a reply for requests to one path only (for example
// "/v1/embeddings" or "/v1/messages"). Path queues are consulted before the
// shared queue, and they also apply to the auxiliary endpoints, which honour
// Status, delays, Hang and (for /v1/completions) Text.
func (s *Server) EnqueueFor(path string, r Reply) {
	c := compile(r)
	s.mu.Lock()
	s.pathQueues[path] = append(s.pathQueues[path], c)
	s.mu.Unlock()
}

// FailNext makes the next n generation requests fail with status.
func (s *Server) FailNext(n, status int) {
	for range n {
		s.Enqueue(ErrorReply(status, ""))
	}
}

// Pending returns the number of replies still in the shared queue.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// SetDefault sets the reply used when the queue is empty. Its wire frames
// are rendered once and reused.
func (s *Server) SetDefault(r Reply) {
	c := compile(r)
	s.mu.Lock()
	s.def = c
	s.mu.Unlock()
}

// SetModels sets the model ids listed by GET /v1/models.
func (s *Server) SetModels(ids []string) {
	s.mu.Lock()
	s.models = append([]string(nil), ids...)
	s.mu.Unlock()
}

// SetEmbeddingDim sets the default embedding dimension (n > 0). A request's
// "dimensions" parameter overrides it.
func (s *Server) SetEmbeddingDim(n int) {
	if n <= 0 {
		return
	}
	s.mu.Lock()
	s.dim = n
	s.mu.Unlock()
}

// SetRecording turns request recording on (the default) or off. Benchmarks
// turn it off so that memory does not grow with the number of requests.
func (s *Server) SetRecording(on bool) {
	s.mu.Lock()
	s.recordOff = !on
	s.mu.Unlock()
}

// Requests returns a copy of the list of requests received so far, oldest
// first.
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Recorded(nil), s.records...)
}

// Reset restores the state of a new Server: it empties the queues and the
// recorded requests and restores the default reply, models, embedding
// dimension and recording. It does not stop the server.
func (s *Server) Reset() {
	s.mu.Lock()
	s.resetLocked()
	s.mu.Unlock()
}

// bufPool recycles request body buffers.
var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// serveHTTP reads and records the request, then routes it.
func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer bufPool.Put(buf)
	if r.Body != nil {
		_, _ = buf.ReadFrom(r.Body)
	}
	body := s.record(r, buf.Bytes())
	s.route(w, r, body)
}

// record stores the request if recording is on. It returns the body to use
// from now on: the recorded copy, or the pooled bytes when not recording.
func (s *Server) record(r *http.Request, body []byte) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.recordOff {
		return body
	}
	rec := Recorded{
		Method:   r.Method,
		Path:     r.URL.Path,
		RawQuery: r.URL.RawQuery,
		Header:   r.Header.Clone(),
		Body:     bytes.Clone(body),
		Time:     time.Now(),
	}
	if rec.Body == nil {
		rec.Body = []byte{}
	}
	s.records = append(s.records, rec)
	return rec.Body
}

// route dispatches on method and path.
func (s *Server) route(w http.ResponseWriter, r *http.Request, body []byte) {
	path, post := r.URL.Path, r.Method == http.MethodPost
	switch {
	case path == "/v1/chat/completions" && post:
		s.handleChat(w, r, body)
	case path == "/v1/messages" && post:
		s.handleMessages(w, r, body)
	case path == "/v1/messages/count_tokens" && post:
		s.handleCountTokens(w, r, body)
	case path == "/v1/embeddings" && post:
		s.handleEmbeddings(w, r, body)
	case path == "/v1/completions" && post:
		s.handleCompletions(w, r, body)
	case path == "/v1/models" && r.Method == http.MethodGet:
		s.handleModels(w, r)
	case strings.HasPrefix(path, "/v1/models/") && r.Method == http.MethodGet:
		s.handleModel(w, r, strings.TrimPrefix(path, "/v1/models/"))
	default:
		s.notFound(w, r)
	}
}

// nextReply returns the reply for a request: the path queue first, then (for
// generation endpoints) the shared queue and the default reply. It returns
// nil for an auxiliary endpoint with nothing queued. Func replies are
// resolved here.
func (s *Server) nextReply(r *http.Request, body []byte, generation bool) *compiled {
	s.mu.Lock()
	var c *compiled
	if q := s.pathQueues[r.URL.Path]; len(q) > 0 {
		c, s.pathQueues[r.URL.Path] = q[0], q[1:]
	} else if generation && len(s.queue) > 0 {
		c, s.queue = s.queue[0], s.queue[1:]
	} else if generation {
		c = s.def
	}
	s.mu.Unlock()
	if c != nil && c.Func != nil {
		if !s.isRecording() {
			body = bytes.Clone(body)
		}
		next := c.Func(r, body)
		next.Func = nil
		c = compile(next)
	}
	return c
}

// isRecording reports whether requests are being recorded.
func (s *Server) isRecording() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.recordOff
}

// nextID returns a fresh id with the given prefix, like "chatcmpl-…".
func (s *Server) nextID(prefix string) string {
	return prefix + idSuffix(s.seq.Add(1))
}

// await waits for d, the client going away or the server closing. It
// reports whether the wait ran to completion.
func (s *Server) await(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
	case <-s.done:
	}
	return false
}

// awaitChan waits until ch is closed, the client goes away or the server
// closes. It reports whether ch was closed.
func (s *Server) awaitChan(r *http.Request, ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	case <-r.Context().Done():
	case <-s.done:
	}
	return false
}

// prelude applies the reply's Hang and FirstByteDelay. It reports whether
// the handler should go on answering.
func (s *Server) prelude(r *http.Request, c *compiled) bool {
	if c.Hang {
		s.awaitChan(r, nil)
		return false
	}
	return s.await(r, c.FirstByteDelay)
}

// idSuffix renders n as 24 pseudo-random base62 characters (deterministic
// for a given n), mimicking real provider ids.
func idSuffix(n uint64) string {
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	var b [24]byte
	var x uint64
	for i := range b {
		if i%8 == 0 {
			x = splitmix(n<<2 | uint64(i/8))
		}
		b[i] = alphabet[x%62]
		x /= 62
	}
	return string(b[:])
}

// splitmix is the SplitMix64 mixing function.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
