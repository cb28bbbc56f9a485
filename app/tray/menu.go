package tray

import (
	"fmt"
	"strings"
	"time"

	"github.com/metaclaw/metaclaw/assets"
)

// Status is the app state the tray shows.
type Status struct {
	Mode       string // effective mode
	ProxyURL   string
	TurnsToday int
	Paused     bool // learning paused by the person
	Training   bool
	Autostart  bool     // MetaClaw starts at login
	Problems   []string // missing setup or errors
	Window     Window   // the training window (madmax)
}

// Window is the training-window state the tray shows.
type Window struct {
	Enabled bool      // training windows in use; false hides the line
	Open    bool      // a window is open
	Reason  string    // sleep, idle or meeting while open
	Until   time.Time // its end, in the zone to show; zero when unknown
}

// View is everything the icon and the menu show for a status. ViewOf
// computes it without touching the desktop, so it is table-tested.
type View struct {
	Icon       string // an assets icon state
	Tooltip    string
	StatusLine string // first, disabled item
	WindowLine string // second, disabled item; "" hides it
	Problem    string // second item; "" hides it
	ProblemTip string
	Pause      Check
	Autostart  Check
}

// Check is a check item: its label, hover text and tick.
type Check struct {
	Label, Tip string
	Checked    bool
}

// ViewOf returns what the tray shows for a status.
func ViewOf(s Status) View {
	v := View{
		Icon:       IconState(s),
		Tooltip:    Tooltip(s),
		StatusLine: StatusLine(s),
		WindowLine: WindowLine(s),
		Pause: Check{Label: "Pause learning",
			Tip: "Stop judging, evolving skills, extracting memories and training; the proxy keeps serving"},
		Autostart: Check{Label: "Start at login", Tip: "Start MetaClaw when you log in", Checked: s.Autostart},
	}
	if s.Paused {
		v.Pause = Check{Label: "Resume learning", Tip: "Learning is paused and the proxy keeps serving; click to resume", Checked: true}
	}
	if len(s.Problems) > 0 {
		v.Problem = "Needs attention: " + shortProblem(s.Problems[0])
		if n := len(s.Problems) - 1; n > 0 {
			v.Problem += fmt.Sprintf(" (+%d more)", n)
		}
		v.ProblemTip = strings.Join(s.Problems, "\n")
	}
	return v
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

// WindowLine says whether training may run now: "Training window open:
// sleep until 07:00", "Waiting for a training window", or "" when
// training windows are not used.
func WindowLine(s Status) string {
	w := s.Window
	switch {
	case !w.Enabled:
		return ""
	case s.Paused:
		return "No training window while learning is paused"
	case !w.Open:
		return "Waiting for a training window"
	}
	reason := w.Reason
	if reason == "idle" {
		reason = "keyboard idle"
	}
	if w.Until.IsZero() {
		return "Training window open: " + reason
	}
	return "Training window open: " + reason + " until " + w.Until.Format("15:04")
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

// maxProblem bounds the problem item's length, in characters.
const maxProblem = 48

// shortProblem keeps a problem's headline: the text before its first
// explanation (": ", "; " or " ("), at most maxProblem characters.
func shortProblem(p string) string {
	for _, sep := range []string{": ", "; ", " ("} {
		if i := strings.Index(p, sep); i > 0 {
			p = p[:i]
		}
	}
	if r := []rune(p); len(r) > maxProblem {
		p = string(r[:maxProblem-1]) + "…"
	}
	return p
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
