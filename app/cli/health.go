package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/metaclaw/metaclaw/app/control"
)

// health is the part of the proxy's /healthz answer the CLI reads.
type health struct {
	Status        string         `json:"status"`
	Service       string         `json:"service"`
	PID           int            `json:"pid"`
	Version       string         `json:"version"`
	Mode          string         `json:"mode"`
	Home          string         `json:"home"`
	UptimeSeconds int            `json:"uptime_seconds"`
	Recorder      *recorderStats `json:"recorder"`
	// App is the running app's state (paused, problems, attention,
	// upstream failures, learning spend, cuts, settings waiting for a
	// restart), read from the same answer.
	App control.Status `json:"-"`
}

// recorderStats is the proxy's turn recorder's backlog and losses.
type recorderStats struct {
	Queued   int   `json:"queued"`
	Recorded int64 `json:"recorded"`
	Dropped  int64 `json:"dropped"`
	Failed   int64 `json:"failed"`
}

func fetchHealth(proxyURL string, timeout time.Duration) (health, error) {
	var h health
	if proxyURL == "" {
		return h, fmt.Errorf("no proxy address")
	}
	client := &http.Client{Timeout: timeout}
	resp, err := client.Get(proxyURL + "/healthz")
	if err != nil {
		return h, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return h, fmt.Errorf("healthz: status %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return h, fmt.Errorf("healthz: %w", err)
	}
	if err := json.Unmarshal(body, &h); err != nil {
		return h, fmt.Errorf("healthz: %w", err)
	}
	if err := json.Unmarshal(body, &h.App); err != nil {
		return h, fmt.Errorf("healthz: %w", err)
	}
	if h.Service != "metaclaw" {
		return h, fmt.Errorf("healthz: not MetaClaw")
	}
	return h, nil
}

func splitLines(s string) []string {
	return strings.Split(strings.TrimRight(s, "\n"), "\n")
}
