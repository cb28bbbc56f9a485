package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/metaclaw/metaclaw/app/instance"
)

// claudeUndo is the content of <data dir>/connect/claude-code-undo.json.
type claudeUndo struct {
	SavedAt  time.Time  `json:"saved_at"`
	Settings string     `json:"settings"`
	Backup   string     `json:"backup,omitempty"` // a copy of the file; "" when there was none
	HadEnv   bool       `json:"had_env"`
	Env      []savedKey `json:"env"`
}

// connectClaude is `metaclaw connect claude-code`.
func connectClaude(env *Env, args []string) error {
	fs := newFlags(env, "connect claude-code", "[--print] [--undo]")
	printOnly := fs.Bool("print", false, "only print the environment variables; change no file")
	undo := fs.Bool("undo", false, "restore Claude Code's settings as they were before connect")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError("connect claude-code: unexpected argument %q", fs.Arg(0))
	}
	t, err := loadTarget(env)
	if err != nil {
		return err
	}
	undoFile := filepath.Join(t.connectDir(), "claude-code-undo.json")
	if *undo {
		return undoClaude(env, undoFile)
	}
	printAnthropicEnv(env, t, "Claude Code")
	if *printOnly {
		return nil
	}
	return applyClaude(env, t, claudeSettingsPath(env), undoFile)
}

// claudeSettingsPath is Claude Code's user settings file:
// $CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json.
func claudeSettingsPath(env *Env) string {
	if d := env.getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Join(d, "settings.json")
	}
	h := env.getenv("HOME")
	if h == "" {
		h, _ = os.UserHomeDir()
	}
	return filepath.Join(h, ".claude", "settings.json")
}

// claudeEnv is what connect writes into the env object of Claude Code's
// settings.
func claudeEnv(t target) map[string]string {
	m := map[string]string{"ANTHROPIC_BASE_URL": t.anthropicBase()}
	if t.apiKey != "" {
		m["ANTHROPIC_AUTH_TOKEN"] = t.apiKey
	}
	return m
}

// applyClaude merges claudeEnv into the settings file, first saving what it
// replaces. Values saved by an earlier connect are kept: they are the
// person's own, not MetaClaw's.
func applyClaude(env *Env, t target, path, undoFile string) error {
	c, err := readClaudeSettings(path)
	if err != nil {
		return err
	}
	var u claudeUndo
	if readJSON(undoFile, &u) != nil {
		u = claudeUndo{SavedAt: time.Now().UTC(), Settings: path, HadEnv: c.hadEnv}
		if c.data != nil {
			u.Backup = filepath.Join(t.connectDir(), "claude-settings.json.orig")
			if err := writeFileAtomic(u.Backup, c.data, 0o600); err != nil {
				return err
			}
		}
	}
	vars := claudeEnv(t)
	names := slices.Sorted(maps.Keys(vars))
	for _, k := range names {
		if !slices.ContainsFunc(u.Env, func(s savedKey) bool { return s.Path == k }) {
			u.Env = append(u.Env, savedKey{Path: k, Present: c.env[k] != nil, Value: c.env[k]})
		}
		c.env[k], _ = json.Marshal(vars[k])
	}
	if err := writeJSON(undoFile, u); err != nil {
		return err
	}
	if err := c.write(true); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "\nWrote %s into %s.\nRestart Claude Code to use MetaClaw. Undo with: metaclaw connect claude-code --undo\n",
		strings.Join(names, " and "), path)
	noteNotRunning(env, t)
	return nil
}

// undoClaude puts back the env values connect replaced, keeping every other
// change made to the settings since.
func undoClaude(env *Env, undoFile string) error {
	var u claudeUndo
	if err := readJSON(undoFile, &u); errors.Is(err, fs.ErrNotExist) {
		return &exitError{code: 1, msg: "nothing to undo: no saved Claude Code settings in " + undoFile}
	} else if err != nil {
		return err
	}
	c, err := readClaudeSettings(u.Settings)
	if err != nil {
		return err
	}
	for _, k := range u.Env {
		if k.Present {
			c.env[k.Path] = k.Value
		} else {
			delete(c.env, k.Path)
		}
	}
	c.hadEnv = u.HadEnv || len(c.env) > 0
	if err := c.write(u.Backup != ""); err != nil {
		return err
	}
	os.Remove(u.Backup)
	if err := os.Remove(undoFile); err != nil {
		return fmt.Errorf("remove undo file: %w", err)
	}
	fmt.Fprintf(env.Stdout, "Restored %s: Claude Code no longer goes through MetaClaw (restart it).\n", u.Settings)
	return nil
}

// claudeSettings is Claude Code's settings file, parsed.
type claudeSettings struct {
	path   string
	data   []byte                     // the file as read; nil when it did not exist
	top    map[string]json.RawMessage // every top-level key, kept as is
	env    map[string]json.RawMessage // the "env" object
	hadEnv bool
}

