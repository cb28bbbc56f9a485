package app

import (
	"context"
	"strconv"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/usage"
	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/store"
)

// Status is a snapshot of the app for the tray, the CLI and the web page.
type Status struct {
	Mode           string `json:"mode"` // effective mode
	ConfiguredMode string `json:"configured_mode"`
	ProxyURL       string `json:"proxy_url"`
	TurnsToday     int    `json:"turns_today"`
	Training       bool   `json:"training"` // a training step is in flight
	Paused         bool   `json:"paused"`   // the person paused learning
	// Problems are setup problems: missing keys, a mode that cannot run.
	Problems []string `json:"problems,omitempty"`
	// Attention is what went wrong since and keeps going wrong: a learner
	// component failing again and again, the provider refusing the key,
	// the daily learning budget spent. Each is a sentence.
	Attention []string               `json:"attention,omitempty"`
	Upstream  proxy.UpstreamFailures `json:"upstream"`
	Learning  LearningStatus         `json:"learning"`
	Cuts      store.Cuts             `json:"cuts_today"`
	Restart   []string               `json:"restart_pending,omitempty"` // saved keys that apply after a restart
	StartedAt time.Time              `json:"started_at"`
}

// LearningStatus is what learning spent today and its budget.
type LearningStatus struct {
	Today  []store.Spend `json:"today,omitempty"`
	Budget usage.Budget  `json:"budget"`
	// Components are the learner's components that failed lately.
	Components []usage.Health `json:"components,omitempty"`
}

// Status returns the current state.
func (a *App) Status() Status {
	cfg := a.Config()
	eff := cfg.Resolve()
	st := Status{Mode: eff.Mode, ConfiguredMode: cfg.Mode, ProxyURL: a.ProxyURL(), Problems: eff.Problems,
		StartedAt: a.started, Paused: a.Paused(), Restart: a.pendingRestart()}
	if p := a.policyProblem(); p != "" {
		st.Problems = append(st.Problems, p)
	}
	if p := a.skillFolderProblem(); p != "" {
		st.Problems = append(st.Problems, p)
	}
	if t := a.Trainer(); t != nil {
		ts := t.Status()
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
	st.Cuts, _ = a.db.CutsSince(ctx, midnight)
	st.Learning = a.learningStatus(ctx, now)
	if a.proxy != nil {
		st.Upstream = a.proxy.UpstreamFailures()
	}
	st.Attention = attention(st)
	return st
}

func (a *App) learningStatus(ctx context.Context, now time.Time) LearningStatus {
	ls := LearningStatus{Budget: a.learn.Meter.Budget(), Components: a.learn.Meter.Health()}
	ls.Today, _ = a.db.SpendSince(ctx, usage.Day(now))
	return ls
}

// attention lists what needs the person's attention in st.
func attention(st Status) []string {
	var out []string
	if p := st.Upstream.KeyProblem(); p != "" {
		out = append(out, p)
	}
	for _, h := range usage.NeedingAttention(st.Learning.Components) {
		out = append(out, h.Sentence())
	}
	if b := st.Learning.Budget; b.Reached {
		out = append(out, "learning paused for today: learning.max_calls_per_day ("+strconv.Itoa(b.Limit)+") reached; it resumes at midnight")
	}
	return out
}
