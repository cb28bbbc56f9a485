package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

var dayDirRE = regexp.MustCompile(`^day\d+$`)

// PrepareWorkspace makes dst the day's workspace: the root files and the
// folders of src that are not dayNN folders, the day's own dayNN folder,
// and evalDir/scripts as scripts/ (where the checks expect them). dst must
// not exist yet.
func PrepareWorkspace(src, evalDir, day, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return fmt.Errorf("workspace: %w", err)
	}
	if err := os.Mkdir(dst, 0o700); err != nil {
		return fmt.Errorf("workspace: %w", err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return fmt.Errorf("workspace: %w", err)
	}
	for _, e := range entries {
		if e.IsDir() && dayDirRE.MatchString(e.Name()) && e.Name() != day {
			continue // other days stay unseen
		}
		if err := copyTree(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			return fmt.Errorf("workspace: %w", err)
		}
	}
	scripts := filepath.Join(evalDir, "scripts")
	if isDir(scripts) {
		if err := copyTree(scripts, filepath.Join(dst, "scripts")); err != nil {
			return fmt.Errorf("workspace: checker scripts: %w", err)
		}
	}
	return nil
}

// copyTree copies a file or a folder; symbolic links and other special
// files are left out.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o700)
		case d.Type().IsRegular():
			return copyFile(p, target)
		}
		return nil
	})
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, st.Mode().Perm()|0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// ApplyUpdate applies a workspace update of a round (the reference's
// _execute_update): new copies the source file to the path, append adds
// it at the end, insert puts it after line param.after, delete removes the
// lines param.lines names (1-based numbers, or "start:end" 0-based ranges).
// Sources are relative to eval/<eval>/.
func ApplyUpdate(u Update, workspace, evalDir, eval string) error {
	if u.Type != "workspace" {
		return fmt.Errorf("update of %s: only workspace updates can be applied", u.Type)
	}
	target, err := inside(workspace, u.Path)
	if err != nil {
		return fmt.Errorf("update %s: %w", u.Path, err)
	}
	var src []byte
	if u.Source != "" {
		if src, err = os.ReadFile(filepath.Join(evalDir, eval, filepath.FromSlash(u.Source))); err != nil {
			return fmt.Errorf("update %s: %w", u.Path, err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		return err
	}
	old, _ := os.ReadFile(target)
	var out []byte
	switch u.Action {
	case "new":
		out = src
	case "append":
		out = append(old, src...)
	case "insert":
		after := paramInt(u.Param, "after")
		lines := splitKeep(string(old))
		after = min(max(after, 0), len(lines))
		out = []byte(strings.Join(lines[:after], "") + string(src) + strings.Join(lines[after:], ""))
	case "delete":
		out = []byte(deleteLines(string(old), u.Param))
	default:
		return fmt.Errorf("update %s: unknown action %q", u.Path, u.Action)
	}
	return os.WriteFile(target, out, 0o600)
}

// inside resolves a relative path within root, refusing one that leaves
// it.
func inside(root, rel string) (string, error) {
	if rel == "" || filepath.IsAbs(rel) || !filepath.IsLocal(filepath.FromSlash(rel)) {
		return "", fmt.Errorf("path %q is not inside the workspace", rel)
	}
	return filepath.Join(root, filepath.FromSlash(rel)), nil
}

func paramInt(raw json.RawMessage, key string) int {
	var m map[string]any
	if json.Unmarshal(raw, &m) == nil {
		if v, ok := m[key].(float64); ok {
			return int(v)
		}
	}
	var n int
	_ = json.Unmarshal(raw, &n)
	return n
}

// splitKeep splits text into lines that keep their newlines.
func splitKeep(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return append(out, s)
		}
		out, s = append(out, s[:i+1]), s[i+1:]
	}
	return out
}

func deleteLines(text string, raw json.RawMessage) string {
	var p struct {
		Lines []any `json:"lines"`
	}
	_ = json.Unmarshal(raw, &p)
	lines := splitKeep(text)
	drop := map[int]bool{}
	for _, spec := range p.Lines {
		switch v := spec.(type) {
		case float64:
			drop[int(v)-1] = true
		case string:
			a, b, ok := strings.Cut(v, ":")
			if !ok {
				continue
			}
			start, end := 0, len(lines)
			if a != "" {
				start, _ = strconv.Atoi(a)
			}
			if b != "" {
				end, _ = strconv.Atoi(b)
			}
			for i := start; i < end; i++ {
				drop[i] = true
			}
		}
	}
	var kept strings.Builder
	for i, l := range lines {
		if !drop[i] {
			kept.WriteString(l)
		}
	}
	return kept.String()
}
