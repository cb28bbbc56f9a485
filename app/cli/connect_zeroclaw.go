package cli

import (
	"flag"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/BurntSushi/toml"
)

// zeroclawConnector points ZeroClaw at the proxy's OpenAI endpoint: a
// provider alias of its own under the `custom` slot, and every agent's
// model_provider set to it.
//
// Facts (zeroclaw-labs/zeroclaw at commit 15d28660, 2026-08-22):
//   - crates/zeroclaw-config/src/schema.rs: config.toml lives in
//     $ZEROCLAW_CONFIG_DIR, else $HOME/.zeroclaw (default_config_dir);
//     `schema_version` is top-level and crates/zeroclaw-config/src/
//     migration.rs has CURRENT_SCHEMA_VERSION = 3 (older files are
//     migrated on load, so connect edits only version 3 files);
//     ModelProviderConfig has api_key, uri, model, ...;
//     CustomModelProviderConfig (prefix providers.models.custom) is one;
//     agents are [agents.<alias>] tables with model_provider = the dotted
//     "<type>.<alias>" of a [providers.models.<type>.<alias>] entry.
//   - docs/book/src/providers/custom.md: "If the service speaks OpenAI
//     chat-completions, this is a config-only change. The custom slot
//     requires uri"; custom defaults to the chat-completions wire.
//   - crates/zeroclaw-providers/src/compatible.rs chat_completions_url:
//     "/chat/completions" is appended to uri unless it ends with it, so
//     uri is the proxy's /v1 base.
//   - docs/book/src/providers/configuration.md: inline api_key = "..." is
//     accepted. src/lib.rs ServiceCommands has Restart (`zeroclaw service
//     restart`); a direct config.toml edit takes effect "after a daemon
//     reload or process restart" (docs/book/src/channels/telegram.md).
//   - No context-window setting was found for a provider alias, so connect
//     tells ZeroClaw none.
type zeroclawConnector struct{}

// zeroclawSchema is the config schema version connect edits.
const zeroclawSchema = 3

func (*zeroclawConnector) name() string { return "zeroclaw" }
func (*zeroclawConnector) summary() string {
	return "adds [providers.models.custom.metaclaw] to ~/.zeroclaw/config.toml and points every agent at it"
}
func (*zeroclawConnector) flags(*flag.FlagSet) {}

func zeroclawPath(r *connectRun) string {
	if d := r.env.getenv("ZEROCLAW_CONFIG_DIR"); d != "" {
		return filepath.Join(d, "config.toml")
	}
	return filepath.Join(r.home(), ".zeroclaw", "config.toml")
}

// zeroclawAgents reads the schema version and agent aliases of a config.
func zeroclawAgents(data []byte) (schema int64, agents []string, err error) {
	var cfg struct {
		SchemaVersion int64                     `toml:"schema_version"`
		Agents        map[string]toml.Primitive `toml:"agents"`
	}
	if _, err := toml.Decode(string(data), &cfg); err != nil {
		return 0, nil, err
	}
	for a := range cfg.Agents {
		agents = append(agents, a)
	}
	sort.Strings(agents)
	return cfg.SchemaVersion, agents, nil
}

func (c *zeroclawConnector) edits(r *connectRun) ([]fileEdit, error) {
	path := zeroclawPath(r)
	data, existed, err := readAgentFile(path)
	if err != nil {
		return nil, err
	}
	if !existed {
		return nil, &errNotInstalled{agent: "ZeroClaw", how: "no " + path + "; set it up first with: zeroclaw quickstart"}
	}
	schema, agents, err := zeroclawAgents(data)
	if err != nil {
		return nil, &exitError{code: 1, msg: fmt.Sprintf("%s is not valid TOML (%v); not changed", path, err)}
	}
	if schema != zeroclawSchema {
		return nil, &exitError{code: 1, msg: fmt.Sprintf("%s has schema_version %d; connect edits version %d: run `zeroclaw config migrate` first", path, schema, zeroclawSchema)}
	}
	if len(agents) == 0 {
		return nil, &exitError{code: 1, msg: path + " has no [agents.<alias>]; create one with `zeroclaw quickstart`, then connect again"}
	}
	alias := []string{"providers", "models", "custom", providerID}
	s := []setting{
		{key: append(alias[:4:4], "uri"), value: r.t.openAIBase()},
		{key: append(alias[:4:4], "model"), value: r.t.model},
		{key: append(alias[:4:4], "api_key"), value: r.t.clientKey(), secret: true},
	}
	for _, a := range agents {
		s = append(s, setting{key: []string{"agents", a, "model_provider"}, value: "custom." + providerID})
	}
	return []fileEdit{{path: path, format: tomlFormat{}, settings: s}}, nil
}

func (c *zeroclawConnector) connect(r *connectRun) (bool, error) {
	edits, err := c.edits(r)
	if err != nil {
		return false, err
	}
	changed, err := applyFiles(r, c.name(), edits, nil)
	if err == nil && changed {
		restartAgent(r, []string{"zeroclaw", "service", "restart"}, "Restart ZeroClaw (zeroclaw service restart, or restart `zeroclaw daemon`) to use MetaClaw.")
	}
	return changed, err
}

func (c *zeroclawConnector) undo(r *connectRun) error { return undoFiles(r, c.name()) }
