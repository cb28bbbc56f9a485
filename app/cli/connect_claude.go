package cli

import (
	"flag"
	"fmt"
	"path/filepath"
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
// speaks the Anthropic Messages API (streaming). It has no setting for the
// context window of a custom endpoint, so connect tells it none.
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
	return []fileEdit{{path: claudeSettingsPath(r), format: jsonFormat{}, settings: s}}
}

func (c *claudeConnector) connect(r *connectRun) (bool, error) {
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

func (c *claudeConnector) undo(r *connectRun) error { return undoFiles(r, "claude-code") }
