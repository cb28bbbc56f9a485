package proxy

import (
	"context"
	"net/http"
	"strconv"
)

// Policy serves chat turns from the model MetaClaw trains, in the rl and
// madmax modes. It speaks the OpenAI Chat Completions wire format over an
// in-process http.RoundTripper (POST .../chat/completions, JSON or SSE), so
// the proxy's translation, relay and recording work for it unchanged. The
// learner implements it; app wires it in.
//
// The proxy tells the policy who is asking with the request headers
// PolicySessionHeader and PolicyTurnTypeHeader; the policy answers with
// PolicySampleHeader when it stored the turn's tokens as a training sample,
// and the proxy links that sample to the recorded turn.
type Policy interface {
	// Ready reports whether the policy can serve now and, when it cannot,
	// why (shown by status; turns then go to llm.* and are not trainable).
	// It must be cheap: the proxy asks on every chat request.
	Ready() (bool, string)
	http.RoundTripper
}

// Headers between the proxy and its Policy.
const (
	PolicySessionHeader  = "X-Metaclaw-Session-Id"
	PolicyTurnTypeHeader = "X-Metaclaw-Turn-Type"
	PolicySampleHeader   = "X-Metaclaw-Sample-Id"
)

// policyBase is the base URL of requests to the policy; the host is never
// dialled, the RoundTripper answers in process.
const policyBase = "http://policy.metaclaw.invalid/v1"

// usePolicy reports whether this turn goes to the policy: the mode trains
// the weights and the policy is ready.
func (s *Server) usePolicy() bool {
	if s.policy == nil {
		return false
	}
	ok, _ := s.opts.Policy.Ready()
	return ok
}

// newPolicyUpstream wraps the policy as an upstream with its own client
// (no retries: the policy retries its service itself).
func newPolicyUpstream(p Policy) (*upstream, *client) {
	u := &upstream{name: "policy", base: policyBase, api: apiOpenAI}
	return u, &client{http: &http.Client{Transport: p}}
}

// callPolicy sends a chat request to the policy. It reports ok=false, with
// the response closed, when the policy failed and the turn should go to
// llm.* instead.
func (s *Server) callPolicy(ctx context.Context, ts *turnState, out outRequest) (*http.Response, bool) {
	h := out.header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set(PolicySessionHeader, ts.id.sessionID)
	h.Set(PolicyTurnTypeHeader, ts.id.turnType)
	out.header = h
	resp, err := s.policyClient.once(ctx, s.policy, out, false)
	if err == nil && resp.StatusCode < 500 {
		ts.upstream = s.policy.name
		ts.sampleID, _ = strconv.ParseInt(resp.Header.Get(PolicySampleHeader), 10, 64)
		return resp, true
	}
	if resp != nil {
		resp.Body.Close()
		s.log.Warn("policy failed; serving this turn from llm.* (not trainable)", "status", resp.StatusCode)
	} else {
		s.log.Warn("policy failed; serving this turn from llm.* (not trainable)", "err", err)
	}
	return nil, false
}
