package proxy

import (
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// dropRequestHeaders are never forwarded upstream: hop-by-hop headers,
// credentials (set by setAuth), MetaClaw's own identity headers,
// Accept-Encoding (the proxy reads the bytes it relays), and what a browser
// adds about the page and the person (Origin, Referer, Cookie; every Sec-*
// header is dropped too, see forwardHeaders).
var dropRequestHeaders = map[string]bool{
	"Host": true, "Content-Length": true, "Connection": true, "Keep-Alive": true, "Transfer-Encoding": true,
	"Upgrade": true, "Proxy-Authorization": true, "Proxy-Connection": true, "Te": true, "Trailer": true,
	"Authorization": true, "X-Api-Key": true, "X-Metaclaw-Key": true, "Accept-Encoding": true, "Cookie": true,
	"Content-Type": true, "Origin": true, "Referer": true,
	"X-Session-Id": true, "X-Turn-Type": true, "X-Session-Done": true, "X-User-Id": true,
	"X-Workspace-Id": true, "X-Memory-Scope": true,
}

// forwardHeaders copies the client's headers that the upstream should see
// (anthropic-version, anthropic-beta, OpenAI-Organization, user agents,
// trace context...).
func forwardHeaders(c *fiber.Ctx) http.Header {
	h := make(http.Header, 8)
	c.Request().Header.VisitAll(func(k, v []byte) {
		key := http.CanonicalHeaderKey(string(k))
		if dropRequestHeaders[key] || strings.HasPrefix(key, "Sec-") {
			return
		}
		h.Add(key, string(v))
	})
	return h
}

// callerAuth returns the caller's credentials, for forward_client_auth.
func callerAuth(c *fiber.Ctx) authHeaders {
	return authHeaders{authorization: strings.Clone(c.Get(fiber.HeaderAuthorization)), apiKey: strings.Clone(c.Get("X-Api-Key"))}
}

// dropResponseHeaders are not relayed back: hop-by-hop and length/encoding
// headers that the proxy's own response framing replaces.
var dropResponseHeaders = map[string]bool{
	"Content-Length": true, "Connection": true, "Keep-Alive": true, "Transfer-Encoding": true,
	"Content-Encoding": true, "Upgrade": true, "Trailer": true, "Te": true, "Date": true, "Server": true,
	"Set-Cookie": true,
}

// copyResponseHeaders relays the upstream's response headers (request ids,
// rate-limit headers, content type) to the client.
func copyResponseHeaders(c *fiber.Ctx, h http.Header) {
	for k, vs := range h {
		// CORS is the proxy's to answer (guardBrowser), never an upstream's.
		if dropResponseHeaders[k] || strings.HasPrefix(k, "Access-Control-") {
			continue
		}
		for _, v := range vs {
			c.Response().Header.Add(k, v)
		}
	}
}
