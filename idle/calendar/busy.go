package calendar

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	gcal "google.golang.org/api/calendar/v3"
	"google.golang.org/api/googleapi"

	"github.com/metaclaw/metaclaw/idle"
)

// eventFields is the events.list field mask: only what decides busy time,
// so titles, descriptions and attendee addresses never leave Google.
const eventFields = "nextPageToken,timeZone,items(status,transparency,eventType,start,end,attendees(self,responseStatus))"

func (c *Client) fetchFreeBusy(ctx context.Context, from, to time.Time) ([]idle.Interval, error) {
	req := &gcal.FreeBusyRequest{
		TimeMin: from.UTC().Format(time.RFC3339),
		TimeMax: to.UTC().Format(time.RFC3339),
	}
	for _, id := range c.cfg.CalendarIDs {
		req.Items = append(req.Items, &gcal.FreeBusyRequestItem{Id: id})
	}
	resp, err := c.svc.Freebusy.Query(req).Context(ctx).Do()
	if err != nil {
		return nil, fmt.Errorf("query free/busy: %w", err)
	}
	var ivs []idle.Interval
	for _, id := range c.cfg.CalendarIDs {
		cal, ok := resp.Calendars[id]
		if !ok {
			return nil, fmt.Errorf("query free/busy: no answer for calendar %q", id)
		}
		if len(cal.Errors) > 0 {
			return nil, fmt.Errorf("query free/busy: calendar %q: %s", id, cal.Errors[0].Reason)
		}
		for _, p := range cal.Busy {
			iv, err := period(p.Start, p.End)
			if err != nil {
				return nil, fmt.Errorf("query free/busy: calendar %q: %w", id, err)
			}
			ivs = append(ivs, iv)
		}
	}
	return ivs, nil
}

func period(start, end string) (idle.Interval, error) {
	s, err := time.Parse(time.RFC3339, start)
	if err != nil {
		return idle.Interval{}, fmt.Errorf("busy start: %w", err)
	}
	e, err := time.Parse(time.RFC3339, end)
	if err != nil {
		return idle.Interval{}, fmt.Errorf("busy end: %w", err)
	}
	return idle.Interval{Start: s, End: e}, nil
}

func (c *Client) fetchEvents(ctx context.Context, from, to time.Time) ([]idle.Interval, error) {
	var ivs []idle.Interval
	for _, id := range c.cfg.CalendarIDs {
		call := c.svc.Events.List(id).
			SingleEvents(true).OrderBy("startTime").ShowDeleted(false).MaxResults(250).
			TimeMin(from.UTC().Format(time.RFC3339)).TimeMax(to.UTC().Format(time.RFC3339)).
			Fields(eventFields)
		err := call.Pages(ctx, func(page *gcal.Events) error {
			loc := c.zone(page.TimeZone)
			for _, ev := range page.Items {
				iv, busy, err := eventInterval(ev, loc)
				if err != nil {
					return err
				}
				if busy {
					ivs = append(ivs, iv)
				}
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("list events of calendar %q: %w", id, err)
		}
	}
	return ivs, nil
}

// zone is the calendar's own time zone if it names a known one, else the
// configured Location.
func (c *Client) zone(name string) *time.Location {
	if name != "" {
		if loc, err := time.LoadLocation(name); err == nil {
			return loc
		}
	}
	return c.cfg.Location
}

// eventInterval says whether ev makes the person busy, and when. Cancelled
// events, events shown as available, events the person declined, Focus
// Time (busy, but at the desk) and working-location entries do not.
func eventInterval(ev *gcal.Event, calLoc *time.Location) (idle.Interval, bool, error) {
	switch {
	case ev.Status == "cancelled", ev.Transparency == "transparent",
		ev.EventType == "focusTime", ev.EventType == "workingLocation",
		declinedBySelf(ev):
		return idle.Interval{}, false, nil
	}
	start, err := eventTime(ev.Start, calLoc)
	if err != nil {
		return idle.Interval{}, false, fmt.Errorf("event start: %w", err)
	}
	end, err := eventTime(ev.End, calLoc)
	if err != nil {
		return idle.Interval{}, false, fmt.Errorf("event end: %w", err)
	}
	if !end.After(start) {
		return idle.Interval{}, false, nil
	}
	return idle.Interval{Start: start, End: end}, true, nil
}

func declinedBySelf(ev *gcal.Event) bool {
	for _, a := range ev.Attendees {
		if a.Self && a.ResponseStatus == "declined" {
			return true
		}
	}
	return false
}

// eventTime reads a start or end. A dateTime carries its offset; one
// without (allowed when timeZone is set) and an all-day date (midnight;
// the end date is exclusive, as Google sends it) are read in the event's
// own zone, else the calendar's.
func eventTime(dt *gcal.EventDateTime, calLoc *time.Location) (time.Time, error) {
	if dt == nil {
		return time.Time{}, errors.New("missing")
	}
	loc := calLoc
	if dt.TimeZone != "" {
		if l, err := time.LoadLocation(dt.TimeZone); err == nil {
			loc = l
		}
	}
	switch {
	case dt.DateTime != "":
		if t, err := time.Parse(time.RFC3339, dt.DateTime); err == nil {
			return t, nil
		}
		return time.ParseInLocation("2006-01-02T15:04:05", dt.DateTime, loc)
	case dt.Date != "":
		return time.ParseInLocation(time.DateOnly, dt.Date, loc)
	}
	return time.Time{}, errors.New("neither date nor dateTime")
}

// merge sorts intervals by start and joins those that overlap or touch.
func merge(ivs []idle.Interval) []idle.Interval {
	slices.SortFunc(ivs, func(a, b idle.Interval) int { return a.Start.Compare(b.Start) })
	out := ivs[:0]
	for _, iv := range ivs {
		if n := len(out); n > 0 && !iv.Start.After(out[n-1].End) {
			if iv.End.After(out[n-1].End) {
				out[n-1].End = iv.End
			}
			continue
		}
		out = append(out, iv)
	}
	return out
}

// classify turns Google's "this grant lacks the scope" answer into
// ErrReconnectNeeded: the person connected in another mode, or unticked
// the calendar box on the consent screen.
func classify(err error, m Mode) error {
	var gerr *googleapi.Error
	if !errors.As(err, &gerr) || gerr.Code != http.StatusForbidden {
		return err
	}
	for _, item := range gerr.Errors {
		if item.Reason == "insufficientPermissions" {
			return fmt.Errorf("%w: the stored grant lacks %s, which %s mode needs (%w)",
				ErrReconnectNeeded, m.Scope(), m, err)
		}
	}
	if strings.Contains(gerr.Body, "ACCESS_TOKEN_SCOPE_INSUFFICIENT") {
		return fmt.Errorf("%w: the stored grant lacks %s (%w)", ErrReconnectNeeded, m.Scope(), err)
	}
	return err
}
