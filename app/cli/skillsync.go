package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/metaclaw/metaclaw/app/learner"
	"github.com/metaclaw/metaclaw/app/learner/skillfolder"
	"github.com/metaclaw/metaclaw/store"
)

// skillsSync shares the skills folder through its git repository.
func skillsSync(ctx context.Context, env *Env, db *store.DB, args []string) error {
	if len(args) != 0 {
		return usageError("usage: metaclaw skills sync (the skills folder must be a git repository)")
	}
	_, dir, cfg, err := loadConfig()
	if err != nil {
		return err
	}
	f := skillfolder.New(skillfolder.Options{DB: db, Dir: learner.SkillsDir(dir, cfg)})
	rep, err := f.GitSync(ctx)
	if errors.Is(err, skillfolder.ErrNotRepository) {
		return &exitError{code: 1, msg: err.Error()}
	}
	if err != nil {
		return fmt.Errorf("skills sync: %w", err)
	}
	printGitReport(env, f.Dir(), rep)
	return nil
}

func printGitReport(env *Env, dir string, rep skillfolder.GitReport) {
	w := env.Stdout
	var done []string
	if rep.Committed {
		done = append(done, "committed the library's changes")
	}
	switch {
	case rep.Remote == "":
		done = append(done, "no remote to share with (git -C "+dir+" remote add origin URL)")
	case rep.Pulled:
		done = append(done, "merged "+rep.Remote+"/"+rep.Branch)
	}
	if rep.Pushed {
		done = append(done, "pushed to "+rep.Remote+"/"+rep.Branch)
	}
	if len(done) == 0 {
		done = append(done, "nothing to do")
	}
	fmt.Fprintf(w, "skills folder %s: %s\n", dir, strings.Join(done, "; "))
	if len(rep.After.Imported) > 0 {
		fmt.Fprintf(w, "  from the remote: %s\n", strings.Join(rep.After.Imported, ", "))
	}
	if n := len(rep.After.Disabled); n > 0 {
		fmt.Fprintf(w, "  disabled (deleted on the remote): %s\n", strings.Join(rep.After.Disabled, ", "))
	}
	for _, c := range rep.Conflicts {
		line := fmt.Sprintf("  conflict in %s: %s — kept %s", c.Path, c.Why, c.Kept)
		if c.History > 0 {
			line += fmt.Sprintf("; the other side is version %d of %s (metaclaw skills revert %s %d takes it)", c.History, c.Skill, c.Skill, c.History)
		}
		fmt.Fprintln(w, line)
	}
	broken := rep.Before.Broken
	if rep.Remote != "" {
		broken = rep.After.Broken
	}
	for _, b := range broken {
		fmt.Fprintf(env.Stderr, "skipped %s: %s\n", b.Path, b.Err)
	}
}
