package faketinker

import (
	"net/http"
	"time"
)

// Fault is an injected answer that replaces an endpoint's normal one.
type Fault struct {
	Status int
	// Body is sent as is; empty with Status 400 imitates Cloudflare's
	// empty 400. Empty otherwise means {"detail": <status text>}.
	Body string
	// RetryAfter and RetryAfterMs set the Retry-After and retry-after-ms
	// headers when not empty.
	RetryAfter, RetryAfterMs string
	// ShouldRetry sets x-should-retry when not empty ("true"/"false").
	ShouldRetry string
}

// RateLimited is a 429 with Retry-After (e.g. "0", "2").
func RateLimited(retryAfter string) Fault { return Fault{Status: 429, RetryAfter: retryAfter} }

// ServerError is a 5xx.
func ServerError(status int) Fault { return Fault{Status: status} }

// EmptyBadRequest is a 400 with an empty body.
func EmptyBadRequest() Fault { return Fault{Status: 400} }

func (f Fault) reply() reply {
	rep := reply{status: f.Status, header: map[string]string{}}
	switch {
	case f.Body != "":
		rep.body = []byte(f.Body)
	case f.Status != http.StatusBadRequest:
		rep.body = detail(http.StatusText(f.Status))
	}
	for h, v := range map[string]string{"Retry-After": f.RetryAfter, "Retry-After-Ms": f.RetryAfterMs, "X-Should-Retry": f.ShouldRetry} {
		if v != "" {
			rep.header[h] = v
		}
	}
	return rep
}

// FailNext makes the next n calls of endpoint (e.g. "asample",
// "retrieve_future", "forward_backward") answer with f instead.
func (s *Server) FailNext(endpoint string, n int, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.st.faults[endpoint] = append(s.st.faults[endpoint], f)
	}
}

func (st *state) popFault(endpoint string) (Fault, bool) {
	q := st.faults[endpoint]
	if len(q) == 0 {
		return Fault{}, false
	}
	st.faults[endpoint] = q[1:]
	return q[0], true
}

// PendingFaults is how many injected faults of endpoint are still unused.
func (s *Server) PendingFaults(endpoint string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.st.faults[endpoint])
}

// DownMode says how the service is unreachable.
type DownMode int

// Down modes.
const (
	Up         DownMode = iota
	DownRefuse          // the listener is closed: connections are refused
	Down503             // every request answers 503
)

// SetDown takes the service down, or (Up) brings it back on the same
// address. Its state survives.
func (s *Server) SetDown(m DownMode) error {
	s.mu.Lock()
	prev := s.st.down
	s.st.down = m
	s.mu.Unlock()
	switch {
	case m == DownRefuse && prev != DownRefuse:
		s.stopListening()
	case m != DownRefuse && prev == DownRefuse:
		s.lnMu.Lock()
		addr := s.addr
		s.lnMu.Unlock()
		return s.listen(addr)
	}
	return nil
}

// ExpireNext makes the next n futures created by endpoint answer 410
// (expired) to every poll, so the client must resubmit.
func (s *Server) ExpireNext(endpoint string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.expireNext[endpoint] += n
}

// Expire makes the future requestID answer 410 from now on.
func (s *Server) Expire(requestID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.st.futures[requestID]; f != nil {
		f.expired = true
	}
}

// SetTryAgain makes every future answer its first n polls with try_again
// (a 200), or with 408 when use408.
func (s *Server) SetTryAgain(n int, use408 bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.tryAgain, s.st.tryAgain408 = n, use408
}

// SetResponder scripts the sampler: fn returns the tokens of each sample
// (index i of the result for sample i). A nil result, or fewer entries than
// samples, falls back to the deterministic sampler. Stop tokens and
// max_tokens still cut the scripted tokens. SetResponder(nil) removes it.
// fn runs with the server's lock held: it must not call the Server.
func (s *Server) SetResponder(fn func(req SampleRequest) [][]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.responder = fn
}

// SetSampleDelay delays each sample's completion by d plus perToken for
// every generated token.
func (s *Server) SetSampleDelay(d, perToken time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.sampleDelay, s.st.tokenDelay = d, perToken
}

// SetFlag sets a client/config flag (any name, known or not).
func (s *Server) SetFlag(name string, value any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.flags[name] = value
}

// sampleDelayFor is the delay of a sample that generated n tokens.
func (st *state) sampleDelayFor(n int) time.Duration {
	return st.sampleDelay + time.Duration(n)*st.tokenDelay
}
