package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWithSessionID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want, err string
	}{
		{name: "header and messages",
			in:   `{"type": "session", "version": 3, "id": "day01_0001", "timestamp": "2026-03-16T08:00:00.000Z"}` + "\n" + `{"type": "message", "id": "a1"}` + "\n",
			want: `{"id":"bench-x-day01","timestamp":"2026-03-16T08:00:00.000Z","type":"session","version":3}` + "\n" + `{"type": "message", "id": "a1"}` + "\n"},
		{name: "header only", in: `{"type":"session","id":"s"}`, want: `{"id":"bench-x-day01","type":"session"}` + "\n"},
		{name: "no header", in: `{"type": "message", "id": "a1"}` + "\n", err: "header"},
		{name: "not JSON", in: "hello\n", err: "header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := withSessionID([]byte(tt.in), "bench-x-day01")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one about %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, string(got)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestCheckImport(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, report string
		ok           bool
	}{
		{"imported", `{"mode":"import","totals":{"importedTranscriptEvents":3,"issues":0}}`, true},
		{"nothing imported", `{"mode":"import","totals":{"importedTranscriptEvents":0,"issues":0}}`, false},
		{"issues", `{"mode":"import","totals":{"importedTranscriptEvents":3,"issues":1}}`, false},
		{"not JSON", `Doctor: something went wrong`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := checkImport([]byte(tt.report)); (err == nil) != tt.ok {
				t.Errorf("checkImport = %v, want ok %v", err, tt.ok)
			}
		})
	}
}

// TestOpenClawResume checks that a resumed day puts OpenClaw's state back
// as it was after the messages the run counted: the snapshot taken before
// the message in flight, or the state itself when none was. The state is
// stood in for by a file the "turns" rewrite (no OpenClaw runs here).
func TestOpenClawResume(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		sends int  // turns completed before the interruption
		fly   bool // one more turn started, not finished
		done  int  // messages the run counted
		want  string
		err   error
	}{
		{name: "fresh day", want: "after 0"},
		{name: "interrupted in a turn", sends: 2, fly: true, done: 2, want: "after 2"},
		{name: "turn done, not counted", sends: 3, done: 2, want: "after 2"},
		{name: "between turns", sends: 3, done: 3, want: "after 3"},
		{name: "the run counted more", sends: 1, done: 3, err: errOpenClawState},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := DaySpec{StateDir: t.TempDir(), Workspace: t.TempDir(), SessionID: "bench-x-day01", AgentID: "bench_agent"}
			a := openclawDay(t, spec)
			for i := 0; i < tt.sends; i++ {
				fakeTurn(t, a, true)
			}
			if tt.fly {
				fakeTurn(t, a, false)
			}
			spec.Done = tt.done
			b, err := NewOpenClaw("openclaw", spec)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("NewOpenClaw = %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := readState(t, b.(*openclawAgent)); got != tt.want || b.(*openclawAgent).sent != tt.done {
				t.Errorf("state %q after %d messages, want %q after %d", got, b.(*openclawAgent).sent, tt.want, tt.done)
			}
		})
	}
	// A resumed day whose state folder is gone cannot go on.
	spec := DaySpec{StateDir: t.TempDir(), Done: 1, SessionID: "s", AgentID: "a"}
	if _, err := NewOpenClaw("openclaw", spec); !errors.Is(err, errOpenClawState) {
		t.Errorf("state gone: %v", err)
	}
}

// openclawDay starts a fresh day (no seed: no OpenClaw run) and writes the
// stand-in state.
func openclawDay(t *testing.T, spec DaySpec) *openclawAgent {
	t.Helper()
	ag, err := NewOpenClaw("openclaw", spec)
	if err != nil {
		t.Fatal(err)
	}
	a := ag.(*openclawAgent)
	writeState(t, a, "after 0")
	if _, err := os.Stat(a.configPath()); err != nil {
		t.Fatalf("no configuration: %v", err)
	}
	return a
}

// fakeTurn does what Send does around an OpenClaw run; finish false stops
// it while "OpenClaw" is halfway.
func fakeTurn(t *testing.T, a *openclawAgent, finish bool) {
	t.Helper()
	if err := a.snapshot(); err != nil {
		t.Fatal(err)
	}
	writeState(t, a, "halfway")
	if !finish {
		return
	}
	a.sent++
	writeState(t, a, "after "+string(rune('0'+a.sent)))
	if err := a.saveRecord(); err != nil {
		t.Fatal(err)
	}
}

func ocStatePath(a *openclawAgent) string {
	return filepath.Join(a.state, "agents", a.spec.AgentID, "agent", "openclaw-agent.sqlite")
}

func writeState(t *testing.T, a *openclawAgent, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(ocStatePath(a)), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ocStatePath(a), []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readState(t *testing.T, a *openclawAgent) string {
	t.Helper()
	data, err := os.ReadFile(ocStatePath(a))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestOpenClawConfig checks the configuration of a turn: the arm's
// endpoint and headers, the day's workspace, the reference's tools or
// none for a final answer, and X-Session-Done only with end.
func TestOpenClawConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		final, end bool
		tools      string
		done       bool
	}{
		{name: "round", tools: `{"deny":["group:memory"],"profile":"coding"}`},
		{name: "feedback", final: true, tools: `{"deny":["*"]}`},
		{name: "closing feedback", final: true, end: true, tools: `{"deny":["*"]}`, done: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := DaySpec{StateDir: t.TempDir(), Workspace: "/w/day01", SessionID: "S", AgentID: "bench_agent",
				Endpoint: Endpoint{BaseURL: "http://127.0.0.1:1/v1", APIKey: "k", Model: "m"},
				Headers:  map[string]string{"X-Session-Id": "S", BenchHeader: "agent"}}
			ag, err := NewOpenClaw("openclaw", spec)
			if err != nil {
				t.Fatal(err)
			}
			a := ag.(*openclawAgent)
			if err := a.writeConfig(tt.final, tt.end); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(a.configPath())
			if err != nil {
				t.Fatal(err)
			}
			var cfg struct {
				Models struct {
					Providers map[string]struct {
						BaseURL string            `json:"baseUrl"`
						Headers map[string]string `json:"headers"`
					} `json:"providers"`
				} `json:"models"`
				Agents struct {
					Entries map[string]struct {
						Workspace string `json:"workspace"`
					} `json:"entries"`
				} `json:"agents"`
				Tools json.RawMessage `json:"tools"`
			}
			if err := json.Unmarshal(data, &cfg); err != nil {
				t.Fatal(err)
			}
			p := cfg.Models.Providers["bench"]
			wantHeaders := map[string]string{"X-Session-Id": "S", BenchHeader: "agent"}
			if tt.done {
				wantHeaders["X-Session-Done"] = "true"
			}
			if d := cmp.Diff(wantHeaders, p.Headers); d != "" || p.BaseURL != spec.Endpoint.BaseURL {
				t.Errorf("provider %s, headers (-want +got):\n%s", p.BaseURL, d)
			}
			if ws := cfg.Agents.Entries["bench_agent"].Workspace; ws != spec.Workspace {
				t.Errorf("workspace %q, want %q", ws, spec.Workspace)
			}
			var tools bytes.Buffer
			if err := json.Compact(&tools, cfg.Tools); err != nil || tools.String() != tt.tools {
				t.Errorf("tools %s, want %s", cfg.Tools, tt.tools)
			}
		})
	}
}
