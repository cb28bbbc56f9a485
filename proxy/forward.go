package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/metaclaw/metaclaw/proxy/internal/rawjson"
)

// flavor says how one kind of request maps between client and upstream.
type flavor struct {
	path string // upstream API path
	api  string // wire format of the upstream request
	// stream makes the converter for a streamed answer.
	stream func() streamConv
	// body converts a non-streamed upstream answer for the client, and
	// returns how to read it for recording (run off the request path).
	body func(upstream []byte) ([]byte, func() response, error)
	// errBody converts an upstream error body for the client; nil passes
	// it through.
	errBody func(status int, body []byte) []byte
}

// forward sends the prepared request upstream (primary, then fallback) and
// answers the client: streamed, whole, or the upstream's error.
func (s *Server) forward(c *fiber.Ctx, ts *turnState, out outRequest, rebody func(model string) []byte, fl flavor) error {
	ctx, cancel := context.WithCancel(s.baseCtx)
	stopWatch := watchClient(c.Context().Conn(), cancel)
	resp, err := s.call(ctx, ts, out, rebody, fl.api)
	stopWatch()
	if err != nil {
		cancel()
		return s.upstreamFailed(c, ts, err)
	}
	if resp.StatusCode >= 300 {
		defer cancel()
		return s.relayError(c, ts, resp, fl)
	}
	if ts.stream && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		s.streamTo(c, ts, resp, fl.stream(), cancel)
		return nil
	}
	defer cancel()
	return s.relayBody(c, ts, resp, fl)
}

// call tries the primary upstream, then the fallback when the primary
// cannot answer (unreachable, timeout, or 429/5xx after its retries).
func (s *Server) call(ctx context.Context, ts *turnState, out outRequest, rebody func(string) []byte, api string) (*http.Response, error) {
	if ts.policy {
		resp, ok := s.callPolicy(ctx, ts, out)
		switch {
		case ok:
			return resp, nil
		case api != s.cur().primary.api: // llm.* cannot take the prepared request
			return nil, &upstreamError{status: http.StatusBadGateway, err: errPolicyFailed}
		}
	}
	lv := s.cur()
	fwd := lv.cfg.Proxy.ForwardClientAuth
	ts.callerKey = fwd && (out.auth.authorization != "" || out.auth.apiKey != "")
	if !ts.callerKey && lv.primary.key == "" && lv.primary.needsKey() {
		return nil, errNoKey
	}
	resp, retries, err := lv.client.do(ctx, lv.primary, out, fwd)
	ts.retries, ts.upstream = retries, lv.primary.name
	if lv.fallback == nil || lv.fallback.api != api || ctx.Err() != nil || (err == nil && !retryable(resp.StatusCode)) {
		return resp, err
	}
	if resp != nil {
		resp.Body.Close()
	}
	s.log.Warn("primary upstream failed; trying the fallback", "err", errString(err))
	out.body = rebody(lv.fallback.model)
	ts.model, ts.request, ts.upstream = lv.fallback.model, out.body, lv.fallback.name
	resp, retries, err = lv.client.do(ctx, lv.fallback, out, false)
	ts.retries += retries + 1
	return resp, err
}

// errNoKey is returned, instead of a keyless call, when llm.api_key is
// not set and the caller sent no credentials to forward.
var errNoKey = errors.New("MetaClaw has no key for the provider: set llm.api_key (`metaclaw setup`, or `metaclaw config set llm.api_key KEY`), " +
	"or turn on proxy.forward_client_auth and send your own key")

// errPolicyFailed is returned when the policy failed and llm.* speaks
// another API than the request was prepared for.
var errPolicyFailed = errors.New("the training policy failed and llm.* cannot take this request")

func errString(err error) string {
	if err == nil {
		return "retryable status"
	}
	return err.Error()
}

// upstreamFailed answers 502 (unreachable), 504 (timeout), or 401 when no
// key could be sent.
func (s *Server) upstreamFailed(c *fiber.Ctx, ts *turnState, err error) error {
	status, msg := http.StatusBadGateway, err.Error()
	var ue *upstreamError
	if errors.As(err, &ue) {
		status = ue.status
	}
	ts.failure = FailUnreachable
	code := "upstream_unreachable"
	switch {
	case errors.Is(err, errNoKey):
		status, code, ts.failure = http.StatusUnauthorized, "upstream_key_missing", FailNoKey
	case errors.Is(err, context.Canceled):
		status, msg, ts.failure = 499, "request cancelled", ""
	case status == http.StatusGatewayTimeout:
		code, ts.failure = "upstream_timeout", FailTimeout
	}
	s.record(ts, status, msg, nil)
	return sendError(c, status, code, msg)
}

