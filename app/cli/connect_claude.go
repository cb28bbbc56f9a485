package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"time"
)

// claudeConnector points Claude Code at the proxy's Anthropic endpoint by
// writing environment variables into the env object of its user settings.
//
// Facts (Claude Code docs, https://code.claude.com/docs/en/env-vars and
// https://code.claude.com/docs/en/settings): settings.json's "env" object
// sets environment variables for every session, over the shell's;
// ANTHROPIC_BASE_URL overrides the API endpoint (the SDK appends
// /v1/messages, so no /v1 in it); ANTHROPIC_AUTH_TOKEN is sent as
// "Authorization: Bearer <value>"; the user settings file is
// ~/.claude/settings.json, or $CLAUDE_CONFIG_DIR/settings.json. Claude Code
// speaks the Anthropic Messages API (streaming).
// CLAUDE_CODE_AUTO_COMPACT_WINDOW is the context capacity auto-compaction
// counts against (capped at the model's own window); connect sets it to the
// window MetaClaw cuts at, when it cuts at all.
type claudeConnector struct{ printOnly bool }

func (*claudeConnector) name() string { return "claude-code" }
func (*claudeConnector) summary() string {
	return "sets ANTHROPIC_BASE_URL (and ANTHROPIC_AUTH_TOKEN) in ~/.claude/settings.json"
}
func (c *claudeConnector) flags(fs *flag.FlagSet) {
	fs.BoolVar(&c.printOnly, "print", false, "only print the environment variables; change no file")
}

// claudeSettingsPath is Claude Code's user settings file.
func claudeSettingsPath(r *connectRun) string {
	if d := r.env.getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Join(d, "settings.json")
	}
	return filepath.Join(r.home(), ".claude", "settings.json")
}

// claudeEdits is what connect writes into Claude Code's settings.
func claudeEdits(r *connectRun) []fileEdit {
	s := []setting{{key: []string{"env", "ANTHROPIC_BASE_URL"}, value: r.t.anthropicBase()}}
	if r.t.apiKey != "" {
		s = append(s, setting{key: []string{"env", "ANTHROPIC_AUTH_TOKEN"}, value: r.t.apiKey, secret: true})
	}
	if r.t.cutLimit > 0 {
		// Claude Code compacts against this window, before MetaClaw would cut.
		s = append(s, setting{key: []string{"env", "CLAUDE_CODE_AUTO_COMPACT_WINDOW"}, value: strconv.Itoa(r.t.contextWindow)})
	}
	return []fileEdit{{path: claudeSettingsPath(r), format: jsonFormat{}, settings: s}}
}

func (c *claudeConnector) connect(r *connectRun) (bool, error) {
	if err := migrateClaudeUndo(r); err != nil {
		return false, err
	}
	if c.printOnly {
		printAnthropicEnv(r.env, r.t, "Claude Code")
		return false, nil
	}
	if r.auto && lookPath(r.env, "claude") == "" {
		return false, &errNotInstalled{agent: "Claude Code", how: "no claude command on PATH"}
	}
	changed, err := applyFiles(r, c.name(), claudeEdits(r), nil)
	if err != nil || !changed || r.dry {
		return changed, err
	}
	fmt.Fprintln(r.out, "Start a new Claude Code session to use MetaClaw.")
	noteNotRunning(r.env, r.t)
	return true, nil
}

func (c *claudeConnector) undo(r *connectRun) error {
	if err := migrateClaudeUndo(r); err != nil {
		return err
	}
	return undoFiles(r, "claude-code")
}

// legacyClaudeUndo is the undo record of the first connect claude-code,
// which wrote only env keys.
type legacyClaudeUndo struct {
	SavedAt  time.Time `json:"saved_at"`
	Settings string    `json:"settings"`
	Backup   string    `json:"backup"`
	HadEnv   bool      `json:"had_env"`
	Env      []struct {
		Path    string          `json:"path"`
		Present bool            `json:"present"`
		Value   json.RawMessage `json:"value"`
	} `json:"env"`
}

// migrateClaudeUndo rewrites an undo record of the earlier format, so the
// settings it saved are restored, not lost.
func migrateClaudeUndo(r *connectRun) error {
	var old legacyClaudeUndo
	if readJSON(r.undoFile, &old) != nil || old.Settings == "" {
		return nil
	}
	f := savedFile{Path: old.Settings, Format: jsonFormat{}.name(), Existed: old.Backup != "", Backup: old.Backup}
	for _, k := range old.Env {
		parents := 0
		if old.HadEnv {
			parents = 1
		}
		f.Keys = append(f.Keys, savedSetting{Key: []string{"env", k.Path}, Present: k.Present, Value: k.Value,
			Secret: k.Path == "ANTHROPIC_AUTH_TOKEN", Parents: parents})
	}
	return writeJSON(r.undoFile, filesUndo{Agent: "claude-code", SavedAt: old.SavedAt, Files: []savedFile{f}})
}
