package proxy

import (
	"bufio"
	"context"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// handlePassthrough relays any other /v1/* request to the upstream
// unchanged: no injection, no recording, still authenticated.
func (s *Server) handlePassthrough(c *fiber.Ctx) error {
	path := strings.TrimPrefix(c.Path(), "/v1")
	if q := string(c.Request().URI().QueryString()); q != "" {
		path += "?" + q
	}
	var body []byte
	if len(c.Body()) > 0 {
		body = append([]byte(nil), c.Body()...)
	}
	ctx, cancel := context.WithCancel(s.baseCtx)
	out := outRequest{method: c.Method(), path: path, body: body, header: forwardHeaders(c), auth: callerAuth(c)}
	if ct := c.Get(fiber.HeaderContentType); ct != "" {
		out.header.Set("Content-Type", ct)
	}
	resp, _, err := s.cur().client.do(ctx, s.cur().primary, out, s.conf().Proxy.ForwardClientAuth)
	if err != nil {
		cancel()
		return s.upstreamFailed(c, nil, err)
	}
	copyResponseHeaders(c, resp.Header)
	c.Status(resp.StatusCode)
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		defer cancel()
		defer resp.Body.Close()
		buf := make([]byte, 32<<10)
		for {
			n, err := resp.Body.Read(buf)
			if n > 0 {
				if _, werr := w.Write(buf[:n]); werr != nil || w.Flush() != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	})
	return nil
}