// relayError passes an upstream error response on, in the client's shape.
func (s *Server) relayError(c *fiber.Ctx, ts *turnState, resp *http.Response, fl flavor) error {
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	s.record(ts, resp.StatusCode, "upstream: "+truncateText(string(body), 2000), nil)
	if fl.errBody != nil {
		body = fl.errBody(resp.StatusCode, body)
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
		// The client's SDK waits as the upstream asked, even translated.
		for _, h := range []string{"Retry-After", "Retry-After-Ms", "X-Request-Id"} {
			if v := resp.Header.Get(h); v != "" {
				c.Set(h, v)
			}
		}
	} else {
		copyResponseHeaders(c, resp.Header)
	}
	return c.Status(resp.StatusCode).Send(body)
}

// relayBody answers a non-streamed request.
func (s *Server) relayBody(c *fiber.Ctx, ts *turnState, resp *http.Response, fl flavor) error {
	defer resp.Body.Close()
	body, err := readAnswer(resp, s.opts.MaxAnswerBytes)
	if errors.Is(err, errAnswerTooLarge) {
		msg := fmt.Sprintf("the upstream's answer exceeds %d bytes", s.opts.MaxAnswerBytes)
		ts.failure = FailBadAnswer
		s.record(ts, http.StatusBadGateway, msg, nil)
		return sendError(c, http.StatusBadGateway, "bad_upstream_response", msg)
	}
	if err != nil {
		return s.upstreamFailed(c, ts, classify(err))
	}
	ts.ttfb = s.opts.Now().Sub(ts.start)
	if !rawjson.Valid(body) {
		// An HTML error page of a gateway, or JSON cut short: relayed
		// as 200 it would pass for an empty answer.
		msg := fmt.Sprintf("the upstream answered %d with a body that is not JSON (%s): %s",
			resp.StatusCode, firstNonEmpty(resp.Header.Get("Content-Type"), "no content type"), truncateText(string(body), 200))
		s.record(ts, http.StatusBadGateway, msg, nil)
		return sendError(c, http.StatusBadGateway, "bad_upstream_response", msg)
	}
	out, fill, err := fl.body(body)
	if err != nil {
		ts.failure = FailBadAnswer
		s.record(ts, http.StatusBadGateway, "unreadable upstream answer: "+err.Error(), nil)
		return sendError(c, http.StatusBadGateway, "bad_upstream_response", "the upstream's answer could not be read: "+err.Error())
	}
	if fl.errBody == nil {
		copyResponseHeaders(c, resp.Header)
	} else {
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	}
	s.record(ts, resp.StatusCode, "", fill)
	return c.Status(resp.StatusCode).Send(out)
}

// streamTo relays a streamed answer. The server reads the relay after the
// handler has returned, so the relay uses only what it is given, never the
// Fiber context.
func (s *Server) streamTo(c *fiber.Ctx, ts *turnState, resp *http.Response, conv streamConv, cancel func()) {
	c.Set(fiber.HeaderContentType, "text/event-stream")
	c.Set(fiber.HeaderCacheControl, "no-cache")
	c.Set("X-Accel-Buffering", "no")
	if id := resp.Header.Get("X-Request-Id"); id != "" {
		c.Set("X-Request-Id", id)
	}
	c.Status(http.StatusOK)
	idle := time.Duration(s.conf().Proxy.StreamIdleTimeoutSec) * time.Second
	ts.lease.retain() // the request is held until the answer has been relayed
	onFirst := func() { ts.ttfb = s.opts.Now().Sub(ts.start) }
	onEnd := func(status int, msg string) {
		defer ts.lease.release()
		if status != http.StatusOK {
			s.log.Warn("stream ended with an error", "status", status, "err", msg)
			ts.failure = streamFailure(status, msg)
		}
		s.record(ts, status, msg, conv.response)
	}
	c.Context().SetBodyStream(newStreamRelay(resp.Body, conv, idle, cancel, onFirst, onEnd), -1)
}

func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// errAnswerTooLarge: a non-streamed answer longer than the proxy reads.
var errAnswerTooLarge = errors.New("upstream answer too large")

// readAnswer reads resp's body whole, at most limit bytes. A body that
// says its length is read into one buffer of that size (io.ReadAll would
// grow one from 512 bytes, copying as it goes).
func readAnswer(resp *http.Response, limit int64) ([]byte, error) {
	if resp.ContentLength > limit {
		return nil, errAnswerTooLarge
	}
	var buf []byte
	if resp.ContentLength >= 0 {
		buf = make([]byte, 0, resp.ContentLength+1) // +1: EOF is seen without growing
	} else {
		buf = make([]byte, 0, 4096)
	}
	r := io.LimitReader(resp.Body, limit+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, errAnswerTooLarge
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// streamFailure is the kind of failure of a stream relay's end.
func streamFailure(status int, msg string) string {
	switch {
	case status == 499:
		return ""
	case status == http.StatusGatewayTimeout:
		return FailTimeout
	case strings.HasPrefix(msg, "upstream error in stream"):
		return FailServerError
	}
	return FailStreamCut
}
