package proxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/metaclaw/metaclaw/proxy/retryafter"
	"github.com/metaclaw/metaclaw/store/config"
)

// Wire formats an upstream speaks.
const (
	apiOpenAI    = "openai"
	apiAnthropic = "anthropic"
)

// upstream is one provider endpoint: where to send, how to authenticate,
// and which wire format it speaks.
type upstream struct {
	name     string // "primary" or "fallback"
	provider string // the preset's name, "" for the policy
	base     string // base URL without trailing slash, e.g. https://api.openai.com/v1
	key      string
	model    string
	api      string
	headers  map[string]string
}

func newUpstream(name, provider, base, key, model string) *upstream {
	u := &upstream{name: name, provider: provider, base: strings.TrimRight(base, "/"), key: key, model: model, api: apiOpenAI}
	if p, ok := config.PresetByName(provider); ok {
		u.api = p.API
		u.headers = p.Headers
	}
	return u
}

// needsKey reports whether the upstream is a provider preset, whose API
// takes no call without a key; a custom upstream (a local server, say) may
// take none.
func (u *upstream) needsKey() bool { return u.provider != "" && u.provider != "custom" }

// url joins the base URL and an API path such as "/chat/completions". A
// base that lacks the /v1 suffix works as configured: the path is appended.
func (u *upstream) url(path string) string { return u.base + path }

// errUpstreamTimeout marks a timeout talking to the upstream (504).
var errUpstreamTimeout = errors.New("upstream timed out")

// upstreamError is a failure to get a response from the upstream at all.
type upstreamError struct {
	status int // 502 or 504
	err    error
}

func (e *upstreamError) Error() string { return e.err.Error() }
func (e *upstreamError) Unwrap() error { return e.err }

// client sends requests upstream with pooled connections, timeouts and
// retries before the first byte.
type client struct {
	http       *http.Client
	firstByte  time.Duration
	maxRetries int
	backoff    time.Duration // base delay, doubled each retry, with jitter
	maxBackoff time.Duration
	// retryTimeouts retries a request the upstream received but did not
	// answer in time (proxy.retry_on_timeout): it may be generating, and
	// billing, still.
	retryTimeouts bool
}

func newClient(cfg config.Proxy) *client {
	dialer := &net.Dialer{Timeout: time.Duration(cfg.ConnectTimeoutSec) * time.Second, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          512,
		MaxIdleConnsPerHost:   256,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   time.Duration(cfg.ConnectTimeoutSec) * time.Second,
		ResponseHeaderTimeout: time.Duration(cfg.FirstByteTimeoutSec) * time.Second,
		DisableCompression:    true, // relay bytes as sent; we parse them too
	}
	return &client{http: &http.Client{Transport: tr}, firstByte: time.Duration(cfg.FirstByteTimeoutSec) * time.Second,
		maxRetries: cfg.MaxRetries, backoff: 250 * time.Millisecond, maxBackoff: 8 * time.Second, retryTimeouts: cfg.RetryOnTimeout}
}

// outRequest is a request to send upstream.
type outRequest struct {
	method string
	path   string // API path after the base, e.g. "/chat/completions"
	body   []byte
	header http.Header // headers to send besides auth and content type
	auth   authHeaders // the caller's credentials, used with forward_client_auth
}

// authHeaders are the caller's credentials.
type authHeaders struct {
	authorization, apiKey string
}

// do sends r to u, retrying connect errors, 429 and 5xx with exponential
// backoff and jitter (honouring Retry-After) while nothing has been sent to
// the client; a first-byte timeout only with proxy.retry_on_timeout. A response that is not retried is returned as is, whatever
// its status; the caller closes its body.
func (c *client) do(ctx context.Context, u *upstream, r outRequest, forwardAuth bool) (*http.Response, int, error) {
	for attempt := 0; ; attempt++ {
		resp, err := c.once(ctx, u, r, forwardAuth)
		if err == nil && !retryable(resp.StatusCode) {
			return resp, attempt, nil
		}
		if ctx.Err() != nil {
			if resp != nil {
				resp.Body.Close()
			}
			return nil, attempt, ctx.Err()
		}
		if attempt >= c.maxRetries || err != nil && !c.retryTimeouts && unanswered(err) {
			if err != nil {
				return nil, attempt, classify(err)
			}
			return resp, attempt, nil
		}
		wait := c.delay(attempt, resp)
		if resp != nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
		}
		select {
		case <-ctx.Done():
			return nil, attempt, ctx.Err()
		case <-time.After(wait):
		}
	}
}

func (c *client) once(ctx context.Context, u *upstream, r outRequest, forwardAuth bool) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, r.method, u.url(r.path), bytes.NewReader(r.body))
	if err != nil {
		return nil, fmt.Errorf("build upstream request: %w", err)
	}
	for k, vs := range r.header {
		req.Header[k] = vs
	}
	for k, v := range u.headers {
		req.Header.Set(k, v)
	}
	if r.body != nil && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	setAuth(req.Header, u, r.auth, forwardAuth)
	return c.http.Do(req)
}

// setAuth puts the configured key, or the caller's own credentials with
// forward_client_auth, in the header the upstream's API expects.
func setAuth(h http.Header, u *upstream, caller authHeaders, forward bool) {
	if forward && (caller.authorization != "" || caller.apiKey != "") {
		if caller.authorization != "" {
			h.Set("Authorization", caller.authorization)
		}
		if caller.apiKey != "" {
			h.Set("X-Api-Key", caller.apiKey)
		}
		return
	}
	if u.key == "" {
		return
	}
	if u.api == apiAnthropic {
		h.Set("X-Api-Key", u.key)
		return
	}
	h.Set("Authorization", "Bearer "+u.key)
}

func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status >= 500 && status != http.StatusNotImplemented
}

// delay is the wait before retry number attempt+1: what the upstream asked
// for (Retry-After-Ms or Retry-After, capped), else exponential backoff with
// full jitter.
func (c *client) delay(attempt int, resp *http.Response) time.Duration {
	if resp != nil {
		if d, ok := retryafter.Read(resp.Header, time.Now()); ok {
			return min(d, c.maxBackoff)
		}
	}
	d := c.backoff << attempt
	if d > c.maxBackoff || d <= 0 {
		d = c.maxBackoff
	}
	return d/2 + rand.N(d/2+1)
}

// unanswered reports whether err is a timeout waiting for the answer to a
// request the upstream received (not one connecting, which sent nothing).
func unanswered(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return false
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() && !strings.Contains(err.Error(), "TLS handshake timeout")
}

// classify turns a transport error into a 502 or 504 upstreamError.
func classify(err error) error {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		return &upstreamError{status: http.StatusGatewayTimeout, err: fmt.Errorf("%w: %v", errUpstreamTimeout, redactURL(err))}
	}
	return &upstreamError{status: http.StatusBadGateway, err: fmt.Errorf("upstream unreachable: %v", redactURL(err))}
}

// redactURL drops the request URL from a *url.Error message so query
// strings (which some providers use for keys) never reach logs or clients.
func redactURL(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}
