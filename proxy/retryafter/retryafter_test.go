package retryafter

import (
	"math"
	"net/http"
	"testing"
	"time"
)

func TestRead(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tt := range []struct {
		name   string
		header []string
		want   time.Duration
		ok     bool
	}{
		{"none", nil, 0, false},
		{"seconds", []string{"Retry-After", "2"}, 2 * time.Second, true},
		{"spaces", []string{"Retry-After", " 2 "}, 2 * time.Second, true},
		{"fraction", []string{"Retry-After", "0.25"}, 250 * time.Millisecond, true},
		{"zero", []string{"Retry-After", "0"}, 0, true},
		{"ms wins", []string{"Retry-After-Ms", "150", "Retry-After", "9"}, 150 * time.Millisecond, true},
		{"ms alone", []string{"Retry-After-Ms", "250"}, 250 * time.Millisecond, true},
		{"bad ms falls back", []string{"Retry-After-Ms", "soon", "Retry-After", "3"}, 3 * time.Second, true},
		{"negative ms falls back", []string{"Retry-After-Ms", "-5", "Retry-After", "3"}, 3 * time.Second, true},
		{"date", []string{"Retry-After", now.Add(5 * time.Second).Format(http.TimeFormat)}, 5 * time.Second, true},
		{"past date", []string{"Retry-After", now.Add(-time.Hour).Format(http.TimeFormat)}, 0, true},
		{"huge", []string{"Retry-After", "1e400"}, math.MaxInt64, true},
		{"too long for a Duration", []string{"Retry-After", "1e12"}, math.MaxInt64, true},
		{"negative", []string{"Retry-After", "-1"}, 0, false},
		{"not a number", []string{"Retry-After", "NaN"}, 0, false},
		{"garbage", []string{"Retry-After", "later"}, 0, false},
	} {
		h := http.Header{}
		for i := 0; i+1 < len(tt.header); i += 2 {
			h.Set(tt.header[i], tt.header[i+1])
		}
		if d, ok := Read(h, now); d != tt.want || ok != tt.ok {
			t.Errorf("%s: Read = %v, %v; want %v, %v", tt.name, d, ok, tt.want, tt.ok)
		}
	}
}
