package proxy

import (
	"net/http"
	"testing"
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
