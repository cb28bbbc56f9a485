package calendar_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/metaclaw/metaclaw/idle"
	"github.com/metaclaw/metaclaw/idle/calendar"
	"github.com/metaclaw/metaclaw/idle/calendar/fakegoogle"
)

const day = "2026-12-01"

func iv(start, end time.Time) idle.Interval { return idle.Interval{Start: start, End: end} }

func TestFetchFreeBusy(t *testing.T) {
	t.Parallel()
	e := newEnv(t, calendar.ModeFreeBusy)
	e.cfg.CalendarIDs = []string{"primary", "team@example.com"}
	e.g.SetBusy("primary",
		fakegoogle.Period{Start: at(day, "09:00:00"), End: at(day, "10:00:00")},
		fakegoogle.Period{Start: at(day, "09:30:00"), End: at(day, "10:30:00")},
		fakegoogle.Period{Start: at(day, "19:30:00"), End: at(day, "21:00:00")},
		fakegoogle.Period{Start: at(day, "06:00:00"), End: at(day, "07:00:00")},
	)
	e.g.SetBusy("team@example.com",
		fakegoogle.Period{Start: at(day, "14:00:00"), End: at(day, "15:00:00")},
		fakegoogle.Period{Start: at(day, "10:30:00"), End: at(day, "11:00:00")},
	)
	c := e.client()
	e.connect(c)
	got, err := c.Fetch(t.Context(), at(day, "08:00:00"), at(day, "20:00:00"))
	if err != nil {
		t.Fatal(err)
	}
	want := []idle.Interval{
		iv(at(day, "09:00:00"), at(day, "11:00:00")), // overlapping and touching, across calendars
		iv(at(day, "14:00:00"), at(day, "15:00:00")),
		iv(at(day, "19:30:00"), at(day, "20:00:00")), // clipped by Google to the query
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("busy (-want +got):\n%s", d)
	}
	if n := e.g.Stats().FreeBusyQueries; n != 1 {
		t.Errorf("freeBusy queries = %d, want one for both calendars", n)
	}
}

func TestFetchFreeBusyUnknownCalendar(t *testing.T) {
	t.Parallel()
	e := newEnv(t, calendar.ModeFreeBusy)
	e.cfg.CalendarIDs = []string{"primary", "nobody@example.com"}
	e.g.SetBusy("primary")
	c := e.client()
	e.connect(c)
	_, err := c.Fetch(t.Context(), at(day, "08:00:00"), at(day, "20:00:00"))
	if err == nil || !strings.Contains(err.Error(), "nobody@example.com") || !strings.Contains(err.Error(), "notFound") {
		t.Errorf("Fetch = %v, want a notFound error naming the calendar", err)
	}
}

func timed(id, start, end string) fakegoogle.Event {
	return fakegoogle.Event{ID: id, Status: "confirmed", Summary: id,
		Start: fakegoogle.EventTime{DateTime: start}, End: fakegoogle.EventTime{DateTime: end}}
}

func allDay(id, start, end string) fakegoogle.Event {
	return fakegoogle.Event{ID: id, Status: "confirmed", Summary: id,
		Start: fakegoogle.EventTime{Date: start}, End: fakegoogle.EventTime{Date: end}}
}

func with(ev fakegoogle.Event, f func(*fakegoogle.Event)) fakegoogle.Event {
	f(&ev)
	return ev
}

