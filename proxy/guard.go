package proxy

import (
	"net"
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// The proxy holds the person's upstream key and decides what their agent
// remembers, so a web page the person happens to visit must not be able to
// use it. A page reaches 127.0.0.1 in two ways, and each has its guard:
//
//   - DNS rebinding: the page's own host name comes to resolve to
//     127.0.0.1, so its requests are same-origin to the browser and carry
//     the page's name in Host. guardHost answers only Hosts that are IP
//     addresses, localhost or proxy.host, unless proxy.api_key is set (then
//     the key is the protection).
//   - Cross-site requests: a fetch or form post straight to 127.0.0.1. A
//     browser marks every such request (Origin on every POST, Sec-Fetch-Site
//     on every request to a loopback address) and a page can remove neither;
//     guardBrowser refuses them unless the origin is in
//     proxy.allowed_origins. Agents, SDKs and scripts send neither header.
//     (OpenClaw's Node client sends Sec-Fetch-Mode: cors, which Node's fetch
//     adds to every request: that one header is not a browser's mark.)

// guardHost refuses requests whose Host a DNS-rebinding page could have
// chosen, on every route, when no proxy.api_key is set.
func (s *Server) guardHost(c *fiber.Ctx) error {
	if s.conf().Proxy.APIKey != "" || s.hostAllowed(string(c.Request().Host())) {
		return c.Next()
	}
	return sendError(c, http.StatusForbidden, "forbidden_host",
		"the proxy answers requests to an IP address, localhost or proxy.host only; set proxy.api_key to allow other host names")
}

// hostAllowed reports whether a Host header names an IP address (which
// DNS rebinding cannot forge), localhost, or proxy.host when that is a name.
func (s *Server) hostAllowed(host string) bool {
	if localHost(host) {
		return true
	}
	name := s.conf().Proxy.Host
	if name == "" || net.ParseIP(name) != nil {
		return false
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.EqualFold(strings.TrimSuffix(host, "."), strings.TrimSuffix(name, "."))
}

// localHost reports whether a Host header names an IP address or
// localhost (or a name under .localhost, which browsers resolve to the
// loopback address themselves).
func localHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	return net.ParseIP(host) != nil || host == "localhost" || strings.HasSuffix(host, ".localhost")
}

// guardBrowser refuses what a browser sends on a page's behalf: a request
// with an Origin that proxy.allowed_origins does not list, one marked
// Sec-Fetch-Site cross-site or same-site from such a page, and a body typed
// the way only a browser's form or no-CORS fetch types it (text/plain or a
// form encoding) from anything that looks like a browser. An allowed origin
// gets CORS answers, its preflight included.
func (s *Server) guardBrowser(c *fiber.Ctx) error {
	origin := c.Get(fiber.HeaderOrigin)
	allowed := origin != "" && s.cur().origins[strings.ToLower(origin)]
	switch {
	case origin != "" && !allowed:
		return sendError(c, http.StatusForbidden, "forbidden_origin",
			"the proxy does not answer web pages (Origin "+truncateText(origin, 100)+"); list trusted pages in proxy.allowed_origins")
	case !allowed && crossSite(c.Get("Sec-Fetch-Site")):
		return sendError(c, http.StatusForbidden, "forbidden_origin", "the proxy does not answer requests from other sites")
	case simpleBody(c) && browserMarked(c):
		return sendError(c, http.StatusUnsupportedMediaType, "invalid_content_type", "send the body as application/json")
	}
	if allowed {
		return s.cors(c, origin)
	}
	return c.Next()
}

// crossSite reports whether a Sec-Fetch-Site value says another site's page
// made the request ("same-site" is another origin of the same site, such as
// another port of localhost).
func crossSite(v string) bool {
	return strings.EqualFold(v, "cross-site") || strings.EqualFold(v, "same-site")
}

// simpleBody reports whether the request's body is typed as a browser types
// a form post or a fetch that needs no CORS preflight: text/plain,
// application/x-www-form-urlencoded, or multipart/form-data (which relayed
// paths accept: it is how files are uploaded).
func simpleBody(c *fiber.Ctx) bool {
	ct, _, _ := strings.Cut(c.Get(fiber.HeaderContentType), ";")
	switch strings.ToLower(strings.TrimSpace(ct)) {
	case fiber.MIMETextPlain, fiber.MIMEApplicationForm:
		return true
	case fiber.MIMEMultipartForm:
		return localRoute(c.Path())
	}
	return false
}

// localRoute reports whether a /v1 path is answered by MetaClaw itself
// (JSON only) rather than relayed.
func localRoute(path string) bool {
	return path == "/v1/chat/completions" || path == "/v1/messages" || strings.HasPrefix(path, "/v1/memory") ||
		strings.HasPrefix(path, "/v1/admin/")
}

// browserMarked reports whether a request carries what browsers add and
// command-line tools and SDKs do not: Origin, Referer, Sec-Fetch-Site,
// -Dest or -User, or a browser's User-Agent (they all begin "Mozilla/").
// `curl -d` types its body as a form but sends none of these.
func browserMarked(c *fiber.Ctx) bool {
	for _, h := range []string{fiber.HeaderOrigin, fiber.HeaderReferer, "Sec-Fetch-Site", "Sec-Fetch-Dest", "Sec-Fetch-User"} {
		if c.Get(h) != "" {
			return true
		}
	}
	return strings.HasPrefix(c.Get(fiber.HeaderUserAgent), "Mozilla/")
}

// cors answers an allowed origin: its preflight here (never relayed), and
// its requests with the header that lets the page read the answer.
func (s *Server) cors(c *fiber.Ctx, origin string) error {
	c.Set(fiber.HeaderAccessControlAllowOrigin, origin)
	c.Vary(fiber.HeaderOrigin)
	if c.Method() != http.MethodOptions || c.Get(fiber.HeaderAccessControlRequestMethod) == "" {
		c.Set(fiber.HeaderAccessControlExposeHeaders, "Retry-After, X-Request-Id")
		return c.Next()
	}
	c.Set(fiber.HeaderAccessControlAllowMethods, "GET, POST, DELETE, OPTIONS")
	if h := c.Get(fiber.HeaderAccessControlRequestHeaders); h != "" {
		c.Set(fiber.HeaderAccessControlAllowHeaders, h)
	}
	if strings.EqualFold(c.Get("Access-Control-Request-Private-Network"), "true") {
		c.Set("Access-Control-Allow-Private-Network", "true")
	}
	c.Set(fiber.HeaderAccessControlMaxAge, "600")
	return c.SendStatus(http.StatusNoContent)
}

// parseOrigins reads proxy.allowed_origins, lower-cased as browsers send
// them.
func parseOrigins(list string) map[string]bool {
	out := map[string]bool{}
	for _, o := range strings.Split(list, ",") {
		if o = strings.ToLower(strings.TrimSpace(o)); o != "" {
			out[o] = true
		}
	}
	return out
}
