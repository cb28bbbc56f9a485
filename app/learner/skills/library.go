package skills

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/metaclaw/metaclaw/store"
)

// FileError is a skill file that could not be used, and why.
type FileError struct {
	Path string
	Err  error
}

func (e FileError) Error() string { return e.Path + ": " + e.Err.Error() }

// ImportReport says what an import did.
type ImportReport struct {
	Added, Updated, Unchanged []string
	Errors                    []FileError
	// Notices are files imported with a change worth saying, once: an
	// unknown category filed under general.
	Notices []FileError
}

// skillFiles finds the skill files of a directory: the reference layout
// DIR/<name>/SKILL.md, and flat DIR/*.md files.
func skillFiles(fsys fs.FS) ([]string, error) {
	var files []string
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		switch {
		case e.IsDir():
			p := path.Join(e.Name(), "SKILL.md")
			if _, err := fs.Stat(fsys, p); err == nil {
				files = append(files, p)
			}
		case strings.EqualFold(path.Ext(e.Name()), ".md") && !strings.EqualFold(e.Name(), "README.md"):
			files = append(files, e.Name())
		}
	}
	sort.Strings(files)
	return files, nil
}

// ImportFS reads every skill file of fsys and stores the valid ones with
// the given source; an invalid file is reported with its path and reason
// and skipped as a whole.
func ImportFS(ctx context.Context, db *store.DB, fsys fs.FS, source string) (ImportReport, error) {
	var rep ImportReport
	files, err := skillFiles(fsys)
	if err != nil {
		return rep, fmt.Errorf("read skill directory: %w", err)
	}
	for _, f := range files {
		in, notice, err := parseFile(fsys, f)
		if err != nil {
			rep.Errors = append(rep.Errors, FileError{Path: f, Err: err})
			continue
		}
		if notice != "" {
			rep.Notices = append(rep.Notices, FileError{Path: f, Err: errors.New(notice)})
		}
		in.Source = source
		before, getErr := db.Skill(ctx, in.Name)
		s, changed, err := db.PutSkill(ctx, in)
		if err != nil {
			return rep, err
		}
		switch {
		case errors.Is(getErr, store.ErrNotFound):
			rep.Added = append(rep.Added, s.Name)
		case changed || before.Retired || !before.Enabled:
			rep.Updated = append(rep.Updated, s.Name)
		default:
			rep.Unchanged = append(rep.Unchanged, s.Name)
		}
	}
	return rep, nil
}

func parseFile(fsys fs.FS, p string) (store.SkillInput, string, error) {
	data, err := fs.ReadFile(fsys, p)
	if err != nil {
		return store.SkillInput{}, "", err
	}
	in, notice, err := ParseFile(data)
	if err != nil {
		return in, "", err
	}
	if dir := path.Dir(p); dir != "." && dir != in.Name {
		return in, "", fmt.Errorf("name %q does not match its directory %q", in.Name, dir)
	}
	return in, notice, nil
}

// ImportDir imports a directory on disk.
func ImportDir(ctx context.Context, db *store.DB, dir string) (ImportReport, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return ImportReport{}, fmt.Errorf("%s is not a directory", dir)
	}
	return ImportFS(ctx, db, os.DirFS(dir), "import")
}

// ExportDir writes every skill (disabled ones too) as DIR/<name>/SKILL.md.
func ExportDir(ctx context.Context, db *store.DB, dir string) (int, error) {
	all, err := db.Skills(ctx, true)
	if err != nil {
		return 0, err
	}
	for _, s := range all {
		p := filepath.Join(dir, s.Name)
		if err := os.MkdirAll(p, 0o755); err != nil {
			return 0, fmt.Errorf("export %s: %w", s.Name, err)
		}
		if err := os.WriteFile(filepath.Join(p, "SKILL.md"), Format(s), 0o644); err != nil {
			return 0, fmt.Errorf("export %s: %w", s.Name, err)
		}
	}
	return len(all), nil
}

const metaStarter = "starter_skills_installed"

// InstallStarter imports the starter bank the first time it runs on a
// database; later runs do nothing, so deleted starter skills stay deleted.
func InstallStarter(ctx context.Context, db *store.DB, bank fs.FS) (ImportReport, error) {
	done, err := db.Meta(ctx, metaStarter)
	if err != nil {
		return ImportReport{}, err
	}
	if done != "" {
		return ImportReport{}, starterAsks(ctx, db, bank)
	}
	rep, err := ImportFS(ctx, db, bank, "starter")
	if err != nil {
		return rep, err
	}
	if err := db.SetMeta(ctx, metaStarter, "1"); err != nil {
		return rep, err
	}
	return rep, db.SetMeta(ctx, metaStarterAsks, "1")
}

const metaStarterAsks = "starter_skills_asks"

// starterAsks gives the starter skills of a library installed before the
// bank had asks the bank's asks, once: each skill whose content is still
// the bank's and that has no asks yet.
func starterAsks(ctx context.Context, db *store.DB, bank fs.FS) error {
	if done, err := db.Meta(ctx, metaStarterAsks); err != nil || done != "" {
		return err
	}
	files, err := skillFiles(bank)
	if err != nil {
		return err
	}
	for _, f := range files {
		in, _, err := parseFile(bank, f)
		if err != nil || len(in.Asks) == 0 {
			continue
		}
		cur, err := db.Skill(ctx, in.Name)
		if err != nil || len(cur.Asks) > 0 || cur.Description != in.Description || cur.Category != in.Category ||
			cur.Body != in.Body || !slices.Equal(cur.Tags, in.Tags) {
			continue // deleted, asked already, or changed since
		}
		if err := db.SetSkillAsks(ctx, cur.Name, cur.Version, in.Asks); err != nil {
			return err
		}
	}
	return db.SetMeta(ctx, metaStarterAsks, "1")
}

// starterAsksInFile is the starter bank's asks in other languages, beside
// its skills: a JSON object from a skill's name to its asks by language.
const starterAsksInFile = "asks_in.json"

// StarterAsksIn gives each starter skill whose content is still the
// bank's the bank's asks in those of langs it has none in, and returns
// how many skills it gave asks to: the starter skills need no model call
// for them. A bank without the file gives none.
func StarterAsksIn(ctx context.Context, db *store.DB, bank fs.FS, langs []string) (int, error) {
	if len(langs) == 0 {
		return 0, nil
	}
	data, err := fs.ReadFile(bank, starterAsksInFile)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var shipped map[string]map[string][]string
	if err := json.Unmarshal(data, &shipped); err != nil {
		return 0, fmt.Errorf("starter bank %s: %w", starterAsksInFile, err)
	}
	given := 0
	for name, byLang := range shipped {
		cur, err := db.Skill(ctx, name)
		if err != nil {
			continue // deleted
		}
		var want []string
		for _, l := range langs {
			if len(cur.AsksIn[l]) == 0 && len(byLang[l]) > 0 {
				want = append(want, l)
			}
		}
		if len(want) == 0 {
			continue
		}
		in, _, err := parseFile(bank, path.Join(name, "SKILL.md"))
		if err != nil || cur.Description != in.Description || cur.Category != in.Category || cur.Body != in.Body ||
			!slices.Equal(cur.Tags, in.Tags) {
			continue // changed since: its asks are the model's to write
		}
		for _, l := range want {
			if err := db.SetSkillAsksIn(ctx, cur.Name, cur.Version, l, NormAsks(byLang[l])); err != nil && !errors.Is(err, store.ErrNotFound) {
				return given, err
			}
		}
		given++
	}
	return given, nil
}
