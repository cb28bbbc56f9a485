package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// setting is one value connect writes into an agent's settings file.
type setting struct {
	key    []string
	value  any
	secret bool // masked whenever it is printed
}

// fileEdit is what connect changes in one of an agent's files.
type fileEdit struct {
	path     string
	format   docFormat
	settings []setting
	// owned marks a file that is connect's alone (a provider file it
	// creates): undo removes it whatever the agent wrote into it since.
	owned bool
}

// savedSetting is what a key held before the first connect.
type savedSetting struct {
	Key     []string        `json:"key"`
	Present bool            `json:"present"`
	Value   json.RawMessage `json:"value,omitempty"`
	Secret  bool            `json:"secret,omitempty"`
	// Parents is how many of the key's parents existed: undo removes the
	// ones connect created once they are empty again.
	Parents int `json:"parents"`
}

// savedFile is the undo record of one file.
type savedFile struct {
	Path    string `json:"path"`
	Format  string `json:"format"`
	Existed bool   `json:"existed"`
	Owned   bool   `json:"owned,omitempty"`
	Backup  string `json:"backup,omitempty"` // a copy of the file as it was
	// Written is the SHA-256 of what connect last wrote: when the file
	// still holds exactly that, undo puts the copy back byte for byte.
	Written string         `json:"written,omitempty"`
	Mode    fs.FileMode    `json:"mode,omitempty"` // the file's mode before connect
	Keys    []savedSetting `json:"keys"`
}

// filesUndo is <data dir>/connect/<agent>-undo.json for file-based agents.
type filesUndo struct {
	Agent   string          `json:"agent"`
	SavedAt time.Time       `json:"saved_at"`
	Files   []savedFile     `json:"files"`
	Extra   json.RawMessage `json:"extra,omitempty"` // the agent's own (NanoClaw: its directory)
}

func (u *filesUndo) file(path string) *savedFile {
	for i := range u.Files {
		if u.Files[i].Path == path {
			return &u.Files[i]
		}
	}
	return nil
}

func (f *savedFile) has(key []string) bool {
	for _, k := range f.Keys {
		if strings.Join(k.Key, "\x00") == strings.Join(key, "\x00") {
			return true
		}
	}
	return false
}

// filePlan is the change to one file, worked out before anything is written.
type filePlan struct {
	edit    fileEdit
	saved   savedFile
	out     []byte
	changes []string
	secret  bool // it writes a real key: the file becomes private
}

