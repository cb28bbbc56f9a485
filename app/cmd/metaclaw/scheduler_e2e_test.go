package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestSchedulerNextWindow runs the real binary: with sleep hours 23:00–07:00
// (in UTC, the process's zone here) the next training window is a sleep
// window from 23:00 to 07:00 — already open, or the next one to start.
func TestSchedulerNextWindow(t *testing.T) {
	t.Parallel()
	in := newInstance(t)
	in.env = append(in.env, "TZ=UTC")
	in.must("config", "set", "scheduler.enabled", "true", "scheduler.sleep_start", "23:00", "scheduler.sleep_end", "07:00",
		"scheduler.min_window_minutes", "15")
	var next struct {
		Found, Open, Enabled bool
		Reason, Detail       string
		Start, End           time.Time
	}
	r := in.must("scheduler", "next-window", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &next); err != nil {
		t.Fatalf("next-window --json: %v\n%s", err, r.stdout)
	}
	start, end := next.Start.UTC(), next.End.UTC()
	if !next.Found || !next.Enabled || next.Reason != "sleep" || start.Format("15:04") != "23:00" || end.Format("15:04") != "07:00" ||
		end.Sub(start) != 8*time.Hour || !end.After(time.Now()) {
		t.Fatalf("next-window: %+v", next)
	}
	text := in.must("scheduler", "next-window").stdout
	if !strings.Contains(text, "sleep") || !strings.Contains(text, "07:00") {
		t.Errorf("next-window:\n%s", text)
	}
}
