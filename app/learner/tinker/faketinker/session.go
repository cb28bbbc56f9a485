package faketinker

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"maps"
	"net/http"
	"time"
)

// handler is one endpoint.
type handler struct {
	get bool
	fn  func(ctx context.Context, c *call) reply
}

// route finds the handler of an endpoint.
func (s *Server) route(endpoint string) (handler, bool) {
	post := func(fn func(context.Context, *call) reply) (handler, bool) { return handler{fn: fn}, true }
	switch endpoint {
	case "healthz":
		return handler{get: true, fn: s.healthz}, true
	case "get_server_capabilities":
		return handler{get: true, fn: s.capabilities}, true
	case "client/config":
		return post(s.clientConfig)
	case "auth/token":
		return post(s.authToken)
	case "create_session":
		return post(s.createSession)
	case "session_heartbeat":
		return post(s.heartbeat)
	case "retrieve_future":
		return post(s.retrieveFuture)
	}
	return s.routeWork(endpoint)
}

// routeWork finds the handlers of the sampling and training endpoints.
func (s *Server) routeWork(endpoint string) (handler, bool) {
	fns := map[string]func(context.Context, *call) reply{
		"create_sampling_session": s.createSamplingSession, "asample": s.asample,
		"create_model": s.createModel, "get_info": s.getInfo, "weights_info": s.weightsInfo,
		"forward_backward": s.forwardBackward, "forward": s.forwardBackward,
		"optim_step": s.optimStep, "save_weights": s.saveWeights,
		"save_weights_for_sampler": s.saveWeightsForSampler, "load_weights": s.loadWeights,
	}
	fn, found := fns[endpoint]
	return handler{fn: fn}, found
}

func (s *Server) healthz(context.Context, *call) reply { return ok(map[string]string{"status": "ok"}) }

func (s *Server) capabilities(context.Context, *call) reply {
	models := make([]map[string]any, 0, len(s.opts.SupportedModels))
	for _, m := range s.opts.SupportedModels {
		models = append(models, map[string]any{"model_name": m, "max_context_length": s.opts.MaxContextLength})
	}
	return ok(map[string]any{"supported_models": models})
}

func (s *Server) clientConfig(_ context.Context, c *call) reply {
	var req struct {
		SDKVersion string `json:"sdk_version"`
	}
	if rep, good := decode(c, &req); !good {
		return rep
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return ok(maps.Clone(s.st.flags))
}

// authToken issues a JWT (unsigned; the fake only checks it was issued).
func (s *Server) authToken(context.Context, *call) reply {
	claims, _ := json.Marshal(map[string]any{"exp": s.opts.Now().Add(time.Hour).Unix()})
	s.mu.Lock()
	defer s.mu.Unlock()
	tok := "eyJhbGciOiJub25lIn0." + base64.RawURLEncoding.EncodeToString(claims) + "." + s.st.id("sig")
	s.st.jwts[tok] = true
	return ok(map[string]string{"jwt": tok})
}

func (s *Server) createSession(_ context.Context, c *call) reply {
	var req struct {
		Type       string   `json:"type"`
		Tags       []string `json:"tags"`
		SDKVersion string   `json:"sdk_version"`
	}
	if rep, good := decode(c, &req); !good {
		return rep
	}
	if req.Type != "create_session" {
		return fail(http.StatusBadRequest, "type must be create_session")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.st.id("sess")
	s.st.sessions[id] = &session{id: id, tags: req.Tags, sdkVersion: req.SDKVersion, lastHeartbeat: s.opts.Now()}
	return ok(map[string]any{"type": "create_session", "session_id": id, "info_message": nil})
}

func (s *Server) heartbeat(_ context.Context, c *call) reply {
	var req struct {
		SessionID string `json:"session_id"`
	}
	if rep, good := decode(c, &req); !good {
		return rep
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sess := s.st.sessions[req.SessionID]
	if sess == nil {
		return fail(http.StatusNotFound, "unknown session %s", req.SessionID)
	}
	sess.heartbeats++
	sess.lastHeartbeat = s.opts.Now()
	return ok(map[string]string{"type": "session_heartbeat"})
}

// retrieveFuture answers a poll: 410 if expired, try_again (or 408) for
// the first polls, then waits up to LongPoll for the result.
func (s *Server) retrieveFuture(ctx context.Context, c *call) reply {
	var req struct {
		RequestID string `json:"request_id"`
	}
	if rep, good := decode(c, &req); !good {
		return rep
	}
	s.mu.Lock()
	f := s.st.futures[req.RequestID]
	if f == nil {
		s.mu.Unlock()
		return fail(http.StatusNotFound, "unknown request_id %s", req.RequestID)
	}
	if f.expired {
		s.mu.Unlock()
		return fail(http.StatusGone, "promise %s expired", f.id)
	}
	f.polls++
	early, use408 := f.polls <= s.st.tryAgain, s.st.tryAgain408
	s.mu.Unlock()
	if early && use408 {
		return reply{status: http.StatusRequestTimeout, body: tryAgain(f.id)}
	}
	if early {
		return ok(tryAgain(f.id))
	}
	return s.waitFuture(ctx, f)
}

func tryAgain(id string) map[string]any {
	return map[string]any{"type": "try_again", "request_id": id, "queue_state": "active"}
}

func (s *Server) waitFuture(ctx context.Context, f *future) reply {
	t := time.NewTimer(s.opts.LongPoll)
	defer t.Stop()
	select {
	case <-f.job.done:
	case <-t.C:
		return ok(tryAgain(f.id))
	case <-ctx.Done():
		return ok(tryAgain(f.id))
	}
	s.delivered(f.job)
	if f.job.errMsg != "" {
		return ok(map[string]string{"error": f.job.errMsg, "category": f.job.category})
	}
	return ok(f.job.result)
}

// delivered notes that a poll got j's result.
func (s *Server) delivered(j *job) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if j.sample && !j.delivered {
		s.st.samplesInFlight--
	}
	j.delivered = true
}

// requireSession checks that the session exists; call with s.mu held.
func (s *Server) requireSession(id string) (reply, bool) {
	if s.st.sessions[id] == nil {
		return fail(http.StatusNotFound, "unknown session %q", id), false
	}
	return reply{}, true
}

func seqOf(p *int, what string) (int, reply, bool) {
	if p == nil {
		return 0, fail(http.StatusBadRequest, "%s: missing seq_id", what), false
	}
	if *p < 0 {
		return 0, fail(http.StatusBadRequest, "%s: negative seq_id %d", what, *p), false
	}
	return *p, reply{}, true
}
