// Package skillfolder keeps a folder of SKILL.md files (skills.dir,
// ~/.metaclaw/skills by default) a live view of the skill library in the
// database: a file added or edited there becomes a skill or a new version,
// a deleted file disables its skill, and every change made in the library
// (evolution, the CLI, the web page) is written back as a file. The
// database stays the record of versions and provenance. It polls (every
// two seconds by default): a folder of a few hundred small files costs a
// few hundred stats a pass, it works the same on every OS and on network
// and synced folders, where change notification is unreliable, and it
// needs no new dependency. It also merges the folder with a git remote
// (git.go). learner.Build runs it while the app runs (skills.sync_dir) and
// app/cli syncs with it; it reaches the library through the store API and
// skills.Parse/Format alone.
package skillfolder

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/metaclaw/metaclaw/store"
)

// Defaults of Options.
const (
	DefaultInterval = 2 * time.Second
	DefaultSettle   = time.Second
)

// Options configures a Folder.
type Options struct {
	DB  *store.DB
	Dir string // the folder; created when missing
	// Interval is the time between two passes of Serve.
	Interval time.Duration
	// Settle is how long a file must stay unchanged (or have been last
	// written) before it is read: an editor's save in progress is never
	// read half.
	Settle time.Duration
	Logger *slog.Logger
	Now    func() time.Time
}

// Folder syncs one folder with the library.
type Folder struct {
	db       *store.DB
	dir      string
	interval time.Duration
	settle   time.Duration
	log      *slog.Logger
	now      func() time.Time

	mu       sync.Mutex          // guards the fields below; one pass at a time
	stats    map[string]fileStat // rel path → size and mtime at the last pass
	sums     map[string]cached   // rel path → content hash and parse
	reported map[string]string   // rel path → content hash whose error was logged
	stamp    string              // library stamp at the last pass
	full     time.Time           // when the last full pass ran
	last     Report
}

// New returns a Folder; Serve or Sync do the work.
func New(opts Options) *Folder {
	f := &Folder{db: opts.DB, dir: opts.Dir, interval: opts.Interval, settle: opts.Settle, log: opts.Logger, now: opts.Now,
		stats: map[string]fileStat{}, sums: map[string]cached{}, reported: map[string]string{}}
	if f.interval <= 0 {
		f.interval = DefaultInterval
	}
	if f.settle <= 0 {
		f.settle = DefaultSettle
	}
	if f.log == nil {
		f.log = slog.New(slog.DiscardHandler)
	}
	if f.now == nil {
		f.now = time.Now
	}
	if abs, err := filepath.Abs(f.dir); err == nil {
		f.dir = abs
	}
	return f
}

// Dir returns the folder's absolute path.
func (f *Folder) Dir() string { return f.dir }

// Report says what a pass did.
type Report struct {
	Imported []string // skills added or given a new version from their file
	Written  []string // files written from the library
	Removed  []string // files removed: their skill was retired, disabled or deleted
	Disabled []string // skills disabled because their file was deleted
	Broken   []Broken // files that could not be used, skipped whole
	Notices  []Notice // files used with a change: an unknown category filed under general
	Waiting  []string // files still being written, read on a later pass
}

// Broken is a skill file that could not be used, and why.
type Broken struct {
	Path string `json:"path"`
	Err  string `json:"error"`
}

// Notice is a skill file that was used with a change worth saying (its
// unknown category filed under general).
type Notice struct {
	Path string `json:"path"`
	Note string `json:"note"`
}

// Changed reports whether the pass changed the library or the folder.
func (r Report) Changed() bool {
	return len(r.Imported)+len(r.Written)+len(r.Removed)+len(r.Disabled) > 0
}