// readClaudeSettings reads the settings file; a missing file is empty.
func readClaudeSettings(path string) (*claudeSettings, error) {
	c := &claudeSettings{path: path, top: map[string]json.RawMessage{}, env: map[string]json.RawMessage{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	} else if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	c.data = data
	if len(bytes.TrimSpace(data)) > 0 && (json.Unmarshal(data, &c.top) != nil || c.top == nil) {
		return nil, &exitError{code: 1, msg: path + " is not a JSON object; not changed"}
	}
	raw, ok := c.top["env"]
	if c.hadEnv = ok; ok && (json.Unmarshal(raw, &c.env) != nil || c.env == nil) {
		return nil, &exitError{code: 1, msg: path + `: "env" is not an object; not changed`}
	}
	return c, nil
}

// write saves the settings, keeping the file's mode (0600 for a new file).
// An env object that is empty and was not there is left out, and so is the
// whole file when it ends up empty and keepFile is false.
func (c *claudeSettings) write(keepFile bool) error {
	delete(c.top, "env")
	if c.hadEnv || len(c.env) > 0 {
		c.top["env"], _ = json.Marshal(c.env)
	}
	if len(c.top) == 0 && !keepFile {
		if err := os.Remove(c.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	data, err := json.MarshalIndent(c.top, "", "  ")
	if err != nil {
		return err
	}
	mode := fs.FileMode(0o600)
	if fi, err := os.Stat(c.path); err == nil {
		mode = fi.Mode().Perm()
	}
	return writeFileAtomic(c.path, append(data, '\n'), mode)
}

// connectNanoClaw is `metaclaw connect nanoclaw`: NanoClaw is configured
// by its environment, so this prints what to set.
func connectNanoClaw(env *Env, args []string) error {
	fs := newFlags(env, "connect nanoclaw", "[--print]")
	fs.Bool("print", true, "print the environment variables (the only thing this does)")
	if err := parse(fs, args); err != nil {
		return err
	}
	t, err := loadTarget(env)
	if err != nil {
		return err
	}
	printAnthropicEnv(env, t, "NanoClaw")
	fmt.Fprintln(env.Stdout, "Put them in NanoClaw's environment (for example its .env file) and restart it.")
	return nil
}

// printAnthropicEnv prints the variables an Anthropic SDK client reads.
func printAnthropicEnv(env *Env, t target, agent string) {
	fmt.Fprintf(env.Stdout, "To send %s through MetaClaw, set:\n\n  export ANTHROPIC_BASE_URL=%s\n", agent, t.anthropicBase())
	if t.apiKey != "" {
		fmt.Fprintln(env.Stdout, "  export ANTHROPIC_AUTH_TOKEN=...   # the value of proxy.api_key")
	}
	fmt.Fprintln(env.Stdout, "\nNo /v1 at the end: the Anthropic SDK adds /v1/messages itself.")
	if t.apiKey == "" && !t.forwardAuth {
		fmt.Fprintf(env.Stdout, "MetaClaw calls the provider with its own key; if %s insists on one, set ANTHROPIC_AUTH_TOKEN=%s.\n", agent, placeholderKey)
	}
}

// connectPrint is `metaclaw connect print`: everything a client needs.
func connectPrint(env *Env, args []string) error {
	if len(args) > 0 {
		return usageError("usage: metaclaw connect print")
	}
	t, err := loadTarget(env)
	if err != nil {
		return err
	}
	key := "any value, e.g. " + placeholderKey + " (proxy.api_key is not set)"
	if t.apiKey != "" {
		key = "the value of proxy.api_key (Authorization: Bearer, or x-api-key)"
	}
	w := env.Stdout
	fmt.Fprintf(w, "OpenAI-style clients:    base URL %s   (POST /chat/completions)\n", t.openAIBase())
	fmt.Fprintf(w, "Anthropic-style clients: base URL %s   (the SDK adds /v1/messages)\n", t.anthropicBase())
	fmt.Fprintf(w, "API key:                 %s\n", key)
	fmt.Fprintf(w, "Model:                   %s\n", t.model)
	fmt.Fprintln(w, "\nOptional headers that tell MetaClaw who is talking:")
	for _, h := range [][2]string{
		{"X-Session-Id: ID", "groups turns into one session (else derived per client)"},
		{"X-Turn-Type: main|side", "side turns get no skills or memories and are not learned from"},
		{"X-Session-Done: true", "ends the session after this turn"},
		{"X-User-Id: ID", "whose memories to use"},
		{"X-Workspace-Id: ID", "which project's memories to use"},
		{"X-Memory-Scope: NAME", "the memory scope, overriding user and workspace"},
	} {
		fmt.Fprintf(w, "  %-24s %s\n", h[0], h[1])
	}
	return nil
}

// noteNotRunning reminds the person to start MetaClaw when it is not running.
func noteNotRunning(env *Env, t target) {
	if !instance.Held(t.dir) {
		fmt.Fprintln(env.Stdout, "MetaClaw is not running: start it with `metaclaw start`.")
	}
}

// writeJSON writes v as indented JSON to a file private to the user.
func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(path, append(data, '\n'), 0o600)
}

// readJSON reads a JSON file into v.
func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

// writeFileAtomic writes data to path through a temporary file in the same
// directory, so a crash never leaves half a file.
func writeFileAtomic(path string, data []byte, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), mode)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// tail returns the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
