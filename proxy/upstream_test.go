package proxy

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// TestRetryDelay: the wait before a retry is what the upstream asked for,
// Retry-After-Ms (OpenAI, Anthropic) before Retry-After, capped; without
// either, exponential backoff with jitter, capped too.
func TestRetryDelay(t *testing.T) {
	c := &client{backoff: 250 * time.Millisecond, maxBackoff: 8 * time.Second}
	resp := func(kv ...string) *http.Response {
		h := http.Header{}
		for i := 0; i+1 < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return &http.Response{StatusCode: 429, Header: h}
	}
	for _, tt := range []struct {
		name string
		resp *http.Response
		want time.Duration
	}{
		{"ms before seconds", resp("Retry-After-Ms", "150", "Retry-After", "9"), 150 * time.Millisecond},
		{"seconds", resp("Retry-After", "2"), 2 * time.Second},
		{"capped", resp("Retry-After", "120"), 8 * time.Second},
	} {
		if got := c.delay(0, tt.resp); got != tt.want {
			t.Errorf("%s: delay = %v, want %v", tt.name, got, tt.want)
		}
	}
	for attempt, limit := range []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second} {
		if got := c.delay(attempt, resp()); got < limit/2 || got > limit {
			t.Errorf("backoff %d = %v, want within [%v, %v]", attempt, got, limit/2, limit)
		}
	}
	if got := c.delay(10, nil); got < 4*time.Second || got > 8*time.Second {
		t.Errorf("backoff 10 = %v, want within the cap", got)
	}
}

// TestReadAnswer: an answer is read whole up to the limit, with or without
// a Content-Length; a longer one, or one whose length says so, is refused.
func TestReadAnswer(t *testing.T) {
	resp := func(body string, length int64) *http.Response {
		return &http.Response{Body: io.NopCloser(iotest.OneByteReader(strings.NewReader(body))), ContentLength: length}
	}
	for _, tt := range []struct {
		name   string
		body   string
		length int64
		ok     bool
	}{
		{"known length", strings.Repeat("x", 100), 100, true},
		{"unknown length", strings.Repeat("y", 5000), -1, true},
		{"exactly the limit", strings.Repeat("z", 8192), -1, true},
		{"empty", "", 0, true},
		{"over, unknown length", strings.Repeat("w", 8193), -1, false},
		{"over, length says so", "short", 9000, false},
		{"over, length lies", strings.Repeat("v", 9000), 10, false},
	} {
		got, err := readAnswer(resp(tt.body, tt.length), 8192)
		switch {
		case tt.ok && (err != nil || string(got) != tt.body):
			t.Errorf("%s: %d bytes, %v", tt.name, len(got), err)
		case !tt.ok && !errors.Is(err, errAnswerTooLarge):
			t.Errorf("%s: err %v, want errAnswerTooLarge", tt.name, err)
		}
	}
	if got, _ := readAnswer(resp(strings.Repeat("x", 100), 100), 8192); cap(got) != 101 {
		t.Errorf("a known length reads into one buffer: cap %d, want 101", cap(got))
	}
}
