package fakeweaver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// Options configure a Server.
type Options struct {
	// APIKey is the key clients must send (default "sk-fake-weaver").
	APIKey string
	// PendingPolls is how many polls an operation answers "pending"
	// before it is done (default 1), so clients must poll.
	PendingPolls int
}

// Request is one request the server received.
type Request struct {
	Method, Path string
	Status       int
}

// Server is the fake service. Make it with New; it listens until Close.
type Server struct {
	srv  *httptest.Server
	opts Options

	mu          sync.Mutex // guards everything below
	next        int        // for ids
	sessions    map[string]*session
	models      map[string]*model
	samplers    map[string]*sampler
	ops         map[string]*operation
	checkpoints map[string]Checkpoint
	datums      []RecordedDatum
	samples     []SampleRecord
	requests    []Request
	faults      map[string][]int // endpoint → statuses to answer next
	opFaults    map[string]int   // endpoint → operations to fail next
	down        bool
	responder   func(SampleRequest) [][]int
}

type session struct {
	id         string
	heartbeats int
	modelSeqs  map[int]bool
}

// New starts a server on 127.0.0.1.
func New(opts Options) *Server {
	if opts.APIKey == "" {
		opts.APIKey = "sk-fake-weaver"
	}
	if opts.PendingPolls <= 0 {
		opts.PendingPolls = 1
	}
	s := &Server{opts: opts, sessions: map[string]*session{}, models: map[string]*model{},
		samplers: map[string]*sampler{}, ops: map[string]*operation{}, checkpoints: map[string]Checkpoint{},
		faults: map[string][]int{}, opFaults: map[string]int{}}
	mux := http.NewServeMux()
	for pattern, h := range map[string]func(*http.Request, map[string]any) (int, any){
		"POST /api/v1/sessions":                            s.createSession,
		"POST /api/v1/sessions/{id}/heartbeat":             s.heartbeat,
		"POST /api/v1/sessions/{id}/models":                s.createModel,
		"POST /api/v1/sessions/{id}/sampling-sessions":     s.createSampler,
		"GET /api/v1/models/{id}":                          s.getModel,
		"POST /api/v1/models/{id}/forward-backward-passes": s.forwardBackward,
		"POST /api/v1/models/{id}/optimizer-steps":         s.optimStep,
		"POST /api/v1/models/{id}/export-sampler":          s.exportSampler,
		"POST /api/v1/models/{id}/checkpoints":             s.saveCheckpoint,
		"POST /api/v1/models/{id}/load":                    s.load,
		"POST /api/v1/sampling-sessions/{id}/samples":      s.sample,
		"GET /api/v1/operations/{id}":                      s.getOperation,
	} {
		mux.HandleFunc(pattern, s.wrap(h))
	}
	s.srv = httptest.NewServer(mux)
	return s
}

// URL is the service root (rl.base_url).
func (s *Server) URL() string { return s.srv.URL }

// APIKey is the key the server accepts.
func (s *Server) APIKey() string { return s.opts.APIKey }

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// wrap does auth, faults, body decoding, the JSON answer and the request
// log, holding the lock for the handler.
func (s *Server) wrap(h func(*http.Request, map[string]any) (int, any)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		status, body := s.handle(r, h)
		s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Status: status})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(body)
	}
}

func (s *Server) handle(r *http.Request, h func(*http.Request, map[string]any) (int, any)) (int, any) {
	if s.down {
		return apiError(http.StatusServiceUnavailable, "unavailable", "service down")
	}
	if r.Header.Get("X-WEAVER-API-KEY") != s.opts.APIKey {
		return apiError(http.StatusUnauthorized, "unauthorized", "invalid API key")
	}
	ep := endpoint(r.URL.Path)
	if q := s.faults[ep]; len(q) > 0 {
		s.faults[ep] = q[1:]
		return apiError(q[0], "injected", "injected failure")
	}
	body := map[string]any{}
	if r.Method == http.MethodPost && r.ContentLength != 0 {
		dec := json.NewDecoder(r.Body)
		dec.UseNumber()
		if err := dec.Decode(&body); err != nil {
			return apiError(http.StatusBadRequest, "invalid_json", err.Error())
		}
	}
	return h(r, body)
}

// apiError is Weaver's error body.
func apiError(status int, code, msg string) (int, any) {
	return status, map[string]any{"error": code, "message": msg, "retryable": status >= 500 || status == 429}
}

// endpoint is the last path segment (forward-backward-passes, samples,
// ...), "sessions" for session creation, and "operations" for polls.
func endpoint(path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(parts) >= 3 && parts[2] == "operations":
		return "operations"
	case len(parts) == 4 && parts[2] == "models":
		return "models"
	}
	return parts[len(parts)-1]
}

func (s *Server) newID(prefix string) string {
	s.next++
	return fmt.Sprintf("%s-%d", prefix, s.next)
}

func (s *Server) createSession(_ *http.Request, body map[string]any) (int, any) {
	if _, ok := body["tags"].([]any); !ok {
		return apiError(http.StatusBadRequest, "invalid_request", "tags must be a list")
	}
	id := s.newID("sess")
	s.sessions[id] = &session{id: id, modelSeqs: map[int]bool{}}
	return http.StatusCreated, map[string]any{"id": id, "tags": body["tags"]}
}

func (s *Server) heartbeat(r *http.Request, _ map[string]any) (int, any) {
	sess, ok := s.sessions[r.PathValue("id")]
	if !ok {
		return apiError(http.StatusNotFound, "not_found", "no such session")
	}
	sess.heartbeats++
	return http.StatusOK, map[string]any{"id": sess.id}
}

// Heartbeats counts the heartbeats of a session.
func (s *Server) Heartbeats(sessionID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sess, ok := s.sessions[sessionID]; ok {
		return sess.heartbeats
	}
	return 0
}

// FailNext makes the next n calls of an endpoint (its last path segment:
// "forward-backward-passes", "samples", "sessions", "operations", ...)
// answer status.
func (s *Server) FailNext(endpoint string, n, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.faults[endpoint] = append(s.faults[endpoint], status)
	}
}

// FailNextOperation makes the next n operations of an endpoint end with
// status "error".
func (s *Server) FailNextOperation(endpoint string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opFaults[endpoint] += n
}

// SetDown makes every request answer 503 while down.
func (s *Server) SetDown(down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = down
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// operation is a long-running operation, done after PendingPolls polls.
type operation struct {
	id       string
	endpoint string
	polls    int
	response any
	failed   bool
}

// startOp registers an operation and answers its pending state (202).
func (s *Server) startOp(ep string, response any) (int, any) {
	op := &operation{id: s.newID("op"), endpoint: ep, response: response}
	if s.opFaults[ep] > 0 {
		s.opFaults[ep]--
		op.failed = true
	}
	s.ops[op.id] = op
	return http.StatusAccepted, map[string]any{"id": op.id, "status": "pending"}
}

func (s *Server) getOperation(r *http.Request, _ map[string]any) (int, any) {
	op, ok := s.ops[r.PathValue("id")]
	if !ok {
		return apiError(http.StatusNotFound, "not_found", "no such operation")
	}
	op.polls++
	switch {
	case op.polls < s.opts.PendingPolls:
		return http.StatusOK, map[string]any{"id": op.id, "status": "running"}
	case op.failed:
		return http.StatusOK, map[string]any{"id": op.id, "status": "error", "error_code": "trainer_failed",
			"error_message": "injected operation failure"}
	}
	return http.StatusOK, map[string]any{"id": op.id, "status": "done", "response": op.response}
}

// intOf reads a JSON integer.
func intOf(v any) (int, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return int(i), err == nil
}
