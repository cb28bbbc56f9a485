package tinker

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// ErrSequenceBroken marks a call that took a seq_id but could not deliver
// it, so the service will wait for it forever. Every later call on the same
// Model or SamplingSession fails fast with an error wrapping it; see the
// package documentation for what the caller must do.
var ErrSequenceBroken = errors.New("tinker: sequence broken")

// ErrNotStarted is returned by calls that need a session before Start.
var ErrNotStarted = errors.New("tinker: client not started")

// APIError is an error status the service answered with, after any retries.
// Status 401, 403 and 404 are fatal: retrying will not help. The message is
// the body's detail text with the API key, if echoed, redacted.
type APIError struct {
	Endpoint string // e.g. "create_session"
	Status   int
	Message  string
	// Service names a service other than Tinker that answered (a Weaver
	// client fills it in; "" means tinker).
	Service string
}

// serviceName is the prefix of an error message.
func serviceName(s string) string {
	if s == "" {
		return "tinker"
	}
	return s
}

// Error names the endpoint and the status, never the key.
func (e *APIError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = strings.ToLower(http.StatusText(e.Status))
	}
	hint := ""
	switch e.Status {
	case http.StatusUnauthorized:
		hint = " (check rl.api_key)"
	case http.StatusNotFound:
		switch {
		case e.Service != "" && e.Endpoint == "create_session":
			hint = " (check rl.base_url: is this a " + e.Service + " service?)"
		case e.Endpoint == "create_session" || e.Endpoint == "client/config":
			hint = " (check rl.base_url: is this a Tinker-compatible service?)"
		}
	}
	return fmt.Sprintf("%s: %s: http %d: %s%s", serviceName(e.Service), e.Endpoint, e.Status, msg, hint)
}

// Fatal reports whether the error cannot be cured by retrying: 401, 403,
// 404, or any 4xx other than 408, 409 and 429.
func (e *APIError) Fatal() bool {
	s := e.Status
	return s >= 400 && s < 500 && s != 408 && s != 409 && s != 429
}

// ConnError is a failure to reach the service (refused connection, reset,
// timeout), after any retries.
type ConnError struct {
	Endpoint string
	Err      error
	Service  string // as in APIError
}

// Error names the endpoint and the cause.
func (e *ConnError) Error() string {
	return fmt.Sprintf("%s: %s: service unreachable: %v", serviceName(e.Service), e.Endpoint, e.Err)
}

// Unwrap returns the cause.
func (e *ConnError) Unwrap() error { return e.Err }

// FutureError is a request the service accepted and then failed: a
// retrieve_future answer {"error": ..., "category": ...}. Category is
// "user" (the request was wrong), "server" or "unknown".
type FutureError struct {
	RequestType string // e.g. "ForwardBackward"
	RequestID   string
	Category    string
	Message     string
}

// Error names the request type and category.
func (e *FutureError) Error() string {
	return fmt.Sprintf("tinker: %s request %s failed (%s): %s", e.RequestType, e.RequestID, e.Category, e.Message)
}

// statusOf returns the HTTP status of an *APIError in err's chain, or 0.
func statusOf(err error) int {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Status
	}
	return 0
}

// IsFatal reports whether err is an *APIError that retrying cannot cure, or
// ErrSequenceBroken.
func IsFatal(err error) bool {
	var ae *APIError
	if errors.As(err, &ae) && ae.Fatal() {
		return true
	}
	return errors.Is(err, ErrSequenceBroken)
}

// redact removes the key from a server message, in case it echoes it.
func redact(msg, key string) string {
	if key != "" && len(key) >= 4 {
		msg = strings.ReplaceAll(msg, key, "[redacted]")
	}
	if len(msg) > 500 {
		msg = msg[:500] + "…"
	}
	return msg
}
