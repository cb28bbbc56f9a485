package proxy

import (
	"bufio"
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// handlePassthrough relays any other /v1/* request to the upstream
// unchanged: no injection, no recording, still authenticated.
func (s *Server) handlePassthrough(c *fiber.Ctx) error {
	path, ok := relayPath(string(c.Request().URI().PathOriginal()))
	if !ok {
		return sendError(c, http.StatusBadRequest, "invalid_path",
			"the path leaves the API base (its .. segments climb above /v1); it is not relayed")
	}
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

// relayPath returns the path to relay for a raw (still escaped) request
// path under /v1: its dot segments resolved, escaped or not, and the rest
// kept as sent. It reports false for a path that climbs above /v1, and so
// above llm.api_base's path, and for a segment that hides dots behind an
// escaped slash or a backslash, which an upstream might resolve itself.
func relayPath(raw string) (string, bool) {
	rest, ok := strings.CutPrefix(raw, "/v1")
	if !ok || rest != "" && rest[0] != '/' {
		return "", false
	}
	var out []string
	segs := strings.Split(rest, "/")[1:]
	for i, seg := range segs {
		dec, err := url.PathUnescape(seg)
		if err != nil {
			return "", false
		}
		switch {
		case dec == ".":
		case dec == "..":
			if len(out) == 0 {
				return "", false
			}
			out = out[:len(out)-1]
		case hidesDots(dec):
			return "", false
		default:
			out = append(out, seg)
			continue
		}
		if i == len(segs)-1 {
			out = append(out, "") // "a/.." names the directory a was in
		}
	}
	return "/" + strings.Join(out, "/"), true
}

// hidesDots reports whether a decoded segment holds a ".." between
// slashes or backslashes.
func hidesDots(seg string) bool {
	for _, part := range strings.FieldsFunc(seg, func(r rune) bool { return r == '/' || r == '\\' }) {
		if part == ".." {
			return true
		}
	}
	return false
}
