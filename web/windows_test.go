package web

import (
	stdhtml "html"
	"net/http"
	"strings"
	"testing"
	"time"
)

// testidText returns the text of the first element with data-testid id
// (markup inside it removed), "" when there is none.
func testidText(body, id string) string {
	i := strings.Index(body, `data-testid="`+id+`"`)
	if i < 0 {
		return ""
	}
	rest := body[i:]
	start := strings.Index(rest, ">") + 1
	end := strings.Index(rest[start:], "</")
	text := rest[start : start+end]
	for strings.Contains(text, "<") { // drop nested tags
		a, b := strings.Index(text, "<"), strings.Index(text, ">")
		if b < a {
			break
		}
		text = text[:a] + text[b+1:]
	}
	return strings.TrimSpace(stdhtml.UnescapeString(text))
}

// The dashboard shows the training window: open with reason and end,
// shut with why, off; the idle source and the calendar state.
func TestDashboardShowsTrainingWindow(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.login(t)
	until := time.Now().Add(3 * time.Hour)
	tests := []struct {
		name string
		w    WindowStatus
		want map[string]string
	}{
		{"open", WindowStatus{Enabled: true, Open: true, Reason: "sleep", Until: until, Detail: "sleep hours until " + until.Format("15:04"),
			IdleSource: "x11-screensaver", Calendar: "connected; 2 busy period(s) known", CalendarConnected: true},
			map[string]string{"window-state": "open", "window-reason": "sleep", "window-until": until.Local().Format("15:04"),
				"window-detail": "sleep hours until " + until.Format("15:04"), "idle-source": "x11-screensaver",
				"calendar-state": "connected; 2 busy period(s) known"}},
		{"shut", WindowStatus{Enabled: true, Detail: "no keyboard idle signal; next: sleep at 23:00",
			IdleSource: "none (scheduler.screen_fallback is off)", Calendar: "off"},
			map[string]string{"window-state": "shut", "window-detail": "no keyboard idle signal; next: sleep at 23:00",
				"idle-source": "none (scheduler.screen_fallback is off)", "calendar-state": "off", "window-reason": ""}},
		{"off", WindowStatus{Detail: "training windows are off: mode skills_only", Calendar: "off"},
			map[string]string{"window-state": "off", "window-detail": "training windows are off: mode skills_only", "idle-source": ""}},
	}
	for _, tt := range tests {
		e.ctl.setWindows(tt.w)
		p := e.get(t, c, "/")
		if p.status != http.StatusOK {
			t.Fatalf("%s: status %d", tt.name, p.status)
		}
		for id, want := range tt.want {
			if got := testidText(p.body, id); got != want {
				t.Errorf("%s: %s = %q, want %q", tt.name, id, got, want)
			}
		}
	}
}

// Connect starts the flow in the app and sends the browser on to Google's
// page (a page with the link and a Refresh header, since the CSP forbids
// a form's redirect to another site); a failure comes back as a message;
// Disconnect goes through the app.
func TestCalendarConnectAndDisconnect(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.login(t)
	p := e.post(t, c, "/calendar/connect", nil)
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/settings#calendar" {
		t.Fatalf("connect without client secrets: %d %s", p.status, p.header.Get("Location"))
	}
	if page := e.get(t, c, "/settings"); !strings.Contains(testidText(page.body, "flash"), "credentials_path is not set") {
		t.Errorf("flash: %q", testidText(page.body, "flash"))
	}

	auth := "https://accounts.google.com/o/oauth2/auth?client_id=x&state=abc"
	e.ctl.mu.Lock()
	e.ctl.calendarAuth = auth
	e.ctl.mu.Unlock()
	p = e.post(t, c, "/calendar/connect", nil)
	if p.status != http.StatusOK || p.header.Get("Refresh") != "0; url="+auth {
		t.Fatalf("connect: %d, Refresh %q", p.status, p.header.Get("Refresh"))
	}
	if !strings.Contains(p.body, `href="`+stdhtml.EscapeString(auth)+`"`) {
		t.Errorf("no link to the consent page:\n%s", p.body)
	}

	e.ctl.setWindows(WindowStatus{Enabled: true, Calendar: "connected", CalendarConnected: true})
	settings := e.get(t, c, "/settings")
	if !strings.Contains(settings.body, `data-testid="calendar-disconnect"`) || strings.Contains(settings.body, `data-testid="calendar-connect"`) {
		t.Error("settings page of a connected calendar lacks Disconnect")
	}
	if p = e.post(t, c, "/calendar/disconnect", nil); p.status != http.StatusSeeOther {
		t.Fatalf("disconnect: %d", p.status)
	}
	if connects, disconnects := e.ctl.calls(); connects != 2 || disconnects != 1 {
		t.Errorf("connects %d, disconnects %d", connects, disconnects)
	}
}
