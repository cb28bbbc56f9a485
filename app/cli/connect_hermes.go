package cli

import (
	"flag"
	"os"
	"path/filepath"
)

// hermesConnector points Hermes Agent (NousResearch) at the proxy's OpenAI
// endpoint through the model block of its config.yaml.
//
// Facts (NousResearch/hermes-agent):
//   - hermes_constants.py (commit 00067189) get_hermes_home: $HERMES_HOME,
//     else ~/.hermes on Linux and macOS.
//   - website/docs/integrations/providers.md (commit 01747edb), "Custom &
//     Self-Hosted LLM Providers": any endpoint serving /v1/chat/completions
//     is configured in ~/.hermes/config.yaml as model: {default: <model>,
//     provider: custom, base_url: http://host:port/v1, api_key: ...};
//     context_length sets the window Hermes plans with; OPENAI_BASE_URL
//     and LLM_MODEL in .env are no longer read ("config.yaml is the single
//     source of truth").
//   - `hermes gateway restart` restarts the messaging gateway so it reads
//     the new config (printed by hermes_cli after updates, and in its
//     plugin docs); a CLI session reads config.yaml when it starts.
type hermesConnector struct{}

func (*hermesConnector) name() string { return "hermes" }
func (*hermesConnector) summary() string {
	return "sets model.provider custom and model.base_url in ~/.hermes/config.yaml"
}
func (*hermesConnector) flags(*flag.FlagSet) {}

func hermesHome(r *connectRun) string {
	if d := r.env.getenv("HERMES_HOME"); d != "" {
		return d
	}
	return filepath.Join(r.home(), ".hermes")
}

func (c *hermesConnector) edits(r *connectRun) ([]fileEdit, error) {
	home := hermesHome(r)
	if _, err := os.Stat(home); err != nil && lookPath(r.env, "hermes") == "" {
		return nil, &errNotInstalled{agent: "Hermes Agent", how: "no hermes command and no " + home}
	}
	s := []setting{
		{key: []string{"model", "provider"}, value: "custom"},
		{key: []string{"model", "base_url"}, value: r.t.openAIBase()},
		{key: []string{"model", "default"}, value: r.t.model},
		{key: []string{"model", "api_key"}, value: r.t.clientKey(), secret: true},
		{key: []string{"model", "context_length"}, value: r.t.contextWindow},
	}
	return []fileEdit{{path: filepath.Join(home, "config.yaml"), format: yamlFormat{}, settings: s}}, nil
}

func (c *hermesConnector) connect(r *connectRun) (bool, error) {
	edits, err := c.edits(r)
	if err != nil {
		return false, err
	}
	changed, err := applyFiles(r, c.name(), edits, nil)
	if err == nil && changed {
		restartAgent(r, []string{"hermes", "gateway", "restart"}, "Restart Hermes (hermes gateway restart; new `hermes` sessions read the change) to use MetaClaw.")
	}
	return changed, err
}

func (c *hermesConnector) undo(r *connectRun) error { return undoFiles(r, c.name()) }
