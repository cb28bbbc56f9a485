package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/metaclaw/metaclaw/app/learner/internal/wait"
)

// MaxBodyBytes bounds a response body; a successful response over it is
// refused with ErrBodyTooLarge, so that a broken provider cannot exhaust
// memory.
const MaxBodyBytes = 8 << 20

// maxMessageBytes bounds the provider's message kept in an APIError.
const maxMessageBytes = 512

// minSecretLen is the shortest secret redacted from error text: shorter
// ones (test keys such as "k") would mangle every message.
const minSecretLen = 6

// userAgent names MetaClaw to providers.
const userAgent = "MetaClaw (Go learner client)"

// ErrBodyTooLarge is returned when a successful response exceeds
// MaxBodyBytes.
var ErrBodyTooLarge = errors.New("response body too large")

// Poster posts JSON to an HTTP API and decodes the JSON answer, with the
// official SDKs' retry policy: up to MaxRetries retries after a transport
// error (refused connection, reset, attempt timeout) or a 408, 409, 429 or
// 5xx answer (an x-should-retry header overrides the status), waiting as
// Retry-After-Ms or Retry-After say, or else 0.5 s doubling per retry with
// up to 25 % jitter. A Poster is safe for concurrent use once set up.
type Poster struct {
	// Header is sent with every request (credentials, provider headers),
	// after the defaults (Content-Type, Accept, User-Agent).
	Header http.Header
	// Secret (the API key) is redacted from every error's text.
	Secret string
	// Timeout bounds one attempt, reading the body included; 0 = none.
	Timeout time.Duration
	// MaxRetries is the number of retries after the first attempt.
	MaxRetries int
	// MaxRetryDelay caps the computed backoff, and a server-directed wait
	// above it ends the retries; 0 = 8 s backoff and 2 min server waits
	// (the OpenAI SDK's defaults).
	MaxRetryDelay time.Duration
	// Client sends the requests; nil = a client that follows redirects
	// only within the request's origin, so credentials never leave it.
	Client *http.Client
}

// APIError is an error status a provider answered with, after any
// retries. Message is the provider's own message (OpenAI's
// {"error":{"message"}}, Anthropic's {"type":"error","error":{"message"}},
// or the body's text), truncated and with the API key redacted.
type APIError struct {
	StatusCode int
	Type       string // the provider's error type, e.g. "rate_limit_error"
	Message    string
}

// Error names the status and the provider's message, never the key.
func (e *APIError) Error() string {
	s := fmt.Sprintf("http %d", e.StatusCode)
	if t := http.StatusText(e.StatusCode); t != "" {
		s += " " + strings.ToLower(t)
	}
	if e.Type != "" {
		s += ": " + e.Type
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// StatusOf returns the HTTP status of an APIError in err's chain, or 0.
func StatusOf(err error) int {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.StatusCode
	}
	return 0
}

// BearerHeader returns the headers of an OpenAI-style API: the key as a
// bearer token (when set) and the extra headers.
func BearerHeader(key string, extra map[string]string) http.Header {
	h := http.Header{}
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
	for k, v := range extra {
		h.Set(k, v)
	}
	return h
}

// response is one attempt's answer, its body read (up to MaxBodyBytes).
type response struct {
	status   int
	header   http.Header
	body     []byte
	tooLarge bool
}

// permanent marks an error that retrying cannot cure.
type permanent struct{ error }

func (e permanent) Unwrap() error { return e.error }

// PostJSON posts in, JSON-encoded, to url and decodes a 2xx answer into
// out. ctx bounds the whole call, retries and waits included; once it is
// done its error is returned as it is.
func (p *Poster) PostJSON(ctx context.Context, url string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("encode request: %w", err)
	}
	for n := 0; ; n++ {
		res, err := p.attempt(ctx, url, body)
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err == nil && res.status >= 200 && res.status < 300 {
			return p.decode(res, out)
		}
		delay, retry := p.retryDelay(res, err, n)
		if !retry {
			return p.failure(res, err)
		}
		if err := wait.Sleep(ctx, delay); err != nil {
			return err
		}
	}
}