// showKey prints a key for people: dots, with a match segment in brackets.
func showKey(key []string) string {
	var b strings.Builder
	for i, s := range key {
		if _, _, ok := matchSegment(s); ok {
			b.WriteString("[" + s + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	return b.String()
}

// showValue prints a value, or "(not set)", masking secrets.
func showValue(raw json.RawMessage, present, secret bool) string {
	switch {
	case !present:
		return "(not set)"
	case secret && !sameJSON(raw, json.RawMessage(`"`+placeholderKey+`"`)) && !sameJSON(raw, json.RawMessage(`""`)):
		return `"` + masked + `"`
	}
	return string(raw)
}

// readAgentFile reads a file that may not exist.
func readAgentFile(path string) (data []byte, existed bool, err error) {
	data, err = os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", path, err)
	}
	return data, true, nil
}

// planFile works out the change to one file.
func planFile(e fileEdit, prev *savedFile) (*filePlan, error) {
	data, existed, err := readAgentFile(e.path)
	if err != nil {
		return nil, err
	}
	doc, err := e.format.parse(data)
	if err == nil {
		_, err = doc.tree()
	}
	if err != nil {
		return nil, &exitError{code: 1, msg: fmt.Sprintf("%s is not valid %s (%v); not changed", e.path, e.format.name(), err)}
	}
	before, _ := e.format.parse(data)
	p := &filePlan{edit: e, saved: savedFile{Path: e.path, Format: e.format.name(), Existed: existed, Owned: e.owned, Mode: fileMode(e.path)}}
	if prev != nil {
		p.saved = *prev
	}
	var ops []op
	for _, s := range e.settings {
		raw, err := json.Marshal(s.value)
		if err != nil {
			return nil, err
		}
		cur, present, err := doc.get(s.key)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", e.path, showKey(s.key), err)
		}
		if !p.saved.has(s.key) {
			p.saved.Keys = append(p.saved.Keys, savedSetting{Key: s.key, Present: present, Value: cur, Secret: s.secret, Parents: existingParents(doc, s.key)})
		}
		if present && sameJSON(cur, raw) {
			continue
		}
		if err := doc.set(s.key, raw); err != nil {
			return nil, &exitError{code: 1, msg: fmt.Sprintf("%s: cannot set %s: %v; not changed", e.path, showKey(s.key), err)}
		}
		ops = append(ops, op{key: s.key, v: raw})
		p.secret = p.secret || s.secret && !sameJSON(raw, json.RawMessage(`"`+placeholderKey+`"`))
		p.changes = append(p.changes, fmt.Sprintf("  %s: %s -> %s", showKey(s.key), showValue(cur, present, s.secret), showValue(raw, true, s.secret)))
	}
	if len(ops) == 0 {
		return nil, nil
	}
	if p.out, err = doc.bytes(); err != nil {
		return nil, err
	}
	if err := checkEdit(e.format, before, p.out, ops); err != nil {
		return nil, &exitError{code: 1, msg: fmt.Sprintf("%s: %v; not changed (edit it by hand, or report this)", e.path, err)}
	}
	return p, nil
}

// existingParents counts the key's parents that exist in doc.
func existingParents(doc agentDoc, key []string) int {
	n := 0
	for i := 1; i < len(key); i++ {
		if _, ok, _ := doc.get(key[:i]); !ok {
			break
		}
		n = i
	}
	return n
}

// applyFiles points an agent at the proxy by editing its files. It
// returns false, writing nothing, when every setting already has its value.
func applyFiles(r *connectRun, agent string, edits []fileEdit, extra any) (bool, error) {
	var u filesUndo
	if err := readJSON(r.undoFile, &u); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	var plans []*filePlan
	for _, e := range edits {
		p, err := planFile(e, u.file(e.path))
		if err != nil {
			return false, err
		}
		if p != nil {
			plans = append(plans, p)
		}
	}
	if len(plans) == 0 {
		fmt.Fprintf(r.out, "%s already goes through MetaClaw; nothing changed.\n", agent)
		return false, nil
	}
	verb := "Changed"
	if r.dry {
		verb = "Would change"
	}
	for _, p := range plans {
		fmt.Fprintf(r.out, "%s %s (%s):\n%s\n", verb, p.edit.path, p.edit.format.name(), strings.Join(p.changes, "\n"))
	}
	if r.dry {
		fmt.Fprintf(r.out, "The values replaced would first be saved to %s for --undo.\n", r.undoFile)
		return true, nil
	}
	return true, writePlans(r, agent, &u, plans, extra)
}

// writePlans saves the undo record (and a copy of each file as it was on
// the first connect), then writes the files.
func writePlans(r *connectRun, agent string, u *filesUndo, plans []*filePlan, extra any) error {
	if u.Agent == "" {
		u.Agent, u.SavedAt = agent, time.Now().UTC()
	}
	if extra != nil {
		u.Extra, _ = json.Marshal(extra)
	}
	for _, p := range plans {
		p.saved.Written = digest(p.out)
		if prev := u.file(p.saved.Path); prev != nil {
			*prev = p.saved
			continue
		}
		if p.saved.Existed && !p.saved.Owned {
			p.saved.Backup = filepath.Join(r.t.connectDir(), fmt.Sprintf("%s-%d-%s.orig", agent, len(u.Files), filepath.Base(p.saved.Path)))
			data, _, err := readAgentFile(p.saved.Path)
			if err != nil {
				return err
			}
			if err := writeFileAtomic(p.saved.Backup, data, 0o600); err != nil {
				return err
			}
		}
		u.Files = append(u.Files, p.saved)
	}
	if err := writeJSON(r.undoFile, u); err != nil {
		return err
	}
	for _, p := range plans {
		mode := fileMode(p.edit.path)
		if p.secret && mode&0o077 != 0 {
			mode &^= 0o077
			fmt.Fprintf(r.out, "%s now holds proxy.api_key: made it private to you (mode %v; undo restores %v).\n", p.edit.path, mode, p.saved.Mode)
		}
		if err := writeFileAtomic(p.edit.path, p.out, mode); err != nil {
			return err
		}
	}
	fmt.Fprintf(r.out, "Saved what was replaced to %s. Undo with: metaclaw connect %s --undo\n", r.undoFile, agent)
	return nil
}

// fileMode is the mode a file has, 0600 for a new one.
func fileMode(path string) fs.FileMode {
	if fi, err := os.Stat(path); err == nil {
		return fi.Mode().Perm()
	}
	return 0o600
}

// undoFiles restores every key connect saved, newest file first, keeping
// whatever else was changed in the files since.
func undoFiles(r *connectRun, agent string) error {
	var u filesUndo
	if err := readJSON(r.undoFile, &u); errors.Is(err, fs.ErrNotExist) {
		return nothingToUndo(agent, r.undoFile)
	} else if err != nil {
		return err
	}
	for i := len(u.Files) - 1; i >= 0; i-- {
		if err := undoFile(r, u.Files[i], formatByName(u.Files[i].Format)); err != nil {
			return fmt.Errorf("restore %s (the saved values stay in %s): %w", u.Files[i].Path, r.undoFile, err)
		}
	}
	if r.dry {
		return nil
	}
	for _, f := range u.Files {
		if f.Backup != "" {
			os.Remove(f.Backup)
		}
	}
	if err := os.Remove(r.undoFile); err != nil {
		return fmt.Errorf("remove undo file: %w", err)
	}
	fmt.Fprintf(r.out, "%s no longer goes through MetaClaw.\n", agent)
	return nil
}

// undoFile restores one file.
func undoFile(r *connectRun, f savedFile, format docFormat) error {
	verb := func(s string) string {
		if r.dry {
			return "Would " + strings.ToLower(s[:1]) + s[1:]
		}
		return s
	}
	if f.Owned {
		fmt.Fprintf(r.out, "%s %s (connect created it).\n", verb("Remove"), f.Path)
		if r.dry {
			return nil
		}
		if err := os.Remove(f.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	if format == nil {
		return errors.New("unknown file")
	}
	data, exists, err := readAgentFile(f.Path)
	if err != nil {
		return err
	}
	if exists && f.Written != "" && digest(data) == f.Written {
		return putBack(r, f, verb)
	}
	doc, err := format.parse(data)
	if err != nil {
		return fmt.Errorf("not valid %s now (%v)", format.name(), err)
	}
	for i := len(f.Keys) - 1; i >= 0; i-- {
		if err := restoreKey(doc, f.Keys[i]); err != nil {
			return err
		}
		k := f.Keys[i]
		fmt.Fprintf(r.out, "%s %s in %s to %s.\n", verb("Restore"), showKey(k.Key), f.Path, showValue(k.Value, k.Present, k.Secret))
	}
	if r.dry {
		return nil
	}
	out, err := doc.bytes()
	if err != nil {
		return err
	}
	if t, _ := doc.tree(); !f.Existed && isEmptyTree(t) {
		if err := os.Remove(f.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	return writeFileAtomic(f.Path, out, fileMode(f.Path))
}

// putBack restores a file nobody changed since connect wrote it: the copy
// of the original, or no file when there was none.
func putBack(r *connectRun, f savedFile, verb func(string) string) error {
	if !f.Existed {
		fmt.Fprintf(r.out, "%s %s (connect created it).\n", verb("Remove"), f.Path)
		if r.dry {
			return nil
		}
		return os.Remove(f.Path)
	}
	fmt.Fprintf(r.out, "%s %s as it was before connect.\n", verb("Restore"), f.Path)
	if r.dry {
		return nil
	}
	orig, err := os.ReadFile(f.Backup)
	if err != nil {
		return fmt.Errorf("read the saved copy: %w", err)
	}
	return writeFileAtomic(f.Path, orig, restoredMode(f))
}

// restoredMode is the mode a restored file gets: its own from before
// connect, else the one it has.
func restoredMode(f savedFile) fs.FileMode {
	if f.Existed && f.Mode != 0 {
		return f.Mode
	}
	return fileMode(f.Path)
}

// digest is the hex SHA-256 of data.
func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// restoreKey puts one saved value back, removing parents connect created.
func restoreKey(doc agentDoc, k savedSetting) error {
	if k.Present {
		return doc.set(k.Key, k.Value)
	}
	if err := doc.del(k.Key); err != nil {
		return err
	}
	for l := len(k.Key) - 1; l > k.Parents; l-- {
		if v, ok, _ := doc.get(k.Key[:l]); ok && isEmptyObject(v) {
			if err := doc.del(k.Key[:l]); err != nil {
				return err
			}
		}
	}
	return nil
}

// formatByName is the format a saved file was written in.
func formatByName(name string) docFormat {
	for _, f := range []docFormat{jsonFormat{}, tomlFormat{}, yamlFormat{}, envFormat{}} {
		if f.name() == name {
			return f
		}
	}
	return nil
}

func isEmptyTree(t any) bool {
	m, ok := t.(map[string]any)
	return t == nil || ok && len(m) == 0
}

// restartAgent runs the agent's own restart command after a change, so it
// reads its new settings; without the command it says what to restart.
func restartAgent(r *connectRun, cmd []string, manual string) {
	if r.dry {
		if cmd != nil {
			fmt.Fprintf(r.out, "Would then run: %s\n", strings.Join(cmd, " "))
		}
		return
	}
	if cmd == nil || lookPath(r.env, cmd[0]) == "" {
		fmt.Fprintln(r.out, manual)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, lookPath(r.env, cmd[0]), cmd[1:]...)
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	if err := c.Run(); err != nil {
		fmt.Fprintf(r.out, "note: %s failed (%v): %s\n%s\n", strings.Join(cmd, " "), err, strings.TrimSpace(tail(out.String(), 400)), manual)
		return
	}
	fmt.Fprintf(r.out, "Ran %s.\n", strings.Join(cmd, " "))
}
