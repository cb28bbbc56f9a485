package skillfolder

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/skills"
	"github.com/metaclaw/metaclaw/store"
)

// fileStat is what a scan compares between passes to see a file change.
type fileStat struct {
	size  int64
	mtime time.Time
}

// file is one skill file found by a scan.
type file struct {
	rel     string // slash path inside the folder
	stat    fileStat
	settled bool   // unchanged long enough to be read
	sum     string // sha256 of the content ("" when not read)
	in      store.SkillInput
	notice  string // what was changed on import (an unknown category filed under general)
	err     error  // why the file cannot be used
}

// candidates lists the skill files of dir in the layouts the importer
// reads: <dir>/<name>/SKILL.md, and flat <dir>/*.md (README.md aside).
// Names starting with "." (our temporary files, .git) are not skills.
func candidates(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, "."):
		case e.IsDir():
			if _, err := os.Lstat(filepath.Join(dir, name, "SKILL.md")); err == nil {
				out = append(out, name+"/SKILL.md")
			}
		case strings.EqualFold(path.Ext(name), ".md") && !strings.EqualFold(name, "README.md") && e.Type().IsRegular():
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out, nil
}

// scan stats every candidate; a file is settled when its size and mtime
// are those of the previous pass, or when it was last written at least
// settle ago: a file an editor is still writing waits for the next pass.
func (f *Folder) scan(now time.Time) ([]*file, error) {
	rels, err := candidates(f.dir)
	if err != nil {
		return nil, err
	}
	var out []*file
	for _, rel := range rels {
		fi, err := os.Stat(filepath.Join(f.dir, filepath.FromSlash(rel)))
		if err != nil {
			continue // gone between the listing and the stat
		}
		st := fileStat{size: fi.Size(), mtime: fi.ModTime()}
		prev, seen := f.stats[rel]
		settled := (seen && prev == st) || now.Sub(st.mtime) >= f.settle
		out = append(out, &file{rel: rel, stat: st, settled: settled})
	}
	return out, nil
}

// read reads and parses a settled file whole. A file that changed while it
// was read is unsettled again; nothing of an invalid file is used.
func (f *Folder) read(fl *file) {
	p := filepath.Join(f.dir, filepath.FromSlash(fl.rel))
	if c, ok := f.sums[fl.rel]; ok && c.stat == fl.stat {
		fl.sum, fl.in, fl.notice, fl.err = c.sum, c.in, c.notice, c.err
		return
	}
	data, err := os.ReadFile(p)
	if err != nil {
		fl.settled = false
		return
	}
	if fi, err := os.Stat(p); err != nil || fi.Size() != fl.stat.size || !fi.ModTime().Equal(fl.stat.mtime) {
		fl.settled = false
		return
	}
	fl.sum = sumOf(data)
	fl.in, fl.notice, fl.err = parse(fl.rel, data)
	f.sums[fl.rel] = cached{stat: fl.stat, sum: fl.sum, in: fl.in, notice: fl.notice, err: fl.err}
}

// cached is a file's parse, kept while its size and mtime stay the same.
type cached struct {
	stat   fileStat
	sum    string
	in     store.SkillInput
	notice string
	err    error
}

// parse reads a skill file with skills.ParseFile, which also says when
// the file's category was unknown and filed under general.
func parse(rel string, data []byte) (store.SkillInput, string, error) {
	if len(data) > maxFileBytes {
		return store.SkillInput{}, "", fmt.Errorf("file is larger than %d bytes", maxFileBytes)
	}
	if conflictMarkers(data) {
		return store.SkillInput{}, "", fmt.Errorf("the file holds git conflict markers: finish the merge (metaclaw skills sync resolves them)")
	}
	in, notice, err := skills.ParseFile(data)
	if err != nil {
		return in, "", err
	}
	if dir := path.Dir(rel); dir != "." && dir != in.Name {
		return in, "", fmt.Errorf("name %q does not match its directory %q", in.Name, dir)
	}
	return in, notice, nil
}

// conflictMarkers reports whether data holds the lines git writes into a
// file it could not merge.
func conflictMarkers(data []byte) bool {
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "<<<<<<< ") || strings.HasPrefix(line, ">>>>>>> ") {
			return true
		}
	}
	return false
}

// maxFileBytes bounds a skill file; the format's own limits are far below.
const maxFileBytes = 1 << 20

func sumOf(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// writeFile replaces rel with data atomically (a temporary file in the same
// directory, then a rename), so neither a reader nor a crash sees half a
// file. It refuses when the file on disk is no longer the one last seen
// (an edit arrived meanwhile): the next pass imports that edit instead.
func (f *Folder) writeFile(rel string, data []byte, expect *fileStat) error {
	p := filepath.Join(f.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".metaclaw-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := f.unchanged(p, expect); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return err
	}
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	st := fileStat{size: fi.Size(), mtime: fi.ModTime()}
	in, notice, perr := parse(rel, data)
	f.stats[rel] = st
	f.sums[rel] = cached{stat: st, sum: sumOf(data), in: in, notice: notice, err: perr}
	return nil
}

// errEdited says a file changed on disk after the pass read it.
var errEdited = errors.New("the file changed on disk meanwhile")

// unchanged checks that p is still as expect says (absent when nil).
func (f *Folder) unchanged(p string, expect *fileStat) error {
	fi, err := os.Stat(p)
	switch {
	case expect == nil && errors.Is(err, fs.ErrNotExist):
		return nil
	case expect == nil:
		return errEdited
	case err != nil || fi.Size() != expect.size || !fi.ModTime().Equal(expect.mtime):
		return errEdited
	}
	return nil
}

// removeFile deletes rel (and its directory when that is left empty).
func (f *Folder) removeFile(rel string, expect fileStat) error {
	p := filepath.Join(f.dir, filepath.FromSlash(rel))
	if err := f.unchanged(p, &expect); err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	delete(f.stats, rel)
	delete(f.sums, rel)
	if d := path.Dir(rel); d != "." {
		os.Remove(filepath.Join(f.dir, filepath.FromSlash(d))) // only succeeds when empty
	}
	return nil
}
