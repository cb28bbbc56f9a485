package tray

import (
	"fmt"

	"github.com/metaclaw/metaclaw/assets"
)

// Status is the app state the tray shows.
type Status struct {
	Mode       string // effective mode
	ProxyURL   string
	TurnsToday int
	Paused     bool
	Training   bool
	Problems   []string // missing setup or errors
}

// IconState picks the icon for a status: attention beats paused beats
// training beats learning.
func IconState(s Status) string {
	switch {
	case len(s.Problems) > 0:
		return assets.StateAttention
	case s.Paused:
		return assets.StatePaused
	case s.Training:
		return assets.StateTraining
	}
	return assets.StateLearning
}

// StatusLine is the first, disabled menu item.
func StatusLine(s Status) string {
	turns := "turns"
	if s.TurnsToday == 1 {
		turns = "turn"
	}
	return fmt.Sprintf("%s · %s · %d %s today", s.Mode, hostPort(s.ProxyURL), s.TurnsToday, turns)
}

// Tooltip is the icon's hover text.
func Tooltip(s Status) string {
	switch {
	case len(s.Problems) > 0:
		return "MetaClaw needs attention: " + s.Problems[0]
	case s.Paused:
		return "MetaClaw: learning paused"
	case s.Training:
		return "MetaClaw: training"
	}
	return "MetaClaw: learning (" + s.Mode + ")"
}

func hostPort(u string) string {
	for _, p := range []string{"http://", "https://"} {
		if len(u) > len(p) && u[:len(p)] == p {
			return u[len(p):]
		}
	}
	if u == "" {
		return "proxy not running"
	}
	return u
}
