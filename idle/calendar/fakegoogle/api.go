package fakegoogle

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Scopes that Google accepts for each method.
var (
	freeBusyScopes = []string{
		"https://www.googleapis.com/auth/calendar",
		"https://www.googleapis.com/auth/calendar.readonly",
		"https://www.googleapis.com/auth/calendar.freebusy",
		"https://www.googleapis.com/auth/calendar.events.freebusy",
	}
	eventScopes = []string{
		"https://www.googleapis.com/auth/calendar",
		"https://www.googleapis.com/auth/calendar.readonly",
		"https://www.googleapis.com/auth/calendar.events",
		"https://www.googleapis.com/auth/calendar.events.readonly",
	}
)

// Period is one busy span of a calendar, for freeBusy.
type Period struct {
	Start, End time.Time
}

// Calendar is a calendar's events, for events.list.
type Calendar struct {
	TimeZone string // IANA name sent as the calendar's timeZone; may be empty
	Events   []Event
}

// Event is an events.list item in Google's JSON.
type Event struct {
	ID           string     `json:"id"`
	Status       string     `json:"status,omitempty"` // confirmed, tentative, cancelled
	Summary      string     `json:"summary,omitempty"`
	Transparency string     `json:"transparency,omitempty"` // opaque (default) or transparent
	EventType    string     `json:"eventType,omitempty"`    // default, focusTime, outOfOffice, workingLocation
	Start        EventTime  `json:"start"`
	End          EventTime  `json:"end"`
	Attendees    []Attendee `json:"attendees,omitempty"`
}

// EventTime is a start or end: Date for all-day events (the end date
// exclusive), else DateTime (RFC 3339), with an optional IANA TimeZone.
type EventTime struct {
	Date     string `json:"date,omitempty"`
	DateTime string `json:"dateTime,omitempty"`
	TimeZone string `json:"timeZone,omitempty"`
}

// Attendee is an event attendee; Self marks the calendar's owner.
type Attendee struct {
	Email          string `json:"email"`
	Self           bool   `json:"self,omitempty"`
	ResponseStatus string `json:"responseStatus"` // needsAction, declined, tentative, accepted
}

// SetBusy sets the busy periods freeBusy reports for calendar id.
func (s *Server) SetBusy(id string, periods ...Period) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.busy[id] = slices.Clone(periods)
}

// SetCalendar sets the events events.list lists for calendar id.
func (s *Server) SetCalendar(id string, cal Calendar) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cal.Events = slices.Clone(cal.Events)
	s.cals[id] = cal
}

// SetPageSize caps events per page (Google's default is 250), to force
// paging with nextPageToken.
func (s *Server) SetPageSize(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pageSize = max(n, 1)
}

// api wraps a Calendar API handler: queued faults first, then the bearer
// token (401 if unknown or expired) and its scope (403).
func (s *Server) api(scopes []string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		var fault *Fault
		if len(s.faults) > 0 {
			fault = &s.faults[0]
			s.faults = s.faults[1:]
		}
		a, ok := s.access[bearer(r)]
		live := ok && !a.expired
		if !live {
			s.stats.Unauthorized++
		}
		s.mu.Unlock()
		switch {
		case fault != nil:
			serveFault(w, *fault)
		case !live:
			w.Header().Set("WWW-Authenticate", `Bearer realm="https://accounts.google.com/", error="invalid_token"`)
			apiError(w, http.StatusUnauthorized, "authError", "UNAUTHENTICATED",
				"Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.")
		case !slices.Contains(scopes, a.scope):
			apiError(w, http.StatusForbidden, "insufficientPermissions", "PERMISSION_DENIED",
				"Request had insufficient authentication scopes.")
		default:
			h(w, r)
		}
	}
}

func serveFault(w http.ResponseWriter, f Fault) {
	if f.Drop {
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
			return
		}
	}
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", f.RetryAfter)
	}
	switch {
	case f.Status == http.StatusTooManyRequests:
		apiError(w, f.Status, "rateLimitExceeded", "RESOURCE_EXHAUSTED", "Rate Limit Exceeded")
	case f.Status >= 500:
		apiError(w, f.Status, "backendError", "UNAVAILABLE", "The service is currently unavailable.")
	default:
		apiError(w, f.Status, "badRequest", "INVALID_ARGUMENT", "Bad Request")
	}
}

// apiError writes Google's JSON error body.
func apiError(w http.ResponseWriter, code int, reason, status, msg string) {
	writeJSON(w, code, map[string]any{"error": map[string]any{
		"code": code, "message": msg, "status": status,
		"errors": []map[string]string{{"message": msg, "domain": "global", "reason": reason}},
	}})
}

type freeBusyRequest struct {
	TimeMin  string `json:"timeMin"`
	TimeMax  string `json:"timeMax"`
	TimeZone string `json:"timeZone"`
	Items    []struct {
		ID string `json:"id"`
	} `json:"items"`
}

type busyOut struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

