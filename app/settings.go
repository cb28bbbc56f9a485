package app

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/metaclaw/metaclaw/store/config"
)

// settingsEvery is how often the running app rereads the settings, so
// that a change saved by the CLI or the web page applies without a
// restart.
const settingsEvery = 2 * time.Second

// restartPrefixes are the keys that apply only when MetaClaw starts: the
// addresses it listens on, what it builds once (the policy, the skill and
// memory retrieval, the training backend).
var restartPrefixes = []string{"mode", "proxy.host", "proxy.port", "proxy.max_body_bytes", "proxy.session_idle_minutes",
	"web.", "skills.", "memory.", "rl.", "opd."}

// livePrefixes are exceptions to restartPrefixes that do apply at once.
var livePrefixes = []string{"skills.auto_evolve", "skills.evolution_every_n_turns", "rl.prm_", "rl.evolver_"}

// NeedsRestart reports whether a changed key applies only after a restart.
func NeedsRestart(key string) bool {
	has := func(ps []string) bool {
		return slices.ContainsFunc(ps, func(p string) bool {
			return key == p || strings.HasSuffix(p, ".") && strings.HasPrefix(key, p) ||
				strings.HasSuffix(p, "_") && strings.HasPrefix(key, p)
		})
	}
	return has(restartPrefixes) && !has(livePrefixes)
}

// watchSettings applies saved settings to the running app every
// settingsEvery until ctx ends.
func (a *App) watchSettings(ctx context.Context) error {
	t := time.NewTicker(settingsEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			a.ApplySettings(ctx)
		}
	}
}

// ApplySettings rereads the settings and applies the changed keys that do
// not need a restart: the proxy's upstreams and keys, the judge and the
// evolver, memory extraction's model, learning's budget. The others wait
// for a restart (pendingRestart). It runs every settingsEvery, and when
// the web page saves.
func (a *App) ApplySettings(ctx context.Context) {
	a.applyMu.Lock()
	defer a.applyMu.Unlock()
	stored, _, err := config.Load(ctx, a.db)
	if err != nil {
		a.log.Warn("reread settings", "err", err)
		return
	}
	a.overrides(&stored)
	a.mu.Lock()
	cur := a.cfg
	var applied, pending []string
	for _, k := range cur.Diff(&stored) {
		if NeedsRestart(k) {
			pending = append(pending, k)
			continue
		}
		v, _ := stored.Get(k)
		_ = cur.Set(k, v)
		applied = append(applied, k)
	}
	a.cfg = cur
	a.restart = pending
	a.mu.Unlock()
	if len(applied) == 0 {
		return
	}
	if a.proxy != nil {
		a.proxy.SetConfig(cur)
	}
	if a.learn.Learner != nil {
		a.learn.SetConfig(cur)
	}
	a.log.Info("settings applied without a restart", "keys", strings.Join(applied, ","))
}

// overrides applies the per-run options (start --mode, --port) to cfg.
func (a *App) overrides(cfg *config.Config) {
	if a.opts.Mode != "" {
		_ = cfg.Set("mode", a.opts.Mode)
	}
	if a.opts.Port != 0 {
		_ = cfg.Set("proxy.port", strconv.Itoa(a.opts.Port))
	}
}

// pendingRestart returns the saved keys that apply after a restart.
func (a *App) pendingRestart() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.restart)
}

// RequestRestart asks whoever runs the app (the CLI) to stop and start it
// again, so that every saved setting applies; Restarting is closed.
func (a *App) RequestRestart() { a.restartOnce.Do(func() { close(a.restarting) }) }

// Restarting is closed when a restart was asked for.
func (a *App) Restarting() <-chan struct{} { return a.restarting }
