package anthropic

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// Error type strings used in Anthropic error bodies
// (https://docs.claude.com/en/api/errors).
const (
	ErrInvalidRequest  = "invalid_request_error"
	ErrAuthentication  = "authentication_error"
	ErrBilling         = "billing_error"
	ErrPermission      = "permission_error"
	ErrNotFound        = "not_found_error"
	ErrRequestTooLarge = "request_too_large"
	ErrRateLimit       = "rate_limit_error"
	ErrAPI             = "api_error"
	ErrTimeout         = "timeout_error"
	ErrOverloaded      = "overloaded_error"
)

// RequestError describes a client request the proxy rejects. Anthropic
// errors have no code member; Code is informational (same codes as the
// openai package: invalid_json, invalid_utf8, ...) and not serialised.
type RequestError struct {
	Status  int
	Type    string
	Code    string
	Message string
}

// Error implements error.
func (e *RequestError) Error() string { return e.Message }

// Body returns the Anthropic-style JSON error body for e.
func (e *RequestError) Body() []byte { return NewError(e.Status, e.Type, e.Message) }

// Error codes carried by RequestError.Code.
const (
	CodeInvalidJSON     = "invalid_json"
	CodeInvalidUTF8     = "invalid_utf8"
	CodeInvalidBody     = "invalid_body"
	CodeMissingMessages = "missing_messages"
	CodeInvalidMessages = "invalid_messages"
	CodeInvalidType     = "invalid_type"
)

// invalid returns a 400 invalid_request_error.
func invalid(code, format string, args ...any) *RequestError {
	return &RequestError{
		Status:  http.StatusBadRequest,
		Type:    ErrInvalidRequest,
		Code:    code,
		Message: fmt.Sprintf(format, args...),
	}
}

// NewError returns an Anthropic error body:
// {"type":"error","error":{"type":...,"message":...}}. An empty typ is
// replaced by ErrorTypeForStatus(status).
func NewError(status int, typ, message string) []byte {
	if typ == "" {
		typ = ErrorTypeForStatus(status)
	}
	return errorJSON(typ, message)
}

// errorJSON is the body shared by HTTP errors and stream error events.
func errorJSON(typ, message string) []byte {
	type inner struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}
	out, _ := marshalJSON(struct {
		Type  string `json:"type"`
		Error inner  `json:"error"`
	}{"error", inner{typ, message}}) // strings cannot fail
	return out
}

// ErrorTypeForStatus maps an HTTP status to the Anthropic error type, per
// the documented table: 400 invalid_request_error, 401
// authentication_error, 402 billing_error, 403 permission_error, 404
// not_found_error, 413 request_too_large, 429 rate_limit_error, 500
// api_error, 504 timeout_error, 529 overloaded_error. Choices beyond the
// table: 503 maps to overloaded_error (a temporarily unavailable upstream
// is retryable like an overload), 502 and other 5xx to api_error, other
// 4xx to invalid_request_error (as the docs say Anthropic itself does).
func ErrorTypeForStatus(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return ErrAuthentication
	case http.StatusPaymentRequired:
		return ErrBilling
	case http.StatusForbidden:
		return ErrPermission
	case http.StatusNotFound:
		return ErrNotFound
	case http.StatusRequestEntityTooLarge:
		return ErrRequestTooLarge
	case http.StatusTooManyRequests:
		return ErrRateLimit
	case http.StatusGatewayTimeout:
		return ErrTimeout
	case http.StatusServiceUnavailable, 529:
		return ErrOverloaded
	}
	if status >= 500 {
		return ErrAPI
	}
	return ErrInvalidRequest
}

// StreamError is an "error" event received in an Anthropic stream.
type StreamError struct {
	Type    string
	Message string
}

// Error implements error.
func (e *StreamError) Error() string {
	return "stream error: " + e.Type + ": " + e.Message
}

// parseStreamError decodes {"type":"error","error":{...}}.
func parseStreamError(data []byte) *StreamError {
	var ev struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(data, &ev); err != nil {
		return &StreamError{Type: ErrAPI, Message: string(data)}
	}
	return &StreamError{Type: ev.Error.Type, Message: ev.Error.Message}
}