// freeBusy answers POST /calendar/v3/freeBusy with the busy periods of
// each requested calendar, clipped to [timeMin, timeMax).
func (s *Server) freeBusy(w http.ResponseWriter, r *http.Request) {
	var req freeBusyRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		apiError(w, http.StatusBadRequest, "parseError", "INVALID_ARGUMENT", "Parse Error")
		return
	}
	lo, err1 := time.Parse(time.RFC3339, req.TimeMin)
	hi, err2 := time.Parse(time.RFC3339, req.TimeMax)
	if err1 != nil || err2 != nil || !hi.After(lo) {
		apiError(w, http.StatusBadRequest, "timeRangeEmpty", "INVALID_ARGUMENT", "The specified time range is empty.")
		return
	}
	loc := time.UTC
	if l, err := time.LoadLocation(req.TimeZone); req.TimeZone != "" && err == nil {
		loc = l
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cals := map[string]any{}
	for _, item := range req.Items {
		periods, ok := s.busy[item.ID]
		if !ok {
			cals[item.ID] = map[string]any{"busy": []busyOut{},
				"errors": []map[string]string{{"domain": "global", "reason": "notFound"}}}
			continue
		}
		out := []busyOut{}
		for _, p := range periods {
			if p.Start.Before(hi) && p.End.After(lo) {
				out = append(out, busyOut{maxTime(p.Start, lo).In(loc).Format(time.RFC3339),
					minTime(p.End, hi).In(loc).Format(time.RFC3339)})
			}
		}
		cals[item.ID] = map[string]any{"busy": out}
	}
	s.stats.FreeBusyQueries++
	writeJSON(w, http.StatusOK, map[string]any{"kind": "calendar#freeBusy",
		"timeMin": req.TimeMin, "timeMax": req.TimeMax, "calendars": cals})
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// events answers GET /calendar/v3/calendars/{id}/events: events whose end
// is after timeMin and whose start is before timeMax, cancelled ones only
// with showDeleted, by start time when asked (which needs singleEvents),
// a page at a time.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("orderBy") == "startTime" && q.Get("singleEvents") != "true" {
		apiError(w, http.StatusBadRequest, "badRequest", "INVALID_ARGUMENT",
			"The requested ordering is not available for the particular query.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cal, ok := s.cals[r.PathValue("id")]
	if !ok {
		apiError(w, http.StatusNotFound, "notFound", "NOT_FOUND", "Not Found")
		return
	}
	items, err := selectEvents(cal, q)
	if err != nil {
		apiError(w, http.StatusBadRequest, "badRequest", "INVALID_ARGUMENT", err.Error())
		return
	}
	from, _ := strconv.Atoi(decodePageToken(q.Get("pageToken")))
	size := s.pageSize
	if n, err := strconv.Atoi(q.Get("maxResults")); err == nil && n > 0 && n < size {
		size = n
	}
	from = min(from, len(items))
	to := min(from+size, len(items))
	resp := map[string]any{"kind": "calendar#events", "summary": r.PathValue("id"),
		"accessRole": "owner", "items": items[from:to]}
	if cal.TimeZone != "" {
		resp["timeZone"] = cal.TimeZone
	}
	if to < len(items) {
		resp["nextPageToken"] = base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(to)))
	}
	s.stats.EventPages++
	writeJSON(w, http.StatusOK, resp)
}

func decodePageToken(t string) string {
	b, _ := base64.RawURLEncoding.DecodeString(t)
	return string(b)
}

type bound struct {
	ev         Event
	start, end time.Time
}

func selectEvents(cal Calendar, q map[string][]string) ([]Event, error) {
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	lo, hi := time.Time{}, time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	var err error
	if v := get("timeMin"); v != "" {
		if lo, err = time.Parse(time.RFC3339, v); err != nil {
			return nil, err
		}
	}
	if v := get("timeMax"); v != "" {
		if hi, err = time.Parse(time.RFC3339, v); err != nil {
			return nil, err
		}
	}
	var picked []bound
	for _, ev := range cal.Events {
		start, end, err := span(ev, cal.TimeZone)
		if err != nil {
			return nil, err
		}
		if (ev.Status == "cancelled" && get("showDeleted") != "true") || !end.After(lo) || !start.Before(hi) {
			continue
		}
		picked = append(picked, bound{ev, start, end})
	}
	if get("orderBy") == "startTime" {
		slices.SortStableFunc(picked, func(a, b bound) int { return a.start.Compare(b.start) })
	}
	out := []Event{}
	for _, b := range picked {
		out = append(out, b.ev)
	}
	return out, nil
}

// span reads an event's bounds the way Google does.
func span(ev Event, calTZ string) (time.Time, time.Time, error) {
	start, err := instant(ev.Start, calTZ)
	if err != nil {
		return time.Time{}, time.Time{}, err
	}
	end, err := instant(ev.End, calTZ)
	return start, end, err
}

func instant(t EventTime, calTZ string) (time.Time, error) {
	loc := time.UTC
	for _, name := range []string{t.TimeZone, calTZ} {
		if l, err := time.LoadLocation(name); name != "" && err == nil {
			loc = l
			break
		}
	}
	if t.Date != "" {
		return time.ParseInLocation(time.DateOnly, t.Date, loc)
	}
	if strings.ContainsAny(t.DateTime[min(len(t.DateTime), 19):], "Z+-") {
		return time.Parse(time.RFC3339, t.DateTime)
	}
	return time.ParseInLocation("2006-01-02T15:04:05", t.DateTime, loc)
}
