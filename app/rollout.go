package app

import (
	"context"
	"path/filepath"
	"strings"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/rollout"
	"github.com/metaclaw/metaclaw/store/config"
	"github.com/metaclaw/metaclaw/web"
)

// startRollout runs the tasks of openclaw_env_data_dir through claw_type's
// agent: OpenClaw's agent command, or the built-in tool loop for every
// other claw_type (none included), which talks to this proxy.
func (a *App) startRollout(ctx context.Context, cfg config.Config) {
	if cfg.OpenClawEnvDataDir == "" {
		return
	}
	var agent rollout.Agent = &rollout.Loop{ProxyURL: a.ProxyURL(), APIKey: cfg.Proxy.APIKey, Model: cfg.LLM.ModelID,
		MaxSteps: cfg.OpenClawEnvMaxSteps, CallTimeout: 10 * time.Minute, CommandTimeout: 30 * time.Second,
		WorkDir: func(t rollout.Task) string { return filepath.Join(a.opts.Home, "rollout", safeName(t.ID)) }}
	name, conc := "built-in tool loop", cfg.OpenClawEnvConcurrency
	if cfg.ClawType == "openclaw" {
		agent, name = rollout.OpenClaw{Timeout: 10 * time.Minute}, "openclaw"
		if conc > 1 {
			// A second `openclaw agent --local` of the same user fails while
			// one runs: "failed to acquire gateway state ownership" (seen
			// with OpenClaw 2026.9.6, TestRolloutThroughOpenClaw).
			a.log.Warn("OpenClaw runs one local agent at a time: the rollout runs one episode at a time", "openclaw_env_concurrency", conc)
			conc = 1
		}
	}
	r := rollout.New(rollout.Options{DB: a.db, Dir: config.ExpandHome(cfg.OpenClawEnvDataDir), Split: cfg.OpenClawEnvSplit,
		Concurrency: conc, Rounds: cfg.OpenClawEnvRounds, Agent: agent, AgentName: name, Paused: a.Paused,
		Logger: a.log.With("part", "rollout")})
	a.log.Info("programmatic rollout on", "dir", cfg.OpenClawEnvDataDir, "agent", cfg.ClawType)
	a.goService(ctx, "rollout", r.Serve)
}

// rolloutStatus is the rollout's last saved progress for the web page;
// nil when it never ran.
func (a *App) rolloutStatus(ctx context.Context) *web.RolloutStatus {
	p, ok, err := rollout.ReadProgress(ctx, a.db)
	if !ok || err != nil {
		return nil
	}
	return &web.RolloutStatus{Dir: p.Dir, Agent: p.Agent, Tasks: p.Tasks, Rounds: p.Rounds, Done: p.Done, Running: p.Running,
		Failed: p.Failed, LastError: p.LastError, Problems: p.Problems, UpdatedAt: p.UpdatedAt}
}

// safeName keeps a task id usable as a directory name.
func safeName(id string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, strings.TrimLeft(id, "."))
}
