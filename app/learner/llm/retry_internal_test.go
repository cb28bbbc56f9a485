package llm

import (
	"errors"
	"net/http"
	"testing"
	"time"
)

func TestRetryAfterParsing(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	p := &Poster{MaxRetryDelay: 30 * time.Second}
	tests := []struct {
		name        string
		header      []string
		want        time.Duration
		ok, tooLong bool
	}{
		{"none", nil, 0, false, false},
		{"seconds", []string{"Retry-After", "2"}, 2 * time.Second, true, false},
		{"fraction", []string{"Retry-After", "0.25"}, 250 * time.Millisecond, true, false},
		{"ms wins", []string{"Retry-After-Ms", "150", "Retry-After", "9"}, 150 * time.Millisecond, true, false},
		{"bad ms falls back", []string{"Retry-After-Ms", "soon", "Retry-After", "3"}, 3 * time.Second, true, false},
		{"date", []string{"Retry-After", now.Add(5 * time.Second).Format(http.TimeFormat)}, 5 * time.Second, true, false},
		{"past date", []string{"Retry-After", now.Add(-time.Hour).Format(http.TimeFormat)}, 0, true, false},
		{"over cap", []string{"Retry-After", "31"}, 0, true, true},
		{"date over cap", []string{"Retry-After", now.Add(time.Hour).Format(http.TimeFormat)}, time.Hour, true, true},
		{"huge", []string{"Retry-After", "1e400"}, 0, true, true},
		{"negative", []string{"Retry-After", "-1"}, 0, false, false},
		{"garbage", []string{"Retry-After", "later"}, 0, false, false},
	}
	for _, tt := range tests {
		h := http.Header{}
		for i := 0; i+1 < len(tt.header); i += 2 {
			h.Set(tt.header[i], tt.header[i+1])
		}
		d, ok, tooLong := p.retryAfter(h, now)
		if ok != tt.ok || tooLong != tt.tooLong || (!tooLong && d != tt.want) {
			t.Errorf("%s: retryAfter = %v, %v, %v; want %v, %v, %v", tt.name, d, ok, tooLong, tt.want, tt.ok, tt.tooLong)
		}
	}
	if _, _, tooLong := (&Poster{}).retryAfter(http.Header{"Retry-After": {"100"}}, now); tooLong {
		t.Error("100 s over the default 2 min cap")
	}
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p      *Poster
		n      int
		lo, hi time.Duration
	}{
		{&Poster{}, 0, 375 * time.Millisecond, 500 * time.Millisecond},
		{&Poster{}, 1, 750 * time.Millisecond, time.Second},
		{&Poster{}, 10, 6 * time.Second, 8 * time.Second},
		{&Poster{MaxRetryDelay: 30 * time.Second}, 10, 22500 * time.Millisecond, 30 * time.Second},
		{&Poster{}, 5000, 6 * time.Second, 8 * time.Second},
	} {
		for range 50 {
			if d := tc.p.backoff(tc.n); d <= tc.lo-time.Nanosecond || d > tc.hi {
				t.Fatalf("backoff(%d) = %v, want in (%v, %v]", tc.n, d, tc.lo, tc.hi)
			}
		}
	}
}

func TestRetryDecision(t *testing.T) {
	t.Parallel()
	p := &Poster{MaxRetries: 2}
	res := func(status int, h ...string) *response {
		r := &response{status: status, header: http.Header{}}
		for i := 0; i+1 < len(h); i += 2 {
			r.header.Set(h[i], h[i+1])
		}
		return r
	}
	for _, tc := range []struct {
		name string
		res  *response
		err  error
		n    int
		want bool
	}{
		{"transport", nil, errors.New("connection refused"), 0, true},
		{"bad request build", nil, permanent{errors.New("bad url")}, 0, false},
		{"408", res(408), nil, 0, true},
		{"409", res(409), nil, 1, true},
		{"429", res(429), nil, 0, true},
		{"529", res(529), nil, 0, true},
		{"last attempt", res(503), nil, 2, false},
		{"400", res(400), nil, 0, false},
		{"401", res(401), nil, 0, false},
		{"400 told to retry", res(400, "X-Should-Retry", "true"), nil, 0, true},
		{"503 told not to", res(503, "X-Should-Retry", "false"), nil, 0, false},
	} {
		if _, got := p.retryDelay(tc.res, tc.err, tc.n); got != tc.want {
			t.Errorf("%s: retry = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestErrorDetail(t *testing.T) {
	t.Parallel()
	for body, want := range map[string][2]string{
		`{"error":{"message":"bad model","type":"invalid_request_error","code":null}}`: {"invalid_request_error", "bad model"},
		`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`:  {"overloaded_error", "Overloaded"},
		`{"error":"plain text error"}`: {"", "plain text error"},
		`{"message":"top-level"}`:      {"", "top-level"},
		`{"detail":"other"}`:           {"", `{"detail":"other"}`},
		"  upstream\n\tdown ":          {"", "upstream down"},
		"":                             {"", ""},
	} {
		if typ, msg := errorDetail([]byte(body)); typ != want[0] || msg != want[1] {
			t.Errorf("errorDetail(%q) = %q, %q; want %q, %q", body, typ, msg, want[0], want[1])
		}
	}
}

func TestTruncateAndRedact(t *testing.T) {
	t.Parallel()
	if got := truncate("héllo", 2); got != "h…" {
		t.Errorf("truncate on a rune boundary = %q", got)
	}
	if got := truncate("short", 10); got != "short" {
		t.Errorf("truncate = %q", got)
	}
	if got := redact("key sk-abcdef and sk-abcdef", "sk-abcdef"); got != "key [redacted] and [redacted]" {
		t.Errorf("redact = %q", got)
	}
	if got := redact("keep k", "k"); got != "keep k" {
		t.Errorf("a too-short secret was redacted: %q", got)
	}
}
