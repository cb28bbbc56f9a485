package web

import (
	"bytes"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"
	"github.com/metaclaw/metaclaw/store"
)

const (
	cookieName = "metaclaw_session"
	csrfField  = "_csrf"
	csrfHeader = "X-CSRF-Token"
	localSID   = "sid"  // c.Locals key: the session's cookie value
	localSess  = "sess" // c.Locals key: the session
)

// Refusals, with the message the person sees.
var (
	errForeignHost = fiber.NewError(fiber.StatusForbidden, "This address is not MetaClaw's: requests must name 127.0.0.1, localhost or [::1] with MetaClaw's port.")
	errLogin       = fiber.NewError(fiber.StatusUnauthorized, "Not logged in. Open the page with `metaclaw open` (or Open MetaClaw in the tray menu).")
	errCSRF        = fiber.NewError(fiber.StatusForbidden, "Refused: the form's security token is missing or wrong. Reload the page and try again.")
	errCrossSite   = fiber.NewError(fiber.StatusForbidden, "Refused: a request from another site.")
)

// guard wraps every request: it recovers panics, logs, sets the security
// headers, refuses foreign Host headers, requires a session (but for
// /login and /static), and checks the CSRF token and origin of every
// state-changing request. Errors become pages in errorHandler.
func (s *Server) guard(c *fiber.Ctx) (err error) {
	start := s.opts.Now()
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("web handler panicked", "path", c.Path(), "panic", r, "stack", string(debug.Stack()))
			err = fiber.NewError(fiber.StatusInternalServerError, "internal error")
		}
		if err == nil {
			s.log.Debug("web request", "method", c.Method(), "path", c.Path(), "status", c.Response().StatusCode(),
				"ms", s.opts.Now().Sub(start).Milliseconds())
		}
	}()
	securityHeaders(c)
	if !s.hosts[strings.ToLower(string(c.Request().Header.Host()))] {
		s.log.Warn("web request refused: foreign Host", "host", string(c.Request().Header.Host()), "path", c.Path())
		return errForeignHost
	}
	if strings.HasPrefix(c.Path(), "/static/") || c.Path() == "/login" {
		return c.Next()
	}
	sid := c.Cookies(cookieName)
	sess, ok := s.sessions.get(sid)
	if !ok {
		return errLogin
	}
	if err := s.checkUnsafe(c, sess); err != nil {
		return err
	}
	c.Locals(localSID, sid)
	c.Locals(localSess, sess)
	return c.Next()
}

// checkUnsafe refuses a state-changing request that comes from another
// site or lacks the session's CSRF token.
func (s *Server) checkUnsafe(c *fiber.Ctx, sess session) error {
	switch c.Method() {
	case fiber.MethodGet, fiber.MethodHead, fiber.MethodOptions:
		return nil
	}
	if c.Get("Sec-Fetch-Site") == "cross-site" || !s.originOK(c.Get(fiber.HeaderOrigin)) {
		s.log.Warn("web request refused: cross-site", "path", c.Path(), "origin", c.Get(fiber.HeaderOrigin))
		return errCrossSite
	}
	presented := c.Get(csrfHeader)
	if presented == "" {
		presented = c.FormValue(csrfField)
	}
	if !csrfOK(sess, presented) {
		s.log.Warn("web request refused: CSRF token", "path", c.Path())
		return errCSRF
	}
	return nil
}

// originOK accepts no Origin (same-origin navigations may omit it) or one
// of the page's own origins.
func (s *Server) originOK(origin string) bool {
	if origin == "" {
		return true
	}
	host, ok := strings.CutPrefix(strings.ToLower(origin), "http://")
	return ok && s.hosts[host]
}

func securityHeaders(c *fiber.Ctx) {
	c.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
		"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	c.Set("X-Frame-Options", "DENY")
	c.Set("X-Content-Type-Options", "nosniff")
	c.Set("Referrer-Policy", "same-origin") // "no-referrer" would make the browser send Origin: null on our own forms
	c.Set("Cross-Origin-Opener-Policy", "same-origin")
	c.Set("Cross-Origin-Resource-Policy", "same-origin")
	if !strings.HasPrefix(c.Path(), "/static/") {
		c.Set(fiber.HeaderCacheControl, "no-store")
	}
}

// errorHandler turns a handler's error into a page with its status.
func (s *Server) errorHandler(c *fiber.Ctx, err error) error {
	code, msg := fiber.StatusInternalServerError, "Something went wrong: "+err.Error()
	var fe *fiber.Error
	switch {
	case errors.As(err, &fe):
		code, msg = fe.Code, fe.Message
	case errors.Is(err, store.ErrNotFound):
		code, msg = fiber.StatusNotFound, "Not found: "+err.Error()
	}
	if code >= 500 {
		s.log.Error("web request failed", "method", c.Method(), "path", c.Path(), "err", err)
	}
	securityHeaders(c)
	_, loggedIn := c.Locals(localSess).(session)
	p := Page{Title: fmt.Sprintf("%d", code), LoggedIn: loggedIn}
	if loggedIn {
		p = s.page(c, fmt.Sprintf("%d", code), "")
	}
	return s.render(c, code, errorPage(p, code, msg))
}

// render writes a component with status: it renders into a buffer first,
// so a template error becomes a clean 500, not half a page.
func (s *Server) render(c *fiber.Ctx, status int, comp templ.Component) error {
	var buf bytes.Buffer
	if err := comp.Render(c.UserContext(), &buf); err != nil {
		return fmt.Errorf("render: %w", err)
	}
	c.Status(status)
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	return c.Send(buf.Bytes())
}

// Page is what every page's frame needs: title, active tab, the CSRF token
// for its forms, the one-shot message, and the state badge.
type Page struct {
	Title    string
	Nav      string
	CSRF     string
	Flash    string
	LoggedIn bool
	Mode     string
	Paused   bool
	Warnings int
}

// page builds the frame of a page for the request's session.
func (s *Server) page(c *fiber.Ctx, title, nav string) Page {
	sess, _ := c.Locals(localSess).(session)
	sid, _ := c.Locals(localSID).(string)
	st := s.opts.Control.Status()
	return Page{Title: title, Nav: nav, CSRF: sess.csrf, Flash: s.sessions.popFlash(sid), LoggedIn: true,
		Mode: st.Mode, Paused: s.opts.Control.Paused(), Warnings: len(st.Problems)}
}

// done ends a state-changing request: a message for the next page and a
// redirect (303: the browser follows with GET).
func (s *Server) done(c *fiber.Ctx, location, flash string) error {
	if sid, ok := c.Locals(localSID).(string); ok && flash != "" {
		s.sessions.setFlash(sid, flash)
	}
	return c.Redirect(location, fiber.StatusSeeOther)
}
