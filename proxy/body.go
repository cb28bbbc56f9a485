package proxy

import (
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/andybalholm/brotli"
	"github.com/gofiber/fiber/v2"
)

// The server streams request bodies (fasthttp's StreamRequestBody) so that
// readBody decides, before a body is read, whether the proxy can hold it:
// the size limit, the in-flight budget, and a bounded decoding of a
// compressed body. It runs first on every route; a body nobody read is
// never left on a kept-alive connection.

// leaseKey is the Locals key of a request's *lease.
const leaseKey = "metaclaw.lease"

// leaseOf returns the request's share of the budget, nil when it has no
// body.
func leaseOf(c *fiber.Ctx) *lease {
	l, _ := c.Locals(leaseKey).(*lease)
	return l
}

// readBody reads the request body whole, within proxy.max_body_bytes and
// the in-flight budget, and gives the handlers the decoded bytes.
func (s *Server) readBody(c *fiber.Ctx) error {
	req := c.Request()
	if !req.IsBodyStream() {
		return c.Next()
	}
	l := s.budget.newLease()
	defer l.release()
	body, err := s.takeBody(c, l)
	if err != nil {
		c.Context().SetConnectionClose() // the rest of the body is unread
		return s.bodyError(c, err)
	}
	req.SetBodyRaw(body)
	req.Header.Del(fiber.HeaderContentEncoding)
	c.Locals(leaseKey, l)
	return c.Next()
}

// dropBody lets the request's body go once it has been parsed: the parsed
// request holds what it needs of it, and a large body would otherwise stay
// in memory until the answer has been relayed. (readBody's buffer is the
// request's own, never reused, so views of it stay valid.)
func dropBody(c *fiber.Ctx) {
	c.Request().SetBodyRaw(nil)
}

// closeUnread closes the connection after a request whose body a guard
// refused before readBody read it.
func closeUnread(c *fiber.Ctx) error {
	err := c.Next()
	if c.Request().IsBodyStream() {
		c.Context().SetConnectionClose()
	}
	return err
}

// errBodyTooLarge: the body, decoded, is longer than proxy.max_body_bytes.
var errBodyTooLarge = errors.New("request body is larger than proxy.max_body_bytes")

// errEncoding: a Content-Encoding the proxy does not decode.
type errEncoding string

func (e errEncoding) Error() string {
	return fmt.Sprintf("Content-Encoding %q is not supported; send the body uncompressed, gzip, deflate or br", string(e))
}

// takeBody reads the body. A body of known length and no encoding is read
// into one buffer of its size, after its share of the budget is taken; any
// other grows, taking its share as it grows.
func (s *Server) takeBody(c *fiber.Ctx, l *lease) ([]byte, error) {
	req := c.Request()
	limit := int64(s.opts.Config.Proxy.MaxBodyBytes) // as started, like Fiber's BodyLimit
	n := int64(req.Header.ContentLength())           // -1: chunked
	if n > limit {
		return nil, errBodyTooLarge
	}
	ctx := c.Context()
	enc := strings.ToLower(strings.TrimSpace(c.Get(fiber.HeaderContentEncoding)))
	if n >= 0 && (enc == "" || enc == "identity") {
		if err := l.grow(ctx, n*bodyCopies); err != nil {
			return nil, err
		}
		buf := make([]byte, n)
		_, err := io.ReadFull(req.BodyStream(), buf)
		return buf, err
	}
	r, err := decoder(enc, req.BodyStream())
	if err != nil {
		return nil, err
	}
	return readGrowing(r, limit, func(more int64) error { return l.grow(ctx, more*bodyCopies) })
}

// decoder returns a reader of the decoded body.
func decoder(enc string, r io.Reader) (io.Reader, error) {
	switch enc {
	case "", "identity":
		return r, nil
	case "gzip", "x-gzip":
		return gzip.NewReader(r)
	case "deflate":
		return zlib.NewReader(r)
	case "br":
		return brotli.NewReader(r), nil
	}
	return nil, errEncoding(enc)
}

// readGrowing reads r to its end, at most limit bytes, calling grow before
// the buffer grows by more bytes.
func readGrowing(r io.Reader, limit int64, grow func(more int64) error) ([]byte, error) {
	const first = 64 << 10
	if err := grow(first); err != nil {
		return nil, err
	}
	buf := make([]byte, 0, first)
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > limit {
				return nil, errBodyTooLarge
			}
			more := min(int64(cap(buf)), limit+1-int64(cap(buf)))
			if err := grow(max(more, 1)); err != nil {
				return nil, err
			}
			buf = slices.Grow(buf, int(max(more, 1)))
		}
		m, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if int64(len(buf)) > limit {
			return nil, errBodyTooLarge
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// bodyError answers a body the proxy could not take, in the route's shape.
func (s *Server) bodyError(c *fiber.Ctx, err error) error {
	var ee errEncoding
	var ne net.Error
	switch {
	case errors.Is(err, errBodyTooLarge):
		return sendError(c, http.StatusRequestEntityTooLarge, "request_too_large",
			fmt.Sprintf("request body is larger than proxy.max_body_bytes (%d bytes)", s.opts.Config.Proxy.MaxBodyBytes))
	case errors.Is(err, errOverBudget):
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(int(budgetWait.Seconds())))
		return sendError(c, http.StatusServiceUnavailable, "overloaded",
			"the proxy holds as many request bodies as proxy.max_inflight_bytes allows; retry shortly")
	case errors.As(err, &ee):
		return sendError(c, http.StatusUnsupportedMediaType, "unsupported_encoding", ee.Error())
	case errors.As(err, &ne) && ne.Timeout():
		return sendError(c, http.StatusRequestTimeout, "request_timeout", "the request body did not arrive in time")
	}
	return sendError(c, http.StatusBadRequest, "invalid_body", "the request body could not be read: "+err.Error())
}
