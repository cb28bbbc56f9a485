package proxy

import (
	"errors"
	"net/http"
	"regexp"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/metaclaw/metaclaw/proxy/anthropic"
	"github.com/metaclaw/metaclaw/proxy/learning"
	"github.com/metaclaw/metaclaw/proxy/openai"
	"github.com/valyala/fasthttp"
)

// isAnthropicRequest tells whether a request expects Anthropic-shaped
// errors: the Messages API path, or an anthropic-version header.
func isAnthropicRequest(c *fiber.Ctx) bool {
	return strings.HasPrefix(c.Path(), "/v1/messages") || c.Get("anthropic-version") != ""
}

// sendError writes an error in the shape of the client's API.
func sendError(c *fiber.Ctx, status int, code, message string) error {
	c.Status(status)
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	if isAnthropicRequest(c) {
		return c.Send(anthropic.NewError(status, anthropic.ErrorTypeForStatus(status), message))
	}
	return c.Send(openai.NewError(status, openai.ErrorTypeForStatus(status), code, message))
}

// errorHandler is Fiber's error handler: the answers of mounted learning
// APIs (learning.HTTPError), errors Fiber raises itself (body too large,
// unknown route, method not allowed) and panics recovered into errors get
// the client's API shape too.
func errorHandler(c *fiber.Ctx, err error) error {
	var he *learning.HTTPError
	if errors.As(err, &he) {
		return sendError(c, he.Status, he.Code, he.Message)
	}
	var fe *fiber.Error
	if errors.As(err, &fe) {
		switch fe.Code {
		case fiber.StatusRequestEntityTooLarge:
			return sendError(c, fe.Code, "request_too_large", "request body is larger than proxy.max_body_bytes")
		case fiber.StatusNotFound:
			return sendError(c, fe.Code, "not_found", "no route for "+c.Method()+" "+c.Path())
		case fiber.StatusMethodNotAllowed:
			return sendError(c, fe.Code, "method_not_allowed", c.Method()+" is not allowed on "+c.Path())
		}
		return sendError(c, fe.Code, "error", fe.Message)
	}
	return sendError(c, http.StatusInternalServerError, "internal_error", "internal error: "+err.Error())
}

// headerErrorHandler wraps the server's handler of errors raised while a
// request is read, before any route: fasthttp resets the request when its
// headers overflow the read buffer, so the path that picks the answer's
// shape is read back from the start of the request, which fasthttp quotes
// in its error ("... contents: \"POST /v1/messages HTTP/1.1\r\n...").
func headerErrorHandler(next func(*fasthttp.RequestCtx, error)) func(*fasthttp.RequestCtx, error) {
	return func(fctx *fasthttp.RequestCtx, err error) {
		if m := requestLine.FindStringSubmatch(err.Error()); m != nil {
			fctx.Request.Header.SetMethod(m[1])
			fctx.Request.SetRequestURI(m[2])
		}
		next(fctx, err)
	}
}

// requestLine finds the request line in a fasthttp header error.
var requestLine = regexp.MustCompile(`contents: "([A-Z]+) (/[^ "\\]*) HTTP/1\.[01]\\r\\n`)
