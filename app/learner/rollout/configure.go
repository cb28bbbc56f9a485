package rollout

import (
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// Setup is what Configure needs besides the configuration: where the
// proxy listens (the built-in loop's agent talks to it) and the app's
// store, data directory, pause switch and log.
type Setup struct {
	DB       *store.DB
	Home     string // data directory: each task's working folder is under rollout/
	ProxyURL string
	Paused   func() bool
	Logger   *slog.Logger // nil discards
}

// Configure returns the Runner of the tasks of openclaw_env_data_dir
// through claw_type's agent: OpenClaw's agent command, or the built-in
// tool loop for every other claw_type (none included), which talks to the
// proxy at s.ProxyURL. It returns nil when openclaw_env_data_dir is unset.
func Configure(cfg config.Config, s Setup) *Runner {
	if cfg.OpenClawEnvDataDir == "" {
		return nil
	}
	if s.Logger == nil {
		s.Logger = slog.New(slog.DiscardHandler)
	}
	var agent Agent = &Loop{ProxyURL: s.ProxyURL, APIKey: cfg.Proxy.APIKey, Model: cfg.LLM.ModelID,
		MaxSteps: cfg.OpenClawEnvMaxSteps, CallTimeout: 10 * time.Minute, CommandTimeout: 30 * time.Second,
		WorkDir: func(t Task) string { return filepath.Join(s.Home, "rollout", safeName(t.ID)) }}
	name, conc := "built-in tool loop", cfg.OpenClawEnvConcurrency
	if cfg.ClawType == "openclaw" {
		agent, name = OpenClaw{Timeout: 10 * time.Minute}, "openclaw"
		if conc > 1 {
			// A second `openclaw agent --local` of the same user fails while
			// one runs: "failed to acquire gateway state ownership" (seen
			// with OpenClaw 2026.9.6, TestRolloutThroughOpenClaw).
			s.Logger.Warn("OpenClaw runs one local agent at a time: the rollout runs one episode at a time", "openclaw_env_concurrency", conc)
			conc = 1
		}
	}
	s.Logger.Info("programmatic rollout on", "dir", cfg.OpenClawEnvDataDir, "agent", cfg.ClawType)
	return New(Options{DB: s.DB, Dir: config.ExpandHome(cfg.OpenClawEnvDataDir), Split: cfg.OpenClawEnvSplit,
		Concurrency: conc, Rounds: cfg.OpenClawEnvRounds, Agent: agent, AgentName: name, Paused: s.Paused,
		Logger: s.Logger.With("part", "rollout")})
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
