package fakeupstream

import (
	"net/http"
	"strings"
)

// openaiBadJSON is OpenAI's message for an unparsable request body.
const openaiBadJSON = "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you have trouble figuring out how to fix this, please contact us through our help center at help.openai.com.)"

// oaErrorBody mirrors OpenAI's error object.
type oaErrorBody struct {
	Error oaError `json:"error"`
}

type oaError struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

// anErrorBody mirrors Anthropic's error object.
type anErrorBody struct {
	Type      string  `json:"type"`
	Error     anError `json:"error"`
	RequestID string  `json:"request_id,omitempty"`
}

type anError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// openaiErrorDefaults returns OpenAI's error type, code and message for a
// status.
func openaiErrorDefaults(status int) (typ, code, msg string) {
	switch status {
	case http.StatusBadRequest:
		return "invalid_request_error", "", "Invalid request."
	case http.StatusUnauthorized:
		return "invalid_request_error", "invalid_api_key", "Incorrect API key provided."
	case http.StatusForbidden:
		return "invalid_request_error", "unsupported_country_region_territory", "Country, region, or territory not supported"
	case http.StatusNotFound:
		return "invalid_request_error", "model_not_found", "The model does not exist or you do not have access to it."
	case http.StatusTooManyRequests:
		return "requests", "rate_limit_exceeded", "Rate limit reached for requests. Please try again later."
	case http.StatusServiceUnavailable:
		return "server_error", "", "The server is overloaded or not ready yet."
	}
	if status >= 500 {
		return "server_error", "", "The server had an error while processing your request. Sorry about that!"
	}
	return "invalid_request_error", "", http.StatusText(status)
}

// anthropicErrorDefaults returns Anthropic's error type and message for a
// status.
func anthropicErrorDefaults(status int) (typ, msg string) {
	switch status {
	case http.StatusBadRequest:
		return "invalid_request_error", "Invalid request."
	case http.StatusUnauthorized:
		return "authentication_error", "invalid x-api-key"
	case http.StatusPaymentRequired:
		return "billing_error", "Your credit balance is too low."
	case http.StatusForbidden:
		return "permission_error", "Your API key does not have permission to use the specified resource."
	case http.StatusNotFound:
		return "not_found_error", "Not found"
	case http.StatusRequestEntityTooLarge:
		return "request_too_large", "Request exceeds the maximum allowed number of bytes."
	case http.StatusTooManyRequests:
		return "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit."
	case http.StatusGatewayTimeout:
		return "timeout_error", "Request timed out."
	case 529:
		return "overloaded_error", "Overloaded"
	}
	if status >= 500 {
		return "api_error", "Internal server error"
	}
	return "invalid_request_error", http.StatusText(status)
}

// openaiErrorJSON renders an OpenAI error body for the reply (or defaults).
func openaiErrorJSON(status int, typ, msg string) []byte {
	dtyp, code, dmsg := openaiErrorDefaults(status)
	e := oaError{Type: or(typ, dtyp), Message: or(msg, dmsg)}
	if code != "" && typ == "" {
		e.Code = &code
	}
	return marshal(oaErrorBody{Error: e})
}

// anthropicErrorJSON renders an Anthropic error body.
func anthropicErrorJSON(status int, typ, msg, requestID string) []byte {
	dtyp, dmsg := anthropicErrorDefaults(status)
	return marshal(anErrorBody{
		Type:      "error",
		Error:     anError{Type: or(typ, dtyp), Message: or(msg, dmsg)},
		RequestID: requestID,
	})
}

// openaiError answers with an OpenAI error.
func (s *Server) openaiError(w http.ResponseWriter, status int, msg, typ, retryAfter string) {
	h := w.Header()
	h.Set("X-Request-Id", s.nextID("req_"))
	if retryAfter != "" {
		h.Set("Retry-After", retryAfter)
	}
	writeJSONStatus(w, status, openaiErrorJSON(status, typ, msg))
}

// anthropicError answers with an Anthropic error.
func (s *Server) anthropicError(w http.ResponseWriter, status int, msg, typ, retryAfter string) {
	id := s.nextID("req_")
	h := w.Header()
	h.Set("Request-Id", id)
	if retryAfter != "" {
		h.Set("Retry-After", retryAfter)
	}
	writeJSONStatus(w, status, anthropicErrorJSON(status, typ, msg, id))
}

// replyError answers with the error status of reply c, in Anthropic's shape
// when anthropic is set and OpenAI's otherwise.
func (s *Server) replyError(w http.ResponseWriter, c *compiled, anthropic bool) {
	if anthropic {
		s.anthropicError(w, c.Status, c.ErrorMessage, c.ErrorType, c.RetryAfter)
		return
	}
	s.openaiError(w, c.Status, c.ErrorMessage, c.ErrorType, c.RetryAfter)
}

// isAnthropic reports whether a request comes from an Anthropic client.
func isAnthropic(r *http.Request) bool {
	return r.Header.Get("Anthropic-Version") != "" || strings.HasPrefix(r.URL.Path, "/v1/messages")
}

// notFound answers an unknown route with 404 in the caller's API shape.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	if isAnthropic(r) {
		s.anthropicError(w, http.StatusNotFound, "Not Found", "", "")
		return
	}
	msg := "Invalid URL (" + r.Method + " " + r.URL.Path + ")"
	s.openaiError(w, http.StatusNotFound, msg, "invalid_request_error", "")
}

// openaiStreamError renders the in-stream error event of c.
func openaiStreamError(c *compiled) []byte {
	status := c.Status
	if status == 0 || status == http.StatusOK {
		status = http.StatusInternalServerError
	}
	b := append([]byte("data: "), openaiErrorJSON(status, c.ErrorType, c.ErrorMessage)...)
	return append(b, "\n\n"...)
}

// anthropicStreamError renders the in-stream error event of c.
func anthropicStreamError(c *compiled) []byte {
	status := c.Status
	if status == 0 || status == http.StatusOK {
		status = 529
	}
	b := append([]byte("event: error\ndata: "), anthropicErrorJSON(status, c.ErrorType, c.ErrorMessage, "")...)
	return append(b, "\n\n"...)
}

// or returns a, or b when a is empty.
func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
