package skillfolder

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// GitReport says what a git sync did.
type GitReport struct {
	Remote    string     // the remote synced with ("" when the repository has none)
	Branch    string     // the branch
	Committed bool       // local changes were committed
	Pulled    bool       // the remote's changes were merged
	Pushed    bool       // the result was pushed
	Conflicts []Conflict // files both sides changed
	Before    Report     // the pass that wrote the library into the folder
	After     Report     // the pass that read the merged folder into the library
}

// Conflict is a skill file both sides changed: the one with the higher
// version number is current; the other is kept in the skill's history.
type Conflict struct {
	Path    string
	Skill   string // "" when neither side parses as a skill
	Kept    string // "yours" or "theirs"
	Why     string // how the current one was chosen
	History int    // the library version holding the other side (0: none)
}

// git runs git in the folder; the error carries git's own message.
func (f *Folder) git(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", f.dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_MERGE_AUTOEDIT=no", "LC_ALL=C")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = strings.TrimSpace(out.String())
		}
		return out.String(), fmt.Errorf("git %s: %s (%w)", args[0], msg, err)
	}
	return out.String(), nil
}

// ErrNotRepository says the folder is not the top of a git repository.
var ErrNotRepository = errors.New("the skills folder is not a git repository")

// GitSync shares the folder through its git repository: it writes the
// library into the folder, commits, merges the remote's branch (a file both
// sides changed keeps the higher version as current and the other in the
// skill's history), reads the result into the library, and pushes.
func (f *Folder) GitSync(ctx context.Context) (GitReport, error) {
	var rep GitReport
	if err := f.checkRepo(ctx); err != nil {
		return rep, err
	}
	var err error
	if rep.Before, err = f.Sync(ctx); err != nil {
		return rep, err
	}
	if rep.Committed, err = f.commit(ctx, "metaclaw: skill library changes"); err != nil {
		return rep, err
	}
	if rep.Remote, rep.Branch, err = f.upstream(ctx); err != nil || rep.Remote == "" {
		return rep, err
	}
	if rep.Pulled, err = f.pull(ctx, &rep); err != nil {
		return rep, err
	}
	if rep.After, err = f.syncSettled(ctx); err != nil {
		return rep, err
	}
	if _, err := f.commit(ctx, "metaclaw: skill library after merge"); err != nil {
		return rep, err
	}
	if _, err := f.git(ctx, "push", "--set-upstream", rep.Remote, "HEAD:refs/heads/"+rep.Branch); err != nil {
		return rep, err
	}
	rep.Pushed = true
	return rep, nil
}

func (f *Folder) checkRepo(ctx context.Context) error {
	top, err := f.git(ctx, "rev-parse", "--show-toplevel")
	if err != nil {
		return fmt.Errorf("%w: %s (make it one: git -C %s init, then git -C %s remote add origin URL)", ErrNotRepository, f.dir, f.dir, f.dir)
	}
	a, _ := filepath.EvalSymlinks(strings.TrimSpace(top))
	b, _ := filepath.EvalSymlinks(f.dir)
	if a != b {
		return fmt.Errorf("%w: %s is inside the repository %s; make the skills folder the repository's top", ErrNotRepository, f.dir, a)
	}
	return nil
}

// commit commits every change of the folder; it reports whether there
// was any. A repository without an author gets MetaClaw as the author.
func (f *Folder) commit(ctx context.Context, msg string) (bool, error) {
	if _, err := f.git(ctx, "add", "-A"); err != nil {
		return false, err
	}
	if out, err := f.git(ctx, "status", "--porcelain"); err != nil || strings.TrimSpace(out) == "" {
		return false, err
	}
	_, err := f.git(ctx, append(f.author(ctx), "commit", "-q", "-m", msg)...)
	return err == nil, err
}

func (f *Folder) author(ctx context.Context) []string {
	if out, _ := f.git(ctx, "config", "user.email"); strings.TrimSpace(out) != "" {
		return nil
	}
	return []string{"-c", "user.name=MetaClaw", "-c", "user.email=metaclaw@localhost"}
}

// upstream returns the remote and branch to sync with: the branch's
// configured remote, else the only (or "origin") remote; "" when none.
func (f *Folder) upstream(ctx context.Context) (remote, branch string, err error) {
	out, err := f.git(ctx, "symbolic-ref", "--short", "HEAD")
	if err != nil {
		return "", "", err
	}
	branch = strings.TrimSpace(out)
	if out, _ := f.git(ctx, "config", "branch."+branch+".remote"); strings.TrimSpace(out) != "" {
		return strings.TrimSpace(out), branch, nil
	}
	out, err = f.git(ctx, "remote")
	if err != nil {
		return "", "", err
	}
	remotes := strings.Fields(out)
	switch {
	case len(remotes) == 0:
		return "", branch, nil
	case len(remotes) == 1:
		return remotes[0], branch, nil
	}
	for _, r := range remotes {
		if r == "origin" {
			return r, branch, nil
		}
	}
	return "", "", fmt.Errorf("the skills folder's repository has several remotes and branch %s follows none: git -C %s branch --set-upstream-to REMOTE/%s", branch, f.dir, branch)
}

