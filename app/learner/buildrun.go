package learner

import (
	"context"
	"path/filepath"

	"github.com/metaclaw/metaclaw/app/learner/rollout"
	"github.com/metaclaw/metaclaw/app/learner/skillfolder"
	"github.com/metaclaw/metaclaw/store/config"
)

// SkillsDir is the skills folder of a data directory: skills.dir (with ~
// expanded), else <home>/skills, where the reference keeps its skills.
func SkillsDir(home string, cfg config.Config) string {
	if cfg.Skills.Dir == "" {
		return filepath.Join(home, "skills")
	}
	return config.ExpandHome(cfg.Skills.Dir)
}

// buildFolder keeps the skills folder in step with the library while the
// app runs, when skills.sync_dir is on.
func (l *Learning) buildFolder(d Deps) {
	if !d.Config.Skills.SyncDir {
		return
	}
	l.Folder = skillfolder.New(skillfolder.Options{DB: d.DB, Dir: SkillsDir(d.Home, d.Config),
		Logger: d.Logger.With("part", "skills-folder")})
	l.serve("skills folder", l.Folder.Serve)
}

// buildRollout runs the tasks of openclaw_env_data_dir (programmatic
// rollout) when it is set. The runner is made when the service starts:
// its agent talks to the proxy, whose address is known only once the app
// has bound it, before it serves any service.
func (l *Learning) buildRollout(d Deps) {
	if d.Config.OpenClawEnvDataDir == "" {
		return
	}
	l.serve("rollout", func(ctx context.Context) error {
		s := rollout.Setup{DB: d.DB, Home: d.Home, Paused: d.Paused, Logger: d.Logger}
		if d.ProxyURL != nil {
			s.ProxyURL = d.ProxyURL()
		}
		return rollout.Configure(d.Config, s).Serve(ctx)
	})
}
