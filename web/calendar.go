package web

import (
	"net/url"
	"time"

	"github.com/gofiber/fiber/v2"
)

// calendarConnect starts Google Calendar's OAuth flow in the app and sends
// the browser on to Google's consent page; Google then sends it back to
// the app's loopback listener, which completes the flow.
func (s *Server) calendarConnect(c *fiber.Ctx) error {
	authURL, err := s.opts.Control.ConnectCalendar(c.UserContext())
	if err != nil {
		return s.done(c, "/settings#calendar", "Google Calendar was not connected: "+err.Error())
	}
	if u, perr := url.Parse(authURL); perr != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return fiber.NewError(fiber.StatusBadGateway, "the calendar's consent page address is not an http(s) URL")
	}
	c.Set("Refresh", "0; url="+authURL)
	return s.render(c, fiber.StatusOK, calendarRedirectPage(s.page(c, "Connect Google Calendar", "settings"), authURL))
}

// calendarDisconnect revokes the calendar grant and deletes the token.
func (s *Server) calendarDisconnect(c *fiber.Ctx) error {
	if err := s.opts.Control.DisconnectCalendar(c.UserContext()); err != nil {
		return s.done(c, "/settings#calendar", "Google Calendar: "+err.Error())
	}
	return s.done(c, "/settings#calendar", "Google Calendar disconnected: access revoked at Google and the token deleted.")
}

// calendarAction is the dashboard's link to the calendar card.
func calendarAction(connected bool) string {
	if connected {
		return "Disconnect…"
	}
	return "Connect…"
}

// fmtClock formats the end of a window: "07:00", or "Tue 07:00" when it
// is a day or more away.
func fmtClock(t time.Time) string {
	t = t.Local()
	if d := time.Until(t); d >= 24*time.Hour || d <= -24*time.Hour {
		return t.Format("Mon 15:04")
	}
	return t.Format("15:04")
}
