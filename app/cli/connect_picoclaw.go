package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

// picoclawConnector points PicoClaw at the proxy's OpenAI endpoint with a
// model_list entry of its own, made the default model.
//
// Facts (sipeed/picoclaw at commit cf67dd38, 2026-06-13):
//   - docs/guides/configuration.md: the config is ~/.picoclaw/config.json,
//     or the file $PICOCLAW_CONFIG names ($PICOCLAW_HOME moves the
//     workspace, not the config); a model_list entry with "provider":
//     "openai", "model" sent unchanged and "api_base" reaches any
//     OpenAI-compatible endpoint ("Custom Proxy / LiteLLM"), over
//     /v1/chat/completions; keys may sit in api_keys in config.json.
//   - pkg/config/config.go: Config {version, agents, model_list, ...};
//     ModelConfig {model_name, provider, model, api_base, api_keys,
//     enabled}; AgentDefaults {model_name (the default model's
//     model_name), context_window, ...}; CurrentVersion = 3, and
//     LoadConfig migrates a file with an older or missing "version" (so
//     connect writes version 3 into a new file and refuses an older one).
//   - cmd/picoclaw/internal/gateway/command.go: `picoclaw gateway` runs in
//     the foreground and has no restart subcommand, so connect asks the
//     person to restart it.
type picoclawConnector struct{}

// picoclawVersion is the config schema connect writes (CurrentVersion).
const picoclawVersion = 3

func (*picoclawConnector) name() string { return "picoclaw" }
func (*picoclawConnector) summary() string {
	return "adds model_list entry metaclaw to ~/.picoclaw/config.json and makes it the default"
}
func (*picoclawConnector) flags(*flag.FlagSet) {}

func picoclawPath(r *connectRun) string {
	if p := r.env.getenv("PICOCLAW_CONFIG"); p != "" {
		return p
	}
	return filepath.Join(r.home(), ".picoclaw", "config.json")
}

func (c *picoclawConnector) edits(r *connectRun) ([]fileEdit, error) {
	path := picoclawPath(r)
	data, existed, err := readAgentFile(path)
	if err != nil {
		return nil, err
	}
	if !existed && lookPath(r.env, "picoclaw") == "" {
		if _, err := os.Stat(filepath.Dir(path)); err != nil {
			return nil, &errNotInstalled{agent: "PicoClaw", how: "no picoclaw command and no " + path}
		}
	}
	var head struct {
		Version *int `json:"version"`
	}
	if existed && json.Unmarshal(data, &head) == nil && (head.Version == nil || *head.Version != picoclawVersion) {
		v := 0
		if head.Version != nil {
			v = *head.Version
		}
		return nil, &exitError{code: 1, msg: fmt.Sprintf("%s has config version %d; connect writes version %d: run picoclaw once so it migrates the file, then connect again", path, v, picoclawVersion)}
	}
	entry := map[string]any{"model_name": providerID, "provider": "openai", "model": r.t.model,
		"api_base": r.t.openAIBase(), "api_keys": []string{r.t.clientKey()}, "enabled": true}
	s := []setting{
		{key: []string{"version"}, value: picoclawVersion},
		{key: []string{"model_list", "model_name=" + providerID}, value: entry, secret: r.t.apiKey != ""},
		{key: []string{"agents", "defaults", "model_name"}, value: providerID},
		{key: []string{"agents", "defaults", "context_window"}, value: r.t.contextWindow},
	}
	return []fileEdit{{path: path, format: jsonFormat{}, settings: s}}, nil
}

func (c *picoclawConnector) connect(r *connectRun) (bool, error) {
	edits, err := c.edits(r)
	if err != nil {
		return false, err
	}
	changed, err := applyFiles(r, c.name(), edits, nil)
	if err == nil && changed && !r.dry {
		fmt.Fprintln(r.out, "Restart `picoclaw gateway` (and any running `picoclaw agent`) to use MetaClaw.")
	}
	return changed, err
}

func (c *picoclawConnector) undo(r *connectRun) error { return undoFiles(r, c.name()) }
