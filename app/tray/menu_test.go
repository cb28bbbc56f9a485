package tray

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/metaclaw/metaclaw/assets"
)

func TestMenuText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                    string
		st                      Status
		icon, line, tooltipHead string
	}{
		{"learning", Status{Mode: "madmax", ProxyURL: "http://127.0.0.1:30000", TurnsToday: 3},
			assets.StateLearning, "madmax · 127.0.0.1:30000 · 3 turns today", "MetaClaw: learning (madmax)"},
		{"one turn", Status{Mode: "skills_only", ProxyURL: "http://127.0.0.1:1", TurnsToday: 1},
			assets.StateLearning, "skills_only · 127.0.0.1:1 · 1 turn today", "MetaClaw: learning"},
		{"paused", Status{Mode: "rl", Paused: true, Training: true},
			assets.StatePaused, "rl · proxy not running · 0 turns today", "MetaClaw: learning paused"},
		{"training", Status{Mode: "rl", Training: true, ProxyURL: "http://h:2"},
			assets.StateTraining, "rl · h:2 · 0 turns today", "MetaClaw: training"},
		{"attention wins", Status{Mode: "skills_only", Paused: true, Problems: []string{"llm.api_key is not set"}},
			assets.StateAttention, "skills_only · proxy not running · 0 turns today", "MetaClaw needs attention: llm.api_key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := IconState(tt.st); got != tt.icon {
				t.Errorf("IconState = %q, want %q", got, tt.icon)
			}
			if got := StatusLine(tt.st); got != tt.line {
				t.Errorf("StatusLine = %q, want %q", got, tt.line)
			}
			if got := Tooltip(tt.st); !strings.HasPrefix(got, tt.tooltipHead) {
				t.Errorf("Tooltip = %q, want prefix %q", got, tt.tooltipHead)
			}
			for _, goos := range []string{"linux", "darwin", "windows"} {
				if _, err := iconFor(IconState(tt.st), goos); err != nil {
					t.Errorf("%s icon: %v", goos, err)
				}
			}
		})
	}
}

func TestViewOf(t *testing.T) {
	t.Parallel()
	pause := Check{Label: "Pause learning",
		Tip: "Stop judging, evolving skills, extracting memories and training; the proxy keeps serving"}
	resume := Check{Label: "Resume learning", Tip: "Learning is paused and the proxy keeps serving; click to resume", Checked: true}
	login := Check{Label: "Start at login", Tip: "Start MetaClaw when you log in"}
	loginOn := login
	loginOn.Checked = true
	keyProblem := "llm.api_key is not set: run `metaclaw setup` or `metaclaw config set llm.api_key ...` (or turn on proxy.forward_client_auth)"
	rlProblem := "mode rl needs rl.api_key (a Tinker-compatible training key); running as skills_only until it is set"
	tests := []struct {
		name string
		st   Status
		want View
	}{
		{"learning", Status{Mode: "madmax", ProxyURL: "http://127.0.0.1:30000", TurnsToday: 2},
			View{Icon: assets.StateLearning, Tooltip: "MetaClaw: learning (madmax)",
				StatusLine: "madmax · 127.0.0.1:30000 · 2 turns today", Pause: pause, Autostart: login}},
		{"paused, at login", Status{Mode: "rl", ProxyURL: "http://127.0.0.1:1", Paused: true, Autostart: true},
			View{Icon: assets.StatePaused, Tooltip: "MetaClaw: learning paused",
				StatusLine: "rl · 127.0.0.1:1 · 0 turns today", Pause: resume, Autostart: loginOn}},
		{"one problem", Status{Mode: "skills_only", Problems: []string{keyProblem}},
			View{Icon: assets.StateAttention, Tooltip: "MetaClaw needs attention: " + keyProblem,
				StatusLine: "skills_only · proxy not running · 0 turns today",
				Problem:    "Needs attention: llm.api_key is not set", ProblemTip: keyProblem, Pause: pause, Autostart: login}},
		{"two problems", Status{Mode: "skills_only", Problems: []string{rlProblem, keyProblem}},
			View{Icon: assets.StateAttention, Tooltip: "MetaClaw needs attention: " + rlProblem,
				StatusLine: "skills_only · proxy not running · 0 turns today",
				Problem:    "Needs attention: mode rl needs rl.api_key (+1 more)", ProblemTip: rlProblem + "\n" + keyProblem,
				Pause: pause, Autostart: login}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, ViewOf(tt.st)); diff != "" {
				t.Errorf("ViewOf (-want +got):\n%s", diff)
			}
		})
	}
}

func TestShortProblem(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"colon", "llm.api_base is not set: the proxy has no upstream", "llm.api_base is not set"},
		{"semicolon and parenthesis", "mode rl needs rl.api_key (a key); running as skills_only", "mode rl needs rl.api_key"},
		{"short", "database is locked", "database is locked"},
		{"long", strings.Repeat("é", 60), strings.Repeat("é", 47) + "…"},
		{"separator first", ": odd", ": odd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := shortProblem(tt.in); got != tt.want {
				t.Errorf("shortProblem(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestWindowLine(t *testing.T) {
	t.Parallel()
	seven := time.Date(2026, 3, 2, 7, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		st   Status
		want string
	}{
		{"windows off", Status{Mode: "rl"}, ""},
		{"sleep", Status{Window: Window{Enabled: true, Open: true, Reason: "sleep", Until: seven}}, "Training window open: sleep until 07:00"},
		{"meeting", Status{Window: Window{Enabled: true, Open: true, Reason: "meeting", Until: seven.Add(90 * time.Minute)}},
			"Training window open: meeting until 08:30"},
		{"idle has no end", Status{Window: Window{Enabled: true, Open: true, Reason: "idle"}}, "Training window open: keyboard idle"},
		{"shut", Status{Window: Window{Enabled: true}}, "Waiting for a training window"},
		{"paused", Status{Paused: true, Window: Window{Enabled: true}}, "No training window while learning is paused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := WindowLine(tt.st); got != tt.want {
				t.Errorf("WindowLine = %q, want %q", got, tt.want)
			}
			if got := ViewOf(tt.st).WindowLine; got != tt.want {
				t.Errorf("ViewOf(...).WindowLine = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMenuLabel(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, goos, want string }{
		{"skills_only · 127.0.0.1:30000 · 3 turns today", "linux", "skills__only · 127.0.0.1:30000 · 3 turns today"},
		{"skills_only", "windows", "skills_only"},
		{"skills_only", "darwin", "skills_only"},
		{"madmax · 1 turn today", "linux", "madmax · 1 turn today"},
	} {
		if got := menuLabel(tt.in, tt.goos); got != tt.want {
			t.Errorf("menuLabel(%q, %s) = %q, want %q", tt.in, tt.goos, got, tt.want)
		}
	}
}

func TestSystrayLogWithoutHost(t *testing.T) {
	t.Parallel()
	var buf strings.Builder
	log := slog.New(slog.NewTextHandler(&buf, nil))
	w := &systrayWriter{log: log, noHost: true}
	w.Write([]byte("systray error: failed to register: org.freedesktop.DBus.Error.ServiceUnknown\n"))
	if buf.Len() != 0 {
		t.Errorf("the expected registration failure was logged at info: %s", buf.String())
	}
	w.Write([]byte("systray error: failed to set Title prop: boom\n"))
	if !strings.Contains(buf.String(), `msg="tray: failed to set Title prop: boom"`) || strings.Contains(buf.String(), "systray error") {
		t.Errorf("log %s", buf.String())
	}
}
