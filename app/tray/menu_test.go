package tray

import (
	"testing"

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
			if got := Tooltip(tt.st); len(got) < len(tt.tooltipHead) || got[:len(tt.tooltipHead)] != tt.tooltipHead {
				t.Errorf("Tooltip = %q, want prefix %q", got, tt.tooltipHead)
			}
			if _, err := assets.Icon(IconState(tt.st), 64); err != nil {
				t.Error(err)
			}
		})
	}
}
