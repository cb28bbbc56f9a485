package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/metaclaw/metaclaw/app/control"
	"github.com/metaclaw/metaclaw/app/learner"
	spend "github.com/metaclaw/metaclaw/app/learner/usage"
	"github.com/metaclaw/metaclaw/proxy"
)

// proxyFailures is the provider's failures as status shows them.
type proxyFailures = proxy.UpstreamFailures

// fromApp copies the running app's state into the report.
func (r *statusReport) fromApp(st control.Status) {
	r.ConfiguredMode, r.Problems, r.Attention, r.RestartPending = st.ConfiguredMode, st.Problems, st.Attention, st.Restart
	up, ls, cuts := st.Upstream, st.Learning, st.Cuts
	r.Upstream, r.Learning, r.CutsToday = &up, &ls, &cuts
}

// fromDatabase reads what status shows whether or not MetaClaw runs: the
// pause (the flag itself, not a copy that may be late), and when the app is
// not answering, the setup problems of the stored configuration and what
// learning spent today.
func (r *statusReport) fromDatabase() {
	db, _, cfg, err := loadConfig()
	if err != nil {
		return
	}
	defer db.Close()
	ctx := context.Background()
	if v, err := db.Meta(ctx, learner.MetaLearningPaused); err == nil {
		r.Paused = v == "1"
		if r.Scheduler != nil {
			r.Scheduler.Paused = r.Paused
		}
	}
	if r.Responding {
		return
	}
	eff := cfg.Resolve()
	r.Mode, r.ConfiguredMode, r.Problems = eff.Mode, cfg.Mode, eff.Problems
	ls := control.LearningStatus{Budget: spend.Budget{Limit: cfg.Learning.MaxCallsPerDay}}
	ls.Today, _ = db.SpendSince(ctx, spend.Day(time.Now()))
	for _, s := range ls.Today {
		if s.Component != spend.Trainer {
			ls.Budget.Used += s.Calls
		}
	}
	ls.Components, _ = spend.ReadHealth(ctx, db)
	r.Learning = &ls
	for _, h := range spend.NeedingAttention(ls.Components) {
		r.Attention = append(r.Attention, h.Sentence())
	}
}

// modeLine is "rl" or "skills_only (configured: rl — see problems)".
func modeLine(r statusReport) string {
	if r.ConfiguredMode == "" || r.ConfiguredMode == r.Mode {
		return r.Mode
	}
	return fmt.Sprintf("%s (configured: %s; see the problems below)", r.Mode, r.ConfiguredMode)
}

// printRunning prints what only a running MetaClaw knows: the provider's
// failures, the turns cut, the settings waiting for a restart.
func printRunning(w io.Writer, r statusReport) {
	if f := r.Upstream; f != nil {
		fmt.Fprintf(w, "  upstream: %s\n", upstreamLine(*f))
	}
	if c := r.CutsToday; c != nil && c.Turns > 0 {
		fmt.Fprintf(w, "  cut:      %d turns of %d sessions today had their oldest turns cut to fit the context (latest: %d → %d messages, ~%d → ~%d tokens, turn %d)\n",
			c.Turns, c.Sessions, c.LastMessages[0], c.LastMessages[1], c.LastTokens[0], c.LastTokens[1], c.LastTurn)
	}
	if len(r.RestartPending) > 0 {
		fmt.Fprintf(w, "  restart:  saved settings wait for a restart: %s (`metaclaw stop && metaclaw start`, or Restart on the web page)\n",
			strings.Join(r.RestartPending, ", "))
	}
}

// printState prints the pause, learning's spend and what needs attention
// or setting up, whether or not MetaClaw runs.
func printState(w io.Writer, r statusReport) {
	if r.Paused {
		fmt.Fprintln(w, "  learning: paused (`metaclaw resume` resumes it); the proxy keeps serving")
	}
	if ls := r.Learning; ls != nil {
		fmt.Fprintf(w, "  spend:    %s\n", spendLine(*ls))
	}
	for _, p := range r.Problems {
		fmt.Fprintf(w, "  setup:    %s\n", p)
	}
	for _, a := range r.Attention {
		fmt.Fprintf(w, "  ATTENTION: %s\n", a)
	}
}

// upstreamLine is "no failures in 120 turns" or "4 failures in 50 turns:
// key_rejected 3, timeout 1 — last 12:03:04 timeout: ...".
func upstreamLine(f proxyFailures) string {
	if f.Total == 0 {
		return fmt.Sprintf("no failures in %d turns this run", f.Turns)
	}
	var parts []string
	for _, k := range proxy.FailureKinds {
		if n := f.Counts[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, n))
		}
	}
	return fmt.Sprintf("%d failed of %d turns this run (%s) — last at %s, %s: %s", f.Total, f.Turns, strings.Join(parts, ", "),
		f.LastAt.Local().Format(time.TimeOnly), f.LastKind, f.LastMessage)
}

// spendLine is "12 calls today (judge 8, evolver 2, extraction 2), 9.1k
// tokens; budget 12/1000 (learning.max_calls_per_day)".
func spendLine(ls control.LearningStatus) string {
	calls, tokens := 0, 0
	var parts []string
	for _, s := range ls.Today {
		calls += s.Calls
		tokens += s.PromptTokens + s.CompletionTokens
		part := fmt.Sprintf("%s %d", s.Component, s.Calls)
		if s.Failures > 0 {
			part += fmt.Sprintf(" (%d failed)", s.Failures)
		}
		parts = append(parts, part)
	}
	slices.Sort(parts)
	line := fmt.Sprintf("%d learner calls today", calls)
	if len(parts) > 0 {
		line += " (" + strings.Join(parts, ", ") + fmt.Sprintf("), %d tokens", tokens)
	}
	if b := ls.Budget; b.Limit > 0 {
		line += fmt.Sprintf("; budget %d/%d (learning.max_calls_per_day)", b.Used, b.Limit)
	} else {
		line += "; no daily budget (learning.max_calls_per_day 0)"
	}
	return line
}
