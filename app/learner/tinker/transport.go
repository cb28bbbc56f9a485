package tinker

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/metaclaw/metaclaw/proxy/retryafter"
)

const (
	apiPrefix      = "/api/v1/"
	maxBodyBytes   = 256 << 20
	defaultTimeout = 60 * time.Second
	maxEmpty400    = 16
)

// callOpts tune one call of do.
type callOpts struct {
	get          bool              // GET without a body, no idempotency key
	timeout      time.Duration     // per attempt; 0 = 60 s
	noRetry      bool              // one attempt only
	backpressure bool              // hand a 429 back at once (asample)
	idemKey      string            // reused across retries; "" = a new one
	headers      map[string]string // extra headers
}

// rawResponse is one HTTP answer.
type rawResponse struct {
	status int
	header http.Header
	body   []byte
}

// do sends a call, retrying as the SDK does: connection errors, 408, 409,
// 429 and ≥500 (x-should-retry overrides) up to MaxRetries times, waiting
// Retry-After (0–60 s) or min(0.5·2ⁿ, 10 s)×[0.75,1]; a 400 with an empty
// body counts as a broken connection (up to 16 times). A 2xx body is
// decoded into out when out is not nil.
func (c *Client) do(ctx context.Context, endpoint string, body []byte, out any, o callOpts) error {
	if !o.get && o.idemKey == "" {
		o.idemKey = newIdemKey()
	}
	if endpoint != "auth/token" {
		c.maybeRefreshJWT(ctx, jwtMinLeft)
	}
	empty400 := 0
	for n := 0; ; n++ {
		resp, err := c.attempt(ctx, endpoint, body, o)
		if err != nil && ctx.Err() != nil {
			return fmt.Errorf("tinker: %s: %w", endpoint, ctx.Err())
		}
		if err == nil && resp.status/100 == 2 {
			return decodeBody(endpoint, resp.body, out)
		}
		retry, d := c.retryDecision(resp, err, n, &empty400, o)
		if !retry {
			return c.failure(endpoint, resp, err)
		}
		if err := c.opts.Sleep(ctx, d); err != nil {
			return fmt.Errorf("tinker: %s: %w", endpoint, err)
		}
	}
}

// attempt sends one HTTP request and reads the whole answer.
func (c *Client) attempt(ctx context.Context, endpoint string, body []byte, o callOpts) (*rawResponse, error) {
	actx, cancel := context.WithTimeout(ctx, cmpOr(o.timeout, defaultTimeout))
	defer cancel()
	method, rd := http.MethodPost, io.Reader(bytes.NewReader(body))
	if o.get {
		method, rd = http.MethodGet, nil
	}
	req, err := http.NewRequestWithContext(actx, method, c.opts.BaseURL+apiPrefix+endpoint, rd)
	if err != nil {
		return nil, err
	}
	c.setHeaders(req, o)
	resp, err := c.opts.HTTPClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBodyBytes))
	if err != nil {
		return nil, err
	}
	return &rawResponse{status: resp.StatusCode, header: resp.Header, body: b}, nil
}

func (c *Client) setHeaders(req *http.Request, o callOpts) {
	req.Header.Set("X-API-Key", c.credential())
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.opts.UserAgent)
	if !o.get {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Idempotency-Key", o.idemKey)
	}
	for k, v := range o.headers {
		req.Header.Set(k, v)
	}
}

// retryDecision says whether to retry after attempt n, and how long to wait.
func (c *Client) retryDecision(resp *rawResponse, err error, n int, empty400 *int, o callOpts) (bool, time.Duration) {
	if o.noRetry {
		return false, 0
	}
	if err == nil && resp.status == http.StatusBadRequest && len(bytes.TrimSpace(resp.body)) == 0 {
		*empty400++
		c.opts.HTTPClient.CloseIdleConnections()
		return *empty400 <= maxEmpty400, c.backoff(0)
	}
	if n >= c.opts.MaxRetries {
		return false, 0
	}
	if err != nil {
		return true, c.backoff(n)
	}
	if o.backpressure && resp.status == http.StatusTooManyRequests {
		return false, 0
	}
	if !shouldRetry(resp) {
		return false, 0
	}
	if d, ok := retryAfter(resp.header, c.opts.Now()); ok {
		return true, d
	}
	return true, c.backoff(n)
}

// shouldRetry applies x-should-retry, then the retryable statuses.
func shouldRetry(resp *rawResponse) bool {
	switch strings.ToLower(resp.header.Get("X-Should-Retry")) {
	case "true":
		return true
	case "false":
		return false
	}
	s := resp.status
	return s == 408 || s == 409 || s == 429 || s >= 500
}

// backoff is min(0.5·2ⁿ, 10) s scaled by a jitter factor in [0.75, 1].
func (c *Client) backoff(n int) time.Duration {
	d := 10 * time.Second
	if n < 5 {
		d = time.Duration(float64(500*time.Millisecond) * float64(int(1)<<n))
	}
	return time.Duration(float64(d) * (0.75 + 0.25*c.opts.Rand()))
}

// retryAfter reads the server's wait (see retryafter.Read); waits over
// 60 s are ignored.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	d, ok := retryafter.Read(h, now)
	return d, ok && d <= 60*time.Second
}

// failure turns the last attempt into an error.
func (c *Client) failure(endpoint string, resp *rawResponse, err error) error {
	if err != nil {
		return &ConnError{Endpoint: endpoint, Err: err}
	}
	return &APIError{Endpoint: endpoint, Status: resp.status, Message: redact(errorMessage(resp.body), c.opts.APIKey)}
}

// errorMessage extracts a readable message from an error body.
func errorMessage(body []byte) string {
	var m map[string]any
	if json.Unmarshal(body, &m) == nil {
		for _, k := range []string{"detail", "message", "error"} {
			if s, ok := m[k].(string); ok && s != "" {
				return s
			}
		}
	}
	return strings.TrimSpace(string(body))
}

func decodeBody(endpoint string, body []byte, out any) error {
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("tinker: %s: decode response: %w", endpoint, err)
	}
	return nil
}

// newIdemKey returns a random UUIDv4 string.
func newIdemKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// marshal encodes a request body.
func marshal(endpoint string, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("tinker: %s: encode request: %w", endpoint, err)
	}
	return b, nil
}
