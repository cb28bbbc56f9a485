package faketinker

import (
	"encoding/json"
	"slices"
	"time"
)

// Request is one HTTP request the server answered.
type Request struct {
	Endpoint          string
	Status            int
	SeqID             int // -1 when the body has none
	ModelID           string
	SamplingSessionID string
	SessionID         string
	// RequestID is the future polled (retrieve_future) or returned.
	RequestID      string
	IdempotencyKey string
	UserAgent      string
	// The X-Tinker-* headers, as sent ("" when absent).
	RequestType, Iteration, RoundtripTime string
	Backpressure                          bool
	Time                                  time.Time
}

// logRequest records c and its answer.
func (s *Server) logRequest(c *call, rep reply) {
	var p probe
	_ = json.Unmarshal(c.body, &p)
	r := Request{Endpoint: c.endpoint, Status: rep.status, SeqID: -1, ModelID: p.ModelID,
		SamplingSessionID: p.SamplingSessionID, SessionID: p.SessionID, RequestID: p.RequestID,
		IdempotencyKey: c.idem, UserAgent: c.header.Get("User-Agent"),
		RequestType: c.header.Get("X-Tinker-Request-Type"), Iteration: c.header.Get("X-Tinker-Request-Iteration"),
		RoundtripTime: c.header.Get("X-Tinker-Create-Promise-Roundtrip-Time"),
		Backpressure:  c.header.Get("X-Tinker-Sampling-Backpressure") == "1", Time: s.opts.Now()}
	if p.SeqID != nil {
		r.SeqID = *p.SeqID
	}
	if m, isMap := rep.body.(map[string]any); isMap && r.RequestID == "" {
		r.RequestID, _ = m["request_id"].(string)
	}
	s.mu.Lock()
	s.st.requests = append(s.st.requests, r)
	s.mu.Unlock()
}

// Requests returns every request answered so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.st.requests)
}

// RequestsTo returns the requests to one endpoint.
func (s *Server) RequestsTo(endpoint string) []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Endpoint == endpoint {
			out = append(out, r)
		}
	}
	return out
}

// Datums returns every datum forward_backward and forward received, in
// execution order.
func (s *Server) Datums() []RecordedDatum {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.st.datums)
}

// Samples returns every served asample, in execution order, with the
// sampler checkpoint that served it.
func (s *Server) Samples() []SampleRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.st.samples)
}

// Checkpoints returns the saved checkpoints in the order first saved.
func (s *Server) Checkpoints() []Checkpoint {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Checkpoint, 0, len(s.st.ckptOrder))
	for _, p := range s.st.ckptOrder {
		out = append(out, *s.st.checkpoints[p])
	}
	return out
}

// Steps is the optimizer step count of a model (restored by load_weights).
func (s *Server) Steps(modelID string) int {
	m, _ := s.Model(modelID)
	return m.Steps
}

// ModelState is a training model as the server holds it.
type ModelState struct {
	ID, BaseModel, SessionID string
	LoRARank                 int
	Steps                    int
	PendingGrads             int    // forward_backward calls since the last optim_step
	LoadedFrom               string // the checkpoint last loaded
	Adam                     []AdamParams
	NextSeqID                int // the seq_id the model waits for next
}

// Model returns a model's state.
func (s *Server) Model(id string) (ModelState, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.st.models[id]
	if m == nil {
		return ModelState{}, false
	}
	return ModelState{ID: m.id, BaseModel: m.baseModel, SessionID: m.session, LoRARank: m.lora.Rank,
		Steps: m.step, PendingGrads: m.grads, LoadedFrom: m.loadedFrom, Adam: slices.Clone(m.adam),
		NextSeqID: m.seq.next}, true
}

// SessionState is a client session as the server holds it.
type SessionState struct {
	ID            string
	Tags          []string
	SDKVersion    string
	Heartbeats    int
	LastHeartbeat time.Time // or the session's creation
}

// Session returns a session's state.
func (s *Server) Session(id string) (SessionState, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.st.sessions[id]
	if ss == nil {
		return SessionState{}, false
	}
	return SessionState{ID: ss.id, Tags: slices.Clone(ss.tags), SDKVersion: ss.sdkVersion,
		Heartbeats: ss.heartbeats, LastHeartbeat: ss.lastHeartbeat}, true
}

// SamplerNextSeqID is the seq_id a sampling session waits for next.
func (s *Server) SamplerNextSeqID(id string) (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sm := s.st.samplers[id]
	if sm == nil {
		return 0, false
	}
	return sm.seq.next, true
}

// MaxSamplesInFlight is the largest number of asample requests that were
// running or done but not yet fetched by a poll at the same time.
func (s *Server) MaxSamplesInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.maxSamplesInFlight
}
