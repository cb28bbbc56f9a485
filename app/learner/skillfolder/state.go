package skillfolder

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/metaclaw/metaclaw/app/learner/skills"
	"github.com/metaclaw/metaclaw/store"
	"go.yaml.in/yaml/v3"
)

// MetaState is the meta key that holds the folder's sync state.
const MetaState = "skills_folder"

// state is what the last pass saw, kept in the database so that a file
// deleted or edited while MetaClaw was not running is told apart from a
// skill the library gained meanwhile.
type state struct {
	Dir     string           `json:"dir"`
	Files   map[string]entry `json:"files"` // by skill name
	Broken  []Broken         `json:"broken,omitempty"`
	Notices []Notice         `json:"notices,omitempty"`
}

// entry is one skill's file as last synced: its path, content hash and the
// skill version it holds.
type entry struct {
	Path    string `json:"path"`
	Sum     string `json:"sha256"`
	Version int    `json:"version"`
}

// loadState reads the state of dir; a state of another folder (skills.dir
// changed) starts afresh.
func loadState(ctx context.Context, db *store.DB, dir string) (state, error) {
	st := state{Dir: dir, Files: map[string]entry{}}
	v, err := db.Meta(ctx, MetaState)
	if err != nil || v == "" {
		return st, err
	}
	var saved state
	if err := json.Unmarshal([]byte(v), &saved); err != nil || saved.Dir != dir {
		return st, nil // unreadable or another folder: every file is seen anew
	}
	if saved.Files == nil {
		saved.Files = map[string]entry{}
	}
	saved.Broken, saved.Notices = nil, nil
	return saved, nil
}

func saveState(ctx context.Context, db *store.DB, st state) error {
	data, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("skills folder state: %w", err)
	}
	return db.SetMeta(ctx, MetaState, string(data))
}

// Summary is what status shows of the folder.
type Summary struct {
	Dir     string   `json:"dir"`
	Files   int      `json:"files"`
	Broken  []Broken `json:"broken,omitempty"`
	Notices []Notice `json:"notices,omitempty"`
}

// ReadSummary returns the folder's state as the running app last saved it
// (ok is false before the first pass).
func ReadSummary(ctx context.Context, db *store.DB) (Summary, bool, error) {
	v, err := db.Meta(ctx, MetaState)
	if err != nil || v == "" {
		return Summary{}, false, err
	}
	var st state
	if err := json.Unmarshal([]byte(v), &st); err != nil {
		return Summary{}, false, nil
	}
	return Summary{Dir: st.Dir, Files: len(st.Files), Broken: st.Broken, Notices: st.Notices}, true, nil
}

// render is the file of a skill: its SKILL.md with the library's version
// number in the front matter, which a git merge compares (git.go).
func render(s store.Skill) []byte {
	data := skills.Format(s)
	end := bytes.Index(data, []byte("\n---\n"))
	if !bytes.HasPrefix(data, []byte("---\n")) || end < 0 {
		return data
	}
	var b bytes.Buffer
	b.Write(data[:end+1])
	b.WriteString("version: " + strconv.Itoa(s.Version) + "\n")
	b.Write(data[end+1:])
	return b.Bytes()
}

// fileVersion reads the version number a skill file's front matter holds
// (0 when it holds none).
func fileVersion(data []byte) int {
	s := strings.ReplaceAll(strings.TrimPrefix(string(data), "\ufeff"), "\r\n", "\n")
	rest, ok := strings.CutPrefix(s, "---\n")
	if !ok {
		return 0
	}
	head, _, ok := strings.Cut(rest, "\n---")
	if !ok {
		return 0
	}
	var fm struct {
		Version int `yaml:"version"`
	}
	if yaml.Unmarshal([]byte(head), &fm) != nil {
		return 0
	}
	return fm.Version
}
