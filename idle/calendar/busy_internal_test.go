package calendar

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/oauth2"
	gcal "google.golang.org/api/calendar/v3"
	"google.golang.org/api/googleapi"

	"github.com/metaclaw/metaclaw/idle"
)

func TestEventInterval(t *testing.T) {
	t.Parallel()
	berlin, _ := time.LoadLocation("Europe/Berlin")
	utc := func(s string) time.Time { v, _ := time.Parse(time.RFC3339, s); return v }
	dt := func(s string) *gcal.EventDateTime { return &gcal.EventDateTime{DateTime: s} }
	tests := []struct {
		name     string
		ev       gcal.Event
		want     idle.Interval
		wantBusy bool
		wantErr  bool
	}{
		{"plain", gcal.Event{Start: dt("2026-12-01T09:00:00+01:00"), End: dt("2026-12-01T10:00:00+01:00")},
			idle.Interval{Start: utc("2026-12-01T08:00:00Z"), End: utc("2026-12-01T09:00:00Z")}, true, false},
		{"cancelled", gcal.Event{Status: "cancelled", Start: dt("2026-12-01T09:00:00Z"), End: dt("2026-12-01T10:00:00Z")},
			idle.Interval{}, false, false},
		{"working location", gcal.Event{EventType: "workingLocation", Start: &gcal.EventDateTime{Date: "2026-12-01"}, End: &gcal.EventDateTime{Date: "2026-12-02"}},
			idle.Interval{}, false, false},
		{"empty span", gcal.Event{Start: dt("2026-12-01T09:00:00Z"), End: dt("2026-12-01T09:00:00Z")},
			idle.Interval{}, false, false},
		{"all-day in the event's own zone", gcal.Event{
			Start: &gcal.EventDateTime{Date: "2026-12-01", TimeZone: "Asia/Tokyo"},
			End:   &gcal.EventDateTime{Date: "2026-12-02", TimeZone: "Asia/Tokyo"}},
			idle.Interval{Start: utc("2026-11-30T15:00:00Z"), End: utc("2026-12-01T15:00:00Z")}, true, false},
		{"unknown zone falls back to the calendar's", gcal.Event{
			Start: &gcal.EventDateTime{Date: "2026-12-01", TimeZone: "Mars/Olympus"},
			End:   &gcal.EventDateTime{Date: "2026-12-02"}},
			idle.Interval{Start: utc("2026-11-30T23:00:00Z"), End: utc("2026-12-01T23:00:00Z")}, true, false},
		{"no start", gcal.Event{End: dt("2026-12-01T09:00:00Z")}, idle.Interval{}, false, true},
		{"garbage", gcal.Event{Start: dt("tomorrow"), End: dt("2026-12-01T09:00:00Z")}, idle.Interval{}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, busy, err := eventInterval(&tt.ev, berlin)
			if (err != nil) != tt.wantErr || busy != tt.wantBusy {
				t.Fatalf("busy=%v err=%v, want busy=%v err=%v", busy, err, tt.wantBusy, tt.wantErr)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("interval (-want +got):\n%s", d)
			}
		})
	}
}

func FuzzEventTime(f *testing.F) {
	for _, s := range []string{"2026-12-01", "2026-12-01T09:00:00+01:00", "2026-12-01T09:00:00", "", "x"} {
		f.Add(s, "Europe/Berlin")
	}
	f.Fuzz(func(t *testing.T, v, tz string) {
		_, _ = eventTime(&gcal.EventDateTime{DateTime: v, TimeZone: tz}, time.UTC)
		got, err := eventTime(&gcal.EventDateTime{Date: v, TimeZone: tz}, time.UTC)
		if err == nil && got.Format(time.DateOnly) != v {
			t.Errorf("all-day %q read as %v", v, got)
		}
	})
}

func TestMerge(t *testing.T) {
	t.Parallel()
	h := func(n int) time.Time { return time.Date(2026, 12, 1, n, 0, 0, 0, time.UTC) }
	span := func(a, b int) idle.Interval { return idle.Interval{Start: h(a), End: h(b)} }
	tests := []struct {
		name string
		in   []idle.Interval
		want []idle.Interval
	}{
		{"empty", nil, []idle.Interval{}},
		{"unsorted disjoint", []idle.Interval{span(5, 6), span(1, 2)}, []idle.Interval{span(1, 2), span(5, 6)}},
		{"touching", []idle.Interval{span(1, 2), span(2, 3)}, []idle.Interval{span(1, 3)}},
		{"contained", []idle.Interval{span(1, 5), span(2, 3), span(4, 6)}, []idle.Interval{span(1, 6)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := merge(tt.in)
			if got == nil {
				got = []idle.Interval{}
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("merge (-want +got):\n%s", d)
			}
		})
	}
}

func TestBackoffGrowsWithJitterAndCap(t *testing.T) {
	t.Parallel()
	lo, hi := time.Second, time.Minute
	for n := 1; n <= 12; n++ {
		ceiling := min(lo<<(n-1), hi)
		for range 50 {
			if d := backoff(lo, hi, n); d < ceiling/2 || d > ceiling {
				t.Fatalf("backoff(n=%d) = %v, want within [%v, %v]", n, d, ceiling/2, ceiling)
			}
		}
	}
}

func TestTransientAndRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	hdr := func(v string) http.Header { return http.Header{"Retry-After": {v}} }
	tests := []struct {
		name      string
		err       error
		transient bool
		after     time.Duration
	}{
		{"429 with seconds", &googleapi.Error{Code: 429, Header: hdr("7")}, true, 7 * time.Second},
		{"503 with a date", fmt.Errorf("wrapped: %w", &googleapi.Error{Code: 503, Header: hdr(now.Add(90 * time.Second).Format(http.TimeFormat))}), true, 90 * time.Second},
		{"500 with garbage", &googleapi.Error{Code: 500, Header: hdr("soon")}, true, 0},
		{"403 rate limit", &googleapi.Error{Code: 403, Errors: []googleapi.ErrorItem{{Reason: "userRateLimitExceeded"}}}, true, 0},
		{"403 forbidden", &googleapi.Error{Code: 403, Errors: []googleapi.ErrorItem{{Reason: "forbidden"}}}, false, 0},
		{"404", &googleapi.Error{Code: 404}, false, 0},
		{"network", &url.Error{Op: "Post", URL: "x", Err: errors.New("connection refused")}, true, 0},
		{"token endpoint down", &oauth2.RetrieveError{Response: &http.Response{StatusCode: 502, Header: hdr("3")}}, true, 3 * time.Second},
		{"reconnect needed", fmt.Errorf("x: %w", ErrReconnectNeeded), false, 0},
		{"not connected", ErrNotConnected, false, 0},
		{"cancelled", context.Canceled, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := transient(tt.err); got != tt.transient {
				t.Errorf("transient = %v, want %v", got, tt.transient)
			}
			if got := retryAfter(tt.err, now); got != tt.after {
				t.Errorf("retryAfter = %v, want %v", got, tt.after)
			}
		})
	}
}