func TestFetchEvents(t *testing.T) {
	t.Parallel()
	me := func(status string) fakegoogle.Attendee {
		return fakegoogle.Attendee{Email: "me@example.com", Self: true, ResponseStatus: status}
	}
	other := func(status string) fakegoogle.Attendee {
		return fakegoogle.Attendee{Email: "bo@example.com", ResponseStatus: status}
	}
	kolkata, _ := time.LoadLocation("Asia/Kolkata")
	tests := []struct {
		name     string
		tz       string
		location *time.Location
		events   []fakegoogle.Event
		want     []idle.Interval
	}{{
		name: "skips declined, free, focus time; keeps tentative and out of office",
		tz:   "Europe/Berlin",
		events: []fakegoogle.Event{
			timed("standup", "2026-12-01T09:00:00+01:00", "2026-12-01T10:00:00+01:00"),
			with(timed("declined", "2026-12-01T11:00:00+01:00", "2026-12-01T12:00:00+01:00"),
				func(e *fakegoogle.Event) { e.Attendees = []fakegoogle.Attendee{me("declined"), other("accepted")} }),
			with(timed("others declined", "2026-12-01T13:00:00+01:00", "2026-12-01T14:00:00+01:00"),
				func(e *fakegoogle.Event) { e.Attendees = []fakegoogle.Attendee{me("accepted"), other("declined")} }),
			with(timed("free", "2026-12-01T15:00:00+01:00", "2026-12-01T16:00:00+01:00"),
				func(e *fakegoogle.Event) { e.Transparency = "transparent" }),
			with(timed("focus", "2026-12-01T16:00:00+01:00", "2026-12-01T16:45:00+01:00"),
				func(e *fakegoogle.Event) { e.EventType = "focusTime" }),
			with(timed("ooo", "2026-12-01T17:00:00+01:00", "2026-12-01T18:00:00+01:00"),
				func(e *fakegoogle.Event) { e.EventType = "outOfOffice" }),
			with(timed("maybe", "2026-12-01T20:00:00+01:00", "2026-12-01T21:00:00+01:00"),
				func(e *fakegoogle.Event) {
					e.Status = "tentative"
					e.Attendees = []fakegoogle.Attendee{me("tentative")}
				}),
			with(timed("cancelled", "2026-12-01T22:00:00+01:00", "2026-12-01T23:00:00+01:00"),
				func(e *fakegoogle.Event) { e.Status = "cancelled" }),
		},
		want: []idle.Interval{
			iv(at(day, "08:00:00"), at(day, "09:00:00")),
			iv(at(day, "12:00:00"), at(day, "13:00:00")),
			iv(at(day, "16:00:00"), at(day, "17:00:00")),
			iv(at(day, "19:00:00"), at(day, "20:00:00")),
		},
	}, {
		name:   "all-day event in the calendar's zone, end date exclusive",
		tz:     "Europe/Berlin",
		events: []fakegoogle.Event{allDay("holiday", "2026-12-02", "2026-12-03")},
		want:   []idle.Interval{iv(at(day, "23:00:00"), at("2026-12-02", "23:00:00"))},
	}, {
		name:     "all-day event in the configured zone when the calendar names none",
		location: kolkata,
		events:   []fakegoogle.Event{allDay("trip", "2026-12-02", "2026-12-04")},
		want:     []idle.Interval{iv(at(day, "18:30:00"), at("2026-12-03", "18:30:00"))},
	}, {
		name: "explicit event time zones",
		tz:   "Europe/Berlin",
		events: []fakegoogle.Event{
			with(timed("tokyo", "2026-12-01T20:00:00+09:00", "2026-12-01T21:00:00+09:00"),
				func(e *fakegoogle.Event) { e.Start.TimeZone, e.End.TimeZone = "Asia/Tokyo", "Asia/Tokyo" }),
			with(timed("new york, no offset", "2026-12-01T10:00:00", "2026-12-01T10:30:00"),
				func(e *fakegoogle.Event) { e.Start.TimeZone, e.End.TimeZone = "America/New_York", "America/New_York" }),
		},
		want: []idle.Interval{
			iv(at(day, "11:00:00"), at(day, "12:00:00")),
			iv(at(day, "15:00:00"), at(day, "15:30:00")),
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, calendar.ModeEvents)
			e.cfg.Location = tt.location
			e.g.SetPageSize(2)
			e.g.SetCalendar("primary", fakegoogle.Calendar{TimeZone: tt.tz, Events: tt.events})
			c := e.client()
			e.connect(c)
			got, err := c.Fetch(t.Context(), at("2026-11-30", "00:00:00"), at("2026-12-04", "00:00:00"))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("busy (-want +got):\n%s", d)
			}
			listed := 0 // Google leaves cancelled events out unless showDeleted
			for _, ev := range tt.events {
				if ev.Status != "cancelled" {
					listed++
				}
			}
			if pages, want := e.g.Stats().EventPages, max(1, (listed+1)/2); pages != want {
				t.Errorf("pages fetched = %d, want %d (nextPageToken followed)", pages, want)
			}
		})
	}
}

// Switching to events mode with a grant made for free/busy needs a new
// consent: the client says so rather than failing opaquely.
func TestEventsModeWithFreeBusyGrant(t *testing.T) {
	t.Parallel()
	e := newEnv(t, calendar.ModeFreeBusy)
	e.g.SetCalendar("primary", fakegoogle.Calendar{TimeZone: "UTC"})
	e.connect(e.client())
	e.cfg.Mode = calendar.ModeEvents
	_, err := e.client().Fetch(t.Context(), at(day, "00:00:00"), at(day, "23:00:00"))
	if !errors.Is(err, calendar.ErrReconnectNeeded) {
		t.Errorf("Fetch = %v, want ErrReconnectNeeded", err)
	}
}
