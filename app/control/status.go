package control

import (
	"context"
	"strconv"
	"time"

	"github.com/metaclaw/metaclaw/app/learner"
	"github.com/metaclaw/metaclaw/app/learner/usage"
	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
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

// Sources are what Snapshot reads a Status from: the app's own state and
// its running services.
type Sources struct {
	Config   config.Config // in force
	ProxyURL string
	Started  time.Time
	Paused   bool
	Restart  []string // saved keys that apply after a restart
	DB       *store.DB
	Learning *learner.Learning // built (Start has run)
	Proxy    *proxy.Server     // nil: no upstream figures
}

// Snapshot returns the current Status: the setup problems of the
// configuration, the policy, the skills folder and the trainer, today's
// turns, cuts and learning spend, the provider's failures, and what of it
// needs the person's attention.
func Snapshot(s Sources) Status {
	eff := s.Config.Resolve()
	st := Status{Mode: eff.Mode, ConfiguredMode: s.Config.Mode, ProxyURL: s.ProxyURL, Problems: eff.Problems,
		StartedAt: s.Started, Paused: s.Paused, Restart: s.Restart}
	l := s.Learning
	for _, p := range []string{l.Policy.Problem(), l.Folder.Problem()} {
		if p != "" {
			st.Problems = append(st.Problems, p)
		}
	}
	if t := l.Trainer; t != nil {
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
	if c, err := s.DB.CountTurns(ctx, midnight); err == nil {
		st.TurnsToday = c.TurnsSince
	}
	st.Cuts, _ = s.DB.CutsSince(ctx, midnight)
	st.Learning = LearningStatus{Budget: l.Meter.Budget(), Components: l.Meter.Health()}
	st.Learning.Today, _ = s.DB.SpendSince(ctx, usage.Day(now))
	if s.Proxy != nil {
		st.Upstream = s.Proxy.UpstreamFailures()
	}
	st.Attention = attention(st)
	return st
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