// Serve runs a pass at once and then every Interval until ctx ends. A
// failing pass is logged and retried; Serve returns only when ctx ends.
func (f *Folder) Serve(ctx context.Context) error {
	tick := time.NewTicker(f.interval)
	defer tick.Stop()
	var failing string
	for {
		if _, err := f.Sync(ctx); err != nil && ctx.Err() == nil {
			if err.Error() != failing {
				f.log.Warn("skills folder sync failed", "dir", f.dir, "err", err)
			}
			failing = err.Error()
		} else {
			failing = ""
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// Last returns the report of the last pass that ran.
func (f *Folder) Last() Report {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last
}

// Problem says which skill files the last pass skipped, "" when none did
// or there is no folder (nil: skills.sync_dir is off). Status lists it
// among the setup problems.
func (f *Folder) Problem() string {
	if f == nil {
		return ""
	}
	broken := f.Last().Broken
	switch len(broken) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("skills folder: %s skipped: %s", broken[0].Path, broken[0].Err)
	}
	return fmt.Sprintf("skills folder: %d files skipped (%s: %s, …); see metaclaw status", len(broken), broken[0].Path, broken[0].Err)
}

// Sync runs one pass: files into the library, then the library into files.
func (f *Folder) Sync(ctx context.Context) (Report, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := os.MkdirAll(f.dir, 0o755); err != nil {
		return Report{}, fmt.Errorf("skills folder: %w", err)
	}
	files, err := f.scan(f.now())
	if err != nil {
		return Report{}, fmt.Errorf("read skills folder: %w", err)
	}
	stamp, err := f.libraryStamp(ctx)
	if err != nil {
		return Report{}, err
	}
	if f.quiet(files, stamp) {
		return Report{Broken: f.last.Broken, Notices: f.last.Notices}, nil
	}
	st, err := loadState(ctx, f.db, f.dir)
	if err != nil {
		return Report{}, err
	}
	f.remember(files)
	p := &pass{f: f, st: st, byName: map[string]*file{}, busy: map[string]bool{}, present: map[string]bool{}}
	if err := p.run(ctx, files); err != nil {
		f.stamp = "" // run again next time
		return p.rep, err
	}
	if f.stamp, err = f.libraryStamp(ctx); err != nil {
		return p.rep, err
	}
	f.full = f.now()
	f.last = p.rep
	p.st.Broken, p.st.Notices = p.rep.Broken, p.rep.Notices
	return p.rep, saveState(ctx, f.db, p.st)
}

// libraryStamp changes when the library does: the database's stamp (for
// other processes, such as the CLI) and this handle's epoch (for changes
// within the same millisecond).
func (f *Folder) libraryStamp(ctx context.Context) (string, error) {
	s, err := f.db.SkillsStamp(ctx)
	return s.String() + "/" + strconv.FormatInt(f.db.SkillsEpoch(), 10), err
}

// fullEvery bounds the time between two full passes, whatever the stamps
// say.
const fullEvery = 30 * time.Second

// quiet reports whether nothing changed since the last pass: the same
// files with the same sizes and times, all settled, and the same library.
func (f *Folder) quiet(files []*file, stamp string) bool {
	if stamp != f.stamp || f.now().Sub(f.full) >= fullEvery || len(files) != len(f.stats) || len(f.last.Waiting) > 0 {
		return false
	}
	for _, fl := range files {
		if prev, ok := f.stats[fl.rel]; !ok || prev != fl.stat || !fl.settled {
			return false
		}
	}
	return true
}

// remember keeps the files' stats for the next pass's settle check (a
// file this pass writes records its new stat itself).
func (f *Folder) remember(files []*file) {
	seen := map[string]bool{}
	for _, fl := range files {
		seen[fl.rel] = true
		f.stats[fl.rel] = fl.stat
	}
	for rel := range f.stats {
		if !seen[rel] {
			delete(f.stats, rel)
			delete(f.sums, rel)
		}
	}
}

// pass is the work of one Sync.
type pass struct {
	f       *Folder
	st      state
	rep     Report
	byName  map[string]*file // valid settled files by skill name
	busy    map[string]bool  // skills whose file is broken or being written: left alone
	present map[string]bool  // rel paths of every candidate file
	lib     map[string]store.Skill
}

func (p *pass) run(ctx context.Context, files []*file) error {
	p.sort(files)
	all, err := p.f.db.Skills(ctx, true)
	if err != nil {
		return err
	}
	p.lib = map[string]store.Skill{}
	for _, s := range all {
		p.lib[s.Name] = s
	}
	for _, name := range sortedKeys(p.byName) {
		if err := p.syncFile(ctx, name, p.byName[name]); err != nil {
			return err
		}
	}
	if err := p.deleted(ctx); err != nil {
		return err
	}
	return p.added()
}

// sort reads the settled files and sorts them into valid, broken and
// waiting ones.
func (p *pass) sort(files []*file) {
	pathName := map[string]string{}
	for name, e := range p.st.Files {
		pathName[e.Path] = name
	}
	for _, fl := range files {
		p.present[fl.rel] = true
		if fl.settled {
			p.f.read(fl)
		}
		switch {
		case !fl.settled:
			p.rep.Waiting = append(p.rep.Waiting, fl.rel)
		case fl.err == nil && p.byName[fl.in.Name] != nil:
			fl.err = fmt.Errorf("skill %q is also in %s", fl.in.Name, p.byName[fl.in.Name].rel)
		case fl.err == nil:
			p.byName[fl.in.Name] = fl
			if fl.notice != "" {
				p.noticed(fl)
			}
			continue
		}
		if n, ok := pathName[fl.rel]; ok {
			p.busy[n] = true
		}
		if fl.err != nil {
			p.broken(fl)
		}
	}
}

// broken reports a file that cannot be used: in the report every pass, in
// the log once per content.
func (p *pass) broken(fl *file) {
	p.rep.Broken = append(p.rep.Broken, Broken{Path: fl.rel, Err: fl.err.Error()})
	if p.f.reported[fl.rel] != fl.sum {
		p.f.reported[fl.rel] = fl.sum
		p.f.log.Warn("skill file skipped", "file", filepath.Join(p.f.dir, filepath.FromSlash(fl.rel)), "err", fl.err)
	}
}

// noticed reports a file used with a change: in the report every pass, in
// the log once per content.
func (p *pass) noticed(fl *file) {
	p.rep.Notices = append(p.rep.Notices, Notice{Path: fl.rel, Note: fl.notice})
	if key := "notice:" + fl.rel; p.f.reported[key] != fl.sum {
		p.f.reported[key] = fl.sum
		p.f.log.Info("skill file filed under general", "file", filepath.Join(p.f.dir, filepath.FromSlash(fl.rel)), "note", fl.notice)
	}
}

// syncFile brings one valid file and its skill together: a file changed
// since the last pass (or new) is imported; an unchanged one follows the
// library.
func (p *pass) syncFile(ctx context.Context, name string, fl *file) error {
	e, known := p.st.Files[name]
	if !known || e.Sum != fl.sum || e.Path != fl.rel {
		return p.importFile(ctx, name, fl)
	}
	s, ok := p.lib[name]
	switch {
	case !ok || s.Retired || !s.Enabled:
		if err := p.f.removeFile(fl.rel, fl.stat); err != nil {
			return p.skipEdited(err)
		}
		delete(p.st.Files, name)
		p.rep.Removed = append(p.rep.Removed, fl.rel)
	case s.Version != e.Version:
		data := render(s)
		if err := p.f.writeFile(fl.rel, data, &fl.stat); err != nil {
			return p.skipEdited(err)
		}
		p.st.Files[name] = entry{Path: fl.rel, Sum: sumOf(data), Version: s.Version}
		p.rep.Written = append(p.rep.Written, fl.rel)
	}
	return nil
}

// skipEdited turns errEdited into nothing: the edit is imported next pass.
func (p *pass) skipEdited(err error) error {
	if errors.Is(err, errEdited) {
		return nil
	}
	return fmt.Errorf("skills folder: %w", err)
}

func (p *pass) importFile(ctx context.Context, name string, fl *file) error {
	in := fl.in
	in.Source, in.Note = "folder", "from the skills folder: "+fl.rel
	s, changed, err := p.f.db.PutSkill(ctx, in)
	if err != nil {
		return err
	}
	if !s.Enabled {
		if err := p.f.db.SetSkillEnabled(ctx, name, true); err != nil {
			return err
		}
		changed, s.Enabled, s.Retired = true, true, false
	}
	p.lib[name] = s
	p.st.Files[name] = entry{Path: fl.rel, Sum: fl.sum, Version: s.Version}
	if changed {
		p.rep.Imported = append(p.rep.Imported, name)
		p.f.log.Info("skill imported from the skills folder", "skill", name, "version", s.Version, "file", fl.rel)
	}
	return nil
}

// deleted disables the skills whose file was deleted since the last pass.
func (p *pass) deleted(ctx context.Context) error {
	for _, name := range sortedKeys(p.st.Files) {
		if p.byName[name] != nil || p.busy[name] {
			continue
		}
		delete(p.st.Files, name)
		s, ok := p.lib[name]
		if !ok || !s.Enabled {
			continue
		}
		if err := p.f.db.SetSkillEnabled(ctx, name, false); err != nil {
			return err
		}
		s.Enabled = false
		p.lib[name] = s
		p.rep.Disabled = append(p.rep.Disabled, name)
		p.f.log.Info("skill disabled: its file was deleted from the skills folder", "skill", name)
	}
	return nil
}

// added writes a file for every enabled skill that has none yet.
func (p *pass) added() error {
	for _, name := range sortedKeys(p.lib) {
		s := p.lib[name]
		rel := name + "/SKILL.md"
		if !s.Enabled || s.Retired || p.byName[name] != nil || p.busy[name] || p.present[rel] {
			continue
		}
		if _, known := p.st.Files[name]; known {
			continue
		}
		data := render(s)
		if err := p.f.writeFile(rel, data, nil); err != nil {
			if err := p.skipEdited(err); err != nil {
				return err
			}
			continue
		}
		p.st.Files[name] = entry{Path: rel, Sum: sumOf(data), Version: s.Version}
		p.rep.Written = append(p.rep.Written, rel)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