// pull fetches the remote branch and merges it, resolving conflicts.
func (f *Folder) pull(ctx context.Context, rep *GitReport) (bool, error) {
	if _, err := f.git(ctx, "fetch", "-q", rep.Remote); err != nil {
		return false, err
	}
	ref := rep.Remote + "/" + rep.Branch
	if _, err := f.git(ctx, "rev-parse", "--verify", "-q", "refs/remotes/"+ref); err != nil {
		return false, nil // the remote has no such branch yet: the push makes it
	}
	if _, err := f.git(ctx, "rev-parse", "--verify", "-q", "HEAD"); err != nil {
		_, err := f.git(ctx, "reset", "-q", "--hard", ref) // an empty repository takes the remote's branch
		return err == nil, err
	}
	_, mergeErr := f.git(ctx, append(f.author(ctx), "merge", "-q", "--no-edit", "--allow-unrelated-histories", ref)...)
	if mergeErr == nil {
		return true, nil
	}
	out, err := f.git(ctx, "diff", "--name-only", "--diff-filter=U")
	if err != nil || strings.TrimSpace(out) == "" {
		f.git(ctx, "merge", "--abort")
		return false, mergeErr
	}
	for _, p := range strings.Fields(out) {
		c, err := f.resolve(ctx, p)
		if err != nil {
			f.git(ctx, "merge", "--abort")
			return false, err
		}
		rep.Conflicts = append(rep.Conflicts, c)
	}
	_, err = f.git(ctx, append(f.author(ctx), "commit", "-q", "--no-edit")...)
	return err == nil, err
}

// resolve settles one conflicted file: an edit beats a deletion; between
// two edits the higher version number wins and a tie keeps yours; the
// other side goes into the skill's history.
func (f *Folder) resolve(ctx context.Context, rel string) (Conflict, error) {
	c := Conflict{Path: rel}
	ours, oerr := f.git(ctx, "show", ":2:"+rel)
	theirs, terr := f.git(ctx, "show", ":3:"+rel)
	keep, other := ours, theirs
	c.Kept, c.Why = "yours", "both changed it; same version number, yours kept"
	switch {
	case oerr != nil && terr != nil:
		return c, fmt.Errorf("resolve %s: %w", rel, oerr)
	case oerr != nil:
		keep, other, c.Kept, c.Why = theirs, "", "theirs", "you deleted it, they changed it"
	case terr != nil:
		other, c.Why = "", "they deleted it, you changed it"
	default:
		vo, vt := fileVersion([]byte(ours)), fileVersion([]byte(theirs))
		if vt > vo {
			keep, other, c.Kept = theirs, ours, "theirs"
		}
		if vt != vo {
			c.Why = fmt.Sprintf("both changed it; version %d beats version %d", max(vo, vt), min(vo, vt))
		}
	}
	if err := os.WriteFile(filepath.Join(f.dir, filepath.FromSlash(rel)), []byte(keep), 0o644); err != nil {
		return c, err
	}
	if _, err := f.git(ctx, "add", "--", rel); err != nil {
		return c, err
	}
	return c, f.keepOther(ctx, &c, keep, other)
}

// keepOther stores the losing side as a version of the skill, then the
// winning side on top, so both are in the library's history.
func (f *Folder) keepOther(ctx context.Context, c *Conflict, keep, other string) error {
	win, _, err := parse(c.Path, []byte(keep))
	if err != nil {
		return nil // not a skill file, or a broken one: the folder pass reports it
	}
	c.Skill = win.Name
	if lose, _, err := parse(c.Path, []byte(other)); err == nil && other != "" && lose.Name == win.Name {
		lose.Source, lose.Note = "git", "git merge conflict: the side not kept ("+otherSide(c.Kept)+")"
		s, _, err := f.db.PutSkill(ctx, lose)
		if err != nil {
			return err
		}
		c.History = s.Version
	}
	win.Source, win.Note = "git", "git merge conflict: "+c.Why
	_, _, err = f.db.PutSkill(ctx, win)
	return err
}

func otherSide(kept string) string {
	if kept == "yours" {
		return "theirs"
	}
	return "yours"
}

// syncSettled runs a pass that reads files just written by git at once:
// git writes them whole, so the settle wait is not needed.
func (f *Folder) syncSettled(ctx context.Context) (Report, error) {
	f.mu.Lock()
	settle := f.settle
	f.settle = 0
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.settle = settle
		f.mu.Unlock()
	}()
	return f.Sync(ctx)
}