// attempt sends one request and reads the whole answer, within Timeout.
func (p *Poster) attempt(ctx context.Context, url string, body []byte) (*response, error) {
	if p.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, p.Timeout)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, permanent{fmt.Errorf("build request: %w", err)}
	}
	p.setHeaders(req.Header)
	hres, err := p.client().Do(req)
	if err != nil {
		return nil, err
	}
	defer hres.Body.Close()
	b, err := io.ReadAll(io.LimitReader(hres.Body, MaxBodyBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read response: %w", err)
	}
	res := &response{status: hres.StatusCode, header: hres.Header, body: b}
	if len(b) > MaxBodyBytes {
		res.body, res.tooLarge = b[:MaxBodyBytes], true
	}
	return res, nil
}

func (p *Poster) setHeaders(h http.Header) {
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json")
	h.Set("User-Agent", userAgent)
	for k, vs := range p.Header {
		h.Del(k)
		for _, v := range vs {
			h.Add(k, v)
		}
	}
}

// defaultClient follows redirects only within the first request's origin.
var defaultClient = &http.Client{CheckRedirect: sameOrigin}

// sameOrigin stops at a redirect to another scheme or host (or after 10
// redirects) and returns that redirect response, which then fails as an
// APIError: custom credential headers such as x-api-key, which net/http
// would forward, must never reach another host.
func sameOrigin(req *http.Request, via []*http.Request) error {
	first := via[0].URL
	if len(via) >= 10 || req.URL.Scheme != first.Scheme || req.URL.Host != first.Host {
		return http.ErrUseLastResponse
	}
	return nil
}

func (p *Poster) client() *http.Client {
	if p.Client != nil {
		return p.Client
	}
	return defaultClient
}

// decode unmarshals a successful answer into out.
func (p *Poster) decode(res *response, out any) error {
	if res.tooLarge {
		return fmt.Errorf("%w: over %d bytes", ErrBodyTooLarge, MaxBodyBytes)
	}
	if err := json.Unmarshal(res.body, out); err != nil {
		return p.scrub(fmt.Errorf("decode response: %w", err))
	}
	return nil
}

// failure turns the last attempt into an error: the transport error, or
// an APIError for the answer's status and body.
func (p *Poster) failure(res *response, err error) error {
	if err != nil {
		return p.scrub(err)
	}
	typ, msg := errorDetail(res.body)
	return &APIError{
		StatusCode: res.status,
		Type:       truncate(redact(typ, p.Secret), 64),
		Message:    truncate(redact(msg, p.Secret), maxMessageBytes),
	}
}

// errorDetail finds the type and message in an error body: an "error"
// object with "type" and "message" (OpenAI, Anthropic), an "error" string,
// a top-level "message", or else the body's text with spaces collapsed.
func errorDetail(body []byte) (typ, msg string) {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &v) == nil {
		var obj struct{ Type, Message string }
		if json.Unmarshal(v.Error, &obj) == nil && (obj.Message != "" || obj.Type != "") {
			return obj.Type, obj.Message
		}
		var s string
		if json.Unmarshal(v.Error, &s) == nil && s != "" {
			return "", s
		}
		if v.Message != "" {
			return "", v.Message
		}
	}
	if len(body) > 4*maxMessageBytes {
		body = body[:4*maxMessageBytes]
	}
	return "", strings.Join(strings.Fields(string(body)), " ")
}

// redactedError is an error whose text had the secret removed; it still
// unwraps to the original.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// scrub returns err with the secret removed from its text.
func (p *Poster) scrub(err error) error {
	if len(p.Secret) < minSecretLen || !strings.Contains(err.Error(), p.Secret) {
		return err
	}
	return &redactedError{msg: redact(err.Error(), p.Secret), err: err}
}

// redact replaces every occurrence of secret in s.
func redact(s, secret string) string {
	if len(secret) < minSecretLen {
		return s
	}
	return strings.ReplaceAll(s, secret, "[redacted]")
}

// truncate cuts s to at most n bytes on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
