package cli

import (
	"flag"
	"os"
	"path/filepath"
)

// copawConnector points CoPaw (now QwenPaw; both commands are installed)
// at the proxy's OpenAI endpoint: a custom provider file of its own and
// the active model.
//
// Facts (agentscope-ai/CoPaw at commit 9a11bf58, 2026-05-22):
//   - src/qwenpaw/constant.py: the working dir is $QWENPAW_WORKING_DIR
//     (or the legacy $COPAW_WORKING_DIR), else ~/.copaw when it exists,
//     else ~/.qwenpaw; the secret dir is $QWENPAW_SECRET_DIR (or
//     $COPAW_SECRET_DIR), else "<working dir>.secret".
//   - src/qwenpaw/providers/provider_manager.py: custom providers are
//     <secret dir>/providers/custom/<id>.json, one ProviderInfo each; the
//     global default model is <secret dir>/providers/active_model.json =
//     ModelSlotConfig {provider_id, model} (src/qwenpaw/config/config.py);
//     a plaintext api_key is accepted and encrypted on a later save.
//   - src/qwenpaw/providers/provider.py: ProviderInfo {id, name, base_url,
//     api_key, chat_model (default "OpenAIChatModel", the OpenAI
//     chat-completions client), models: [ModelInfo {id, name, max_tokens,
//     max_input_length (the context window; "controls when context
//     compaction is triggered", at least 1000)}], is_custom,
//     require_api_key}.
//   - website/public/docs/models.en.md: "changes to the configuration
//     files require restarting QwenPaw"; src/qwenpaw/cli/daemon_cmd.py has
//     `daemon restart`; pyproject.toml installs both `qwenpaw` and `copaw`.
type copawConnector struct{}

func (*copawConnector) name() string { return "copaw" }
func (*copawConnector) summary() string {
	return "adds provider metaclaw (providers/custom/metaclaw.json) and makes it CoPaw's active model"
}
func (*copawConnector) flags(*flag.FlagSet) {}

// copawSecretDir is CoPaw's secret directory.
func copawSecretDir(r *connectRun) (dir string, installed bool) {
	env := func(k string) string { return first(r.env.getenv("QWENPAW_"+k), r.env.getenv("COPAW_"+k)) }
	if d := env("SECRET_DIR"); d != "" {
		return d, true
	}
	work := env("WORKING_DIR")
	if work == "" {
		work = filepath.Join(r.home(), ".copaw")
		if _, err := os.Stat(work); err != nil {
			work = filepath.Join(r.home(), ".qwenpaw")
		}
	}
	_, err := os.Stat(work)
	return work + ".secret", err == nil
}

func (c *copawConnector) edits(r *connectRun) ([]fileEdit, error) {
	dir, installed := copawSecretDir(r)
	if !installed && lookPath(r.env, "copaw") == "" && lookPath(r.env, "qwenpaw") == "" {
		return nil, &errNotInstalled{agent: "CoPaw", how: "no copaw or qwenpaw command and no ~/.copaw or ~/.qwenpaw; install it with: pip install copaw"}
	}
	model := map[string]any{"id": r.t.model, "name": r.t.model + " via MetaClaw",
		"max_tokens": min(openclawMaxTokens, max(1, r.t.contextWindow/4)), "max_input_length": max(1000, r.t.contextWindow)}
	provider := []setting{
		{key: []string{"id"}, value: providerID},
		{key: []string{"name"}, value: "MetaClaw"},
		{key: []string{"base_url"}, value: r.t.openAIBase()},
		{key: []string{"api_key"}, value: r.t.clientKey(), secret: true},
		{key: []string{"chat_model"}, value: "OpenAIChatModel"},
		{key: []string{"models"}, value: []any{model}},
		{key: []string{"is_custom"}, value: true},
		{key: []string{"require_api_key"}, value: false},
	}
	providers := filepath.Join(dir, "providers")
	return []fileEdit{
		{path: filepath.Join(providers, "custom", providerID+".json"), format: jsonFormat{}, settings: provider, owned: true},
		{path: filepath.Join(providers, "active_model.json"), format: jsonFormat{}, settings: []setting{
			{key: []string{"provider_id"}, value: providerID}, {key: []string{"model"}, value: r.t.model}}},
	}, nil
}

func (c *copawConnector) connect(r *connectRun) (bool, error) {
	edits, err := c.edits(r)
	if err != nil {
		return false, err
	}
	changed, err := applyFiles(r, c.name(), edits, nil)
	if err == nil && changed {
		cmd := []string{"copaw", "daemon", "restart"}
		if lookPath(r.env, "copaw") == "" {
			cmd[0] = "qwenpaw"
		}
		restartAgent(r, cmd, "Restart CoPaw (copaw daemon restart, or restart `copaw app`) to use MetaClaw.")
	}
	return changed, err
}

func (c *copawConnector) undo(r *connectRun) error { return undoFiles(r, c.name()) }
