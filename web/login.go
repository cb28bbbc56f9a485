package web

import (
	"io/fs"
	"mime"
	"path"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/metaclaw/metaclaw/assets"
)

// login spends a one-time token and starts a session: an HttpOnly,
// SameSite=Strict cookie. The token is never logged.
func (s *Server) login(c *fiber.Ctx) error {
	ok, err := consumeLoginToken(c.UserContext(), s.opts.DB, c.Query("token"), s.opts.Now())
	if err != nil {
		return err
	}
	if !ok {
		if _, live := s.sessions.get(c.Cookies(cookieName)); live {
			return c.Redirect("/", fiber.StatusSeeOther)
		}
		s.log.Warn("web login refused: unknown, used or expired token")
		return fiber.NewError(fiber.StatusUnauthorized,
			"This login link has expired or was already used. Run `metaclaw open` (or Open MetaClaw in the tray) for a new one.")
	}
	sid, err := s.sessions.create()
	if err != nil {
		return err
	}
	c.Cookie(&fiber.Cookie{Name: cookieName, Value: sid, Path: "/", HTTPOnly: true, SameSite: fiber.CookieSameSiteStrictMode})
	s.log.Info("web login")
	next := "/"
	if len(s.opts.Control.Status().Problems) > 0 && s.opts.Control.Config().LLM.APIKey == "" {
		next = "/setup"
	}
	return c.Redirect(next, fiber.StatusSeeOther)
}

// logout ends the session.
func (s *Server) logout(c *fiber.Ctx) error {
	s.sessions.end(c.Locals(localSID).(string))
	c.Cookie(&fiber.Cookie{Name: cookieName, Value: "", Path: "/", HTTPOnly: true,
		SameSite: fiber.CookieSameSiteStrictMode, Expires: time.Unix(0, 0)})
	return s.render(c, fiber.StatusOK, loggedOutPage(Page{Title: "Logged out"}))
}

// static serves the embedded CSS, JavaScript and icon.
func (s *Server) static(c *fiber.Ctx) error {
	name := c.Params("name")
	var data []byte
	var err error
	if name == "icon.png" {
		data, err = assets.Icon(assets.StateLearning, 64)
	} else {
		data, err = fs.ReadFile(assets.Web(), name)
	}
	if err != nil {
		return fiber.ErrNotFound
	}
	c.Set(fiber.HeaderContentType, mime.TypeByExtension(path.Ext(name)))
	c.Set(fiber.HeaderCacheControl, "private, max-age=300")
	return c.Send(data)
}
