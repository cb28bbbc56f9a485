package cli

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

// ironclawConnector points IronClaw at the proxy's OpenAI endpoint through
// the [llm.default] model slot of its config.toml.
//
// Facts (nearai/ironclaw at commit 01ded0ec, 2026-08-22):
//   - docs/capabilities/configuration.mdx: everything lives under
//     ~/.ironclaw/reborn ($IRONCLAW_REBORN_HOME overrides it); the file is
//     <home>/config.toml; [llm.default] is edited in config.toml directly
//     (`ironclaw config set` refuses it); secrets are never in config.toml
//     but named by api_key_env, and a secret pasted there fails to load;
//     "to apply: ironclaw service restart".
//   - docs/capabilities/llm-providers.md: `openai_compatible` is the
//     provider for "any compatible host", needs base_url (e.g.
//     "http://localhost:8000/v1"), and takes model and api_key_env =
//     "LLM_API_KEY"; it speaks OpenAI chat completions.
//   - crates/app/ironclaw_cli/src/commands/onboard/llm_credentials.rs: the
//     installed service inherits only IRONCLAW_REBORN_HOME, not the shell,
//     so a key must be in IronClaw's encrypted store (`ironclaw config set
//     openai_compatible.api_key`, which only prompts) to reach it.
//   - Not established: whether openai_compatible works with LLM_API_KEY
//     unset, and any context-window key for a slot; connect sets neither
//     and says how to store a key when proxy.api_key is set.
//   - The older IronClaw (v0) read LLM_BACKEND/LLM_BASE_URL/... from
//     ~/.ironclaw/.env; its docs call that form a fallback used only when
//     [llm.default] is not configured, so connect writes the slot.
type ironclawConnector struct{}

func (*ironclawConnector) name() string { return "ironclaw" }
func (*ironclawConnector) summary() string {
	return "points [llm.default] in ~/.ironclaw/reborn/config.toml at MetaClaw (openai_compatible)"
}
func (*ironclawConnector) flags(*flag.FlagSet) {}

func ironclawPath(r *connectRun) string {
	if d := r.env.getenv("IRONCLAW_REBORN_HOME"); d != "" {
		return filepath.Join(d, "config.toml")
	}
	return filepath.Join(r.home(), ".ironclaw", "reborn", "config.toml")
}

func (c *ironclawConnector) edits(r *connectRun) ([]fileEdit, error) {
	path := ironclawPath(r)
	if _, err := os.Stat(filepath.Dir(path)); err != nil && lookPath(r.env, "ironclaw") == "" {
		return nil, &errNotInstalled{agent: "IronClaw", how: "no ironclaw command and no " + filepath.Dir(path)}
	}
	slot := []string{"llm", "default"}
	s := []setting{
		{key: append(slot[:2:2], "provider_id"), value: "openai_compatible"},
		{key: append(slot[:2:2], "base_url"), value: r.t.openAIBase()},
		{key: append(slot[:2:2], "model"), value: r.t.model},
		{key: append(slot[:2:2], "api_key_env"), value: "LLM_API_KEY"},
	}
	return []fileEdit{{path: path, format: tomlFormat{}, settings: s}}, nil
}

func (c *ironclawConnector) connect(r *connectRun) (bool, error) {
	edits, err := c.edits(r)
	if err != nil {
		return false, err
	}
	changed, err := applyFiles(r, c.name(), edits, nil)
	if err != nil || !changed {
		return changed, err
	}
	if r.t.apiKey != "" && !r.dry {
		fmt.Fprintln(r.out, "proxy.api_key is set: store it in IronClaw with `ironclaw config set openai_compatible.api_key` (it prompts).")
	}
	restartAgent(r, []string{"ironclaw", "service", "restart"}, "Restart IronClaw (ironclaw service restart, or restart `ironclaw serve`) to use MetaClaw.")
	return true, nil
}

func (c *ironclawConnector) undo(r *connectRun) error { return undoFiles(r, c.name()) }
