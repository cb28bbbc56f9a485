package proxy

import (
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// MemoryAPI is the memory HTTP API (app/learner/memory/memapi.API). The
// proxy mounts it under /v1/memory behind its auth and guards and gives it
// the scope a request's identity headers name (else memory.scope); its
// handlers answer errors as learning.HTTPError.
type MemoryAPI interface {
	Routes(g fiber.Router, scope func(*fiber.Ctx) string)
}

// memoryRoutes mounts the memory API under /v1/memory (behind the proxy's
// auth), or answers every memory route 404 when there is none.
func (s *Server) memoryRoutes(v1 fiber.Router) {
	g := v1.Group("/memory", s.memoryGuard)
	if s.opts.Memory != nil {
		s.opts.Memory.Routes(g, s.memoryScope)
	}
}

// memoryGuard answers 404 when memory is off and requires JSON bodies,
// and bounds the API's work by the server's life (c.UserContext). Web
// pages are kept away from memories by the guards every route has
// (guardHost, guardBrowser): a page could otherwise read them through DNS
// rebinding or write them with a form post.
func (s *Server) memoryGuard(c *fiber.Ctx) error {
	if s.opts.Memory == nil {
		return sendError(c, http.StatusNotFound, "memory_off", "memory is not available in this MetaClaw")
	}
	if c.Method() == http.MethodPost && !strings.HasPrefix(c.Get(fiber.HeaderContentType), fiber.MIMEApplicationJSON) {
		return sendError(c, http.StatusUnsupportedMediaType, "invalid_content_type", "send the body as application/json")
	}
	c.SetUserContext(s.baseCtx)
	return c.Next()
}

// memoryScope is the scope a memory request names by its identity
// headers, else memory.scope.
func (s *Server) memoryScope(c *fiber.Ctx) string {
	get := func(h string) string { return strings.TrimSpace(strings.Clone(c.Get(h))) }
	return scopeOf(get(hdrMemoryScope), get(hdrUserID), get(hdrWorkspaceID), s.conf().Memory.Scope)
}
