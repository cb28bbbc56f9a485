package openai

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// Error type strings used in OpenAI-style error bodies.
const (
	ErrInvalidRequest  = "invalid_request_error"
	ErrAuthentication  = "authentication_error"
	ErrPermission      = "permission_error"
	ErrNotFound        = "not_found_error"
	ErrRequestTooLarge = "request_too_large"
	ErrRateLimit       = "rate_limit_error"
	ErrServer          = "server_error"
	ErrUpstream        = "upstream_error"
	ErrTimeout         = "timeout_error"
)

// Error codes returned by ParseChatRequest and Messages.
const (
	CodeInvalidJSON     = "invalid_json"
	CodeInvalidUTF8     = "invalid_utf8"
	CodeInvalidBody     = "invalid_body"
	CodeMissingMessages = "missing_messages"
	CodeInvalidMessages = "invalid_messages"
	CodeInvalidType     = "invalid_type"
)

// RequestError describes a client request the proxy rejects. It carries
// everything needed to answer with an OpenAI-style error body.
type RequestError struct {
	Status  int    // HTTP status, 400 for validation failures
	Type    string // error.type, e.g. "invalid_request_error"
	Code    string // error.code, e.g. "invalid_json"
	Param   string // error.param, the offending field when known
	Message string // human-readable message
}

// Error implements error.
func (e *RequestError) Error() string { return e.Message }

// Body returns the OpenAI-style JSON error body for e.
func (e *RequestError) Body() []byte {
	return newError(e.Type, e.Code, e.Param, e.Message)
}

// invalid returns a 400 invalid_request_error.
func invalid(code, param, format string, args ...any) *RequestError {
	return &RequestError{
		Status:  http.StatusBadRequest,
		Type:    ErrInvalidRequest,
		Code:    code,
		Param:   param,
		Message: fmt.Sprintf(format, args...),
	}
}

// NewError returns an OpenAI-style error body:
// {"error":{"message":...,"type":...,"param":null,"code":...}}. An empty
// typ is replaced by ErrorTypeForStatus(status); an empty code is null.
func NewError(status int, typ, code, message string) []byte {
	if typ == "" {
		typ = ErrorTypeForStatus(status)
	}
	return newError(typ, code, "", message)
}

func newError(typ, code, param, message string) []byte {
	type body struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	}
	b := body{Message: message, Type: typ}
	if param != "" {
		b.Param = &param
	}
	if code != "" {
		b.Code = &code
	}
	out, _ := marshalJSON(map[string]body{"error": b}) // strings cannot fail
	return out
}

// ErrorTypeForStatus returns the error type for an HTTP status: 400
// invalid_request_error, 401 authentication_error, 403 permission_error,
// 404 not_found_error, 413 request_too_large, 429 rate_limit_error, 502
// upstream_error, 504 timeout_error, other 5xx server_error (OpenAI's own
// type for internal errors) and other 4xx invalid_request_error.
func ErrorTypeForStatus(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return ErrAuthentication
	case http.StatusForbidden:
		return ErrPermission
	case http.StatusNotFound:
		return ErrNotFound
	case http.StatusRequestEntityTooLarge:
		return ErrRequestTooLarge
	case http.StatusTooManyRequests:
		return ErrRateLimit
	case http.StatusBadGateway:
		return ErrUpstream
	case http.StatusGatewayTimeout:
		return ErrTimeout
	}
	if status >= 500 {
		return ErrServer
	}
	return ErrInvalidRequest
}

// StreamError is an error object received inside a stream, e.g. a
// provider's {"error":{...}} chunk.
type StreamError struct {
	Type    string
	Code    string
	Message string
}

// Error implements error.
func (e *StreamError) Error() string {
	if e.Type == "" {
		return "stream error: " + e.Message
	}
	return "stream error: " + e.Type + ": " + e.Message
}

// parseStreamError decodes an "error" member, tolerating a plain string or
// a numeric code.
func parseStreamError(raw json.RawMessage) *StreamError {
	var obj struct {
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
		Message string          `json:"message"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return &StreamError{Message: s}
		}
		return &StreamError{Message: string(raw)}
	}
	se := &StreamError{Type: obj.Type, Message: obj.Message}
	var code string
	if json.Unmarshal(obj.Code, &code) == nil {
		se.Code = code
	} else if !isNull(obj.Code) {
		se.Code = string(obj.Code)
	}
	return se
}
