package weaver

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

	"github.com/metaclaw/metaclaw/app/learner/internal/wait"
	"github.com/metaclaw/metaclaw/app/learner/tinker"
)

// retry says which failures a call retries.
type retry int

const (
	// noRetry: one attempt (operations, which are not idempotent, and
	// heartbeats).
	noRetry retry = iota
	// retryTransient: up to 4 attempts on a refused connection, 429 and
	// 502-504, the failures where the request was not taken.
	retryTransient
)

// callTimeout bounds one request.
const callTimeout = 60 * time.Second

// maxBody bounds an answer (sample results of long sequences included).
const maxBody = 64 << 20

// call sends one JSON request and decodes the answer into out (nil: the
// answer is dropped). Failures are *tinker.APIError (an error status,
// Service "weaver") or *tinker.ConnError.
func (c *Client) call(ctx context.Context, method, path string, body, out any, r retry) error {
	var data []byte
	if body != nil {
		var err error
		if data, err = json.Marshal(body); err != nil {
			return fmt.Errorf("weaver: %s: encode request: %w", endpointName(path), err)
		}
	}
	delay := 500 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := c.attempt(ctx, method, path, data, out)
		if r == noRetry || attempt == 4 || !transient(err) || ctx.Err() != nil {
			return err
		}
		if werr := wait.Sleep(ctx, delay); werr != nil {
			return err
		}
		delay *= 2
	}
}

func (c *Client) attempt(ctx context.Context, method, path string, data []byte, out any) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	var rd io.Reader
	if data != nil {
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.opts.BaseURL+path, rd)
	if err != nil {
		return fmt.Errorf("weaver: %s: %w", endpointName(path), err)
	}
	req.Header.Set("X-WEAVER-API-KEY", c.opts.APIKey)
	req.Header.Set("User-Agent", DefaultUserAgent)
	if data != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.opts.HTTPClient.Do(req)
	if err != nil {
		return &tinker.ConnError{Endpoint: endpointName(path), Err: err, Service: "weaver"}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return &tinker.ConnError{Endpoint: endpointName(path), Err: err, Service: "weaver"}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return c.apiError(path, resp.StatusCode, raw)
	}
	if out == nil || len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("weaver: %s: decode answer: %w", endpointName(path), err)
	}
	return nil
}

// apiError reads Weaver's error body {"error", "message", "retryable"},
// with the key redacted if the service echoed it.
func (c *Client) apiError(path string, status int, raw []byte) error {
	var body struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	}
	msg := strings.TrimSpace(string(raw))
	if json.Unmarshal(raw, &body) == nil && (body.Error != "" || body.Message != "") {
		msg = strings.TrimPrefix(body.Error+": "+body.Message, ": ")
	}
	if len(msg) > 500 {
		msg = msg[:500] + "…"
	}
	msg = strings.ReplaceAll(msg, c.opts.APIKey, "[redacted]")
	return &tinker.APIError{Endpoint: endpointName(path), Status: status, Message: msg, Service: "weaver"}
}

// transient reports failures a retry may cure without the service having
// acted: a refused connection, 429 and 502-504.
func transient(err error) bool {
	var ae *tinker.APIError
	if errors.As(err, &ae) {
		return ae.Status == http.StatusTooManyRequests || (ae.Status >= 502 && ae.Status <= 504)
	}
	var ce *tinker.ConnError
	return errors.As(err, &ce) && strings.Contains(ce.Err.Error(), "connection refused")
}

// endpointName names a path in errors: /api/v1/sessions is
// "create_session", the rest their last segment (forward-backward-passes,
// samples, ...).
func endpointName(path string) string {
	p := strings.TrimPrefix(path, "/api/v1/")
	if p == "sessions" {
		return "create_session"
	}
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// lookup finds a member as the SDK's lookup_case_insensitive does: name,
// lower, upper, capitalised, without underscores, then CamelCase and
// camelCase.
func lookup(m map[string]any, name string) (any, bool) {
	variants := []string{name, strings.ToLower(name), strings.ToUpper(name),
		strings.ToUpper(name[:1]) + strings.ToLower(name[1:]), strings.ReplaceAll(strings.ToLower(name), "_", "")}
	parts := strings.Split(name, "_")
	for i, p := range parts {
		if p != "" {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	upper := strings.Join(parts, "")
	variants = append(variants, upper, strings.ToLower(upper[:1])+upper[1:])
	for _, v := range variants {
		if x, ok := m[v]; ok && x != nil {
			return x, true
		}
	}
	return nil, false
}

// lookupString is lookup's value as text ("" when absent).
func lookupString(m map[string]any, name string) string {
	v, ok := lookup(m, name)
	if !ok {
		return ""
	}
	switch x := v.(type) {
	case string:
		return x
	case float64, bool, json.Number:
		return fmt.Sprint(x)
	}
	return ""
}

// lookupMap is lookup's value as an object.
func lookupMap(m map[string]any, name string) map[string]any {
	v, _ := lookup(m, name)
	out, _ := v.(map[string]any)
	return out
}
