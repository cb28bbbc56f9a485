package app

import (
	"context"
	"time"
)

// Status is a snapshot of the app for the tray, the CLI and the web page.
type Status struct {
	Mode           string // effective mode
	ConfiguredMode string
	ProxyURL       string
	TurnsToday     int
	Training       bool // a training step is in flight
	Problems       []string
	StartedAt      time.Time
}

// Status returns the current state.
func (a *App) Status() Status {
	cfg := a.Config()
	eff := cfg.Resolve()
	st := Status{Mode: eff.Mode, ConfiguredMode: cfg.Mode, ProxyURL: a.ProxyURL(), Problems: eff.Problems, StartedAt: a.started}
	if p := a.policyProblem(); p != "" {
		st.Problems = append(st.Problems, p)
	}
	if p := a.skillFolderProblem(); p != "" {
		st.Problems = append(st.Problems, p)
	}
	if a.trainer != nil {
		ts := a.trainer.Status()
		st.Training = ts.Training
		if ts.LastError != "" {
			st.Problems = append(st.Problems, "last training step failed (retried automatically): "+ts.LastError)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	now := time.Now()
	midnight := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location())
	if c, err := a.db.CountTurns(ctx, midnight); err == nil {
		st.TurnsToday = c.TurnsSince
	}
	return st
}
