package policy

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/metaclaw/metaclaw/app/learner/tinker"
	"github.com/metaclaw/metaclaw/proxy/openai"
	"github.com/metaclaw/metaclaw/store"
)

// maxRequestBody bounds a chat request.
const maxRequestBody = 64 << 20

// RoundTrip answers an OpenAI Chat Completions request (POST
// …/chat/completions) from the policy, as JSON or, with "stream": true,
// as SSE sent once sampling has finished. A request the chat template
// cannot render is answered 400; content the policy cannot take (images)
// 501, and a failing service 503, so that the proxy serves the turn from
// llm.* instead. Errors are OpenAI error bodies; RoundTrip itself fails
// only when the request's context ends.
func (s *Server) RoundTrip(r *http.Request) (*http.Response, error) {
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		return errorResponse(r, &httpError{status: http.StatusNotFound, code: "not_found",
			msg: fmt.Sprintf("the policy serves POST /chat/completions, not %s %s", r.Method, r.URL.Path)}), nil
	}
	rt, sm := s.rt.Load(), s.cur.Load()
	if ok, reason := s.Ready(); !ok || rt == nil || sm == nil {
		return errorResponse(r, &httpError{status: http.StatusServiceUnavailable, code: "policy_not_ready",
			msg: "the policy is not ready: " + reason}), nil
	}
	j, err := rt.prepare(body, s.opts.RL.MaxTokens)
	if err != nil {
		return errorResponse(r, asHTTPError(err)), nil
	}
	seq, err := s.sample(r.Context(), sm, j)
	if err != nil {
		if r.Context().Err() != nil {
			return nil, fmt.Errorf("policy: %w", r.Context().Err())
		}
		s.log.Warn("policy: sampling failed", "checkpoint", sm.label(s.opts.RL.Model), "err", err)
		return errorResponse(r, &httpError{status: http.StatusServiceUnavailable, code: "sampling_failed",
			msg: "the training service could not sample: " + err.Error()}), nil
	}
	a := rt.decodeAnswer(j, seq)
	id := s.record(r, j, sm, seq)
	return s.answer(r, j, a, id)
}

func readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	defer r.Body.Close()
	b, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBody))
	if err != nil {
		return nil, fmt.Errorf("policy: read request: %w", err)
	}
	return b, nil
}

func asHTTPError(err error) *httpError {
	var he *httpError
	if errors.As(err, &he) {
		return he
	}
	return &httpError{status: http.StatusInternalServerError, code: "internal_error", msg: err.Error()}
}

// sample draws one completion from sm. It gives up when ctx ends, after
// SampleTimeout, or when the service is found down meanwhile, so that the
// proxy can serve the turn from llm.* at once; a submission already under
// way still reaches the service (the tinker client keeps seq ids whole).
func (s *Server) sample(ctx context.Context, sm *sampler, j *job) (tinker.SampledSequence, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.SampleTimeout)
	defer cancel()
	type result struct {
		res tinker.SampleResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := s.client.Sample(ctx, sm.ss, j.prompt, j.params, 1)
		done <- result{res, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		return tinker.SampledSequence{}, fmt.Errorf("sample: %w", ctx.Err())
	case <-s.outage():
		return tinker.SampledSequence{}, errors.New("sample: the training service went down")
	}
	if r.err != nil {
		s.noteSampleError(sm, r.err)
		return tinker.SampledSequence{}, r.err
	}
	if len(r.res.Sequences) == 0 {
		return tinker.SampledSequence{}, errors.New("sample: the service returned no sequence")
	}
	return r.res.Sequences[0], nil
}

// record stores a main turn's sample and returns its id (0 when nothing
// was stored: a side turn, no database, or no logprobs).
func (s *Server) record(r *http.Request, j *job, sm *sampler, seq tinker.SampledSequence) int64 {
	db := s.opts.DB
	if db == nil || r.Header.Get(TurnTypeHeader) == "side" || r.Context().Err() != nil {
		return 0
	}
	if len(seq.Logprobs) != len(seq.Tokens) || len(seq.Tokens) == 0 {
		s.log.Warn("policy: the service gave no logprobs for the sampled tokens; the turn is not trainable",
			"tokens", len(seq.Tokens), "logprobs", len(seq.Logprobs))
		return 0
	}
	ctx := r.Context()
	gen, err := db.SkillGeneration(ctx)
	if err != nil {
		s.log.Warn("policy: cannot read the skill generation; the turn is not recorded as a sample", "err", err)
		return 0
	}
	smp := &store.Sample{SessionID: r.Header.Get(SessionHeader), Kind: store.SampleServed,
		PromptTokens: j.prompt, SampledTokens: seq.Tokens, SampledLogprobs: seq.Logprobs,
		BaseModel: s.opts.RL.Model, Checkpoint: sm.label(s.opts.RL.Model), SkillGeneration: gen, Trainable: true}
	s.insertMu.Lock()
	err = db.InsertSample(ctx, smp)
	s.insertMu.Unlock()
	if err != nil {
		s.log.Warn("policy: cannot store the sample", "err", err)
		return 0
	}
	return smp.ID
}

// answer builds the response, JSON or SSE, naming the sample when one was
// stored.
func (s *Server) answer(r *http.Request, j *job, a answer, sampleID int64) (*http.Response, error) {
	m := meta{id: "chatcmpl-" + randomHex(12), created: s.opts.Now().Unix(), model: j.model}
	var body []byte
	var err error
	ctype := "application/json"
	if j.stream {
		body, err = streamBody(m, a, j.includeUsage)
		ctype = "text/event-stream"
	} else {
		body, err = completionBody(m, a)
	}
	if err != nil {
		return errorResponse(r, &httpError{status: http.StatusInternalServerError, code: "internal_error",
			msg: "encode the answer: " + err.Error()}), nil
	}
	resp := response(r, http.StatusOK, ctype, body)
	resp.Header.Set("X-Request-Id", m.id)
	if sampleID != 0 {
		resp.Header.Set(SampleHeader, strconv.FormatInt(sampleID, 10))
	}
	if j.stream {
		resp.Header.Set("Cache-Control", "no-cache")
	}
	return resp, nil
}

// errorResponse is an OpenAI error body.
func errorResponse(r *http.Request, e *httpError) *http.Response {
	return response(r, e.status, "application/json", openai.NewError(e.status, "", e.code, e.msg))
}

func response(r *http.Request, status int, ctype string, body []byte) *http.Response {
	return &http.Response{
		Status: fmt.Sprintf("%d %s", status, http.StatusText(status)), StatusCode: status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {ctype}}, Body: io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)), Request: r,
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}
