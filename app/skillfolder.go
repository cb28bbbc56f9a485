package app

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/metaclaw/metaclaw/app/learner/skillfolder"
	"github.com/metaclaw/metaclaw/store/config"
	"github.com/metaclaw/metaclaw/web"
)

// SkillsDir is the skills folder of a data directory: skills.dir (with ~
// expanded), else <home>/skills, where the reference keeps its skills.
func SkillsDir(home string, cfg config.Config) string {
	if cfg.Skills.Dir == "" {
		return filepath.Join(home, "skills")
	}
	return config.ExpandHome(cfg.Skills.Dir)
}

// startSkillFolder keeps the skills folder in step with the library while
// the app runs (skills.sync_dir).
func (a *App) startSkillFolder(ctx context.Context, cfg config.Config) {
	if !cfg.Skills.SyncDir {
		return
	}
	a.folder = skillfolder.New(skillfolder.Options{DB: a.db, Dir: SkillsDir(a.opts.Home, cfg),
		Logger: a.log.With("part", "skills-folder")})
	a.goService(ctx, "skills folder", a.folder.Serve)
}

// skillsFolderStatus is the skills folder's last saved pass for the web
// page; nil when the folder is not kept or was never read.
func (a *App) skillsFolderStatus(ctx context.Context) *web.SkillsFolderStatus {
	if a.folder == nil {
		return nil
	}
	sum, ok, err := skillfolder.ReadSummary(ctx, a.db)
	if !ok || err != nil {
		return nil
	}
	st := &web.SkillsFolderStatus{Dir: sum.Dir, Files: sum.Files}
	for _, b := range sum.Broken {
		st.Broken = append(st.Broken, web.FileNote{Path: b.Path, Text: b.Err})
	}
	for _, n := range sum.Notices {
		st.Filed = append(st.Filed, web.FileNote{Path: n.Path, Text: n.Note})
	}
	return st
}

// skillFolderProblem says which skill files the last pass skipped.
func (a *App) skillFolderProblem() string {
	if a.folder == nil {
		return ""
	}
	broken := a.folder.Last().Broken
	switch len(broken) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("skills folder: %s skipped: %s", broken[0].Path, broken[0].Err)
	}
	return fmt.Sprintf("skills folder: %d files skipped (%s: %s, …); see metaclaw status", len(broken), broken[0].Path, broken[0].Err)
}
