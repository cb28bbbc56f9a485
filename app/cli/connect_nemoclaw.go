package cli

import (
	"bytes"
	"context"

	"errors"
	"flag"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// nemoclawConnector points NemoClaw's sandbox at the proxy through
// OpenShell's inference routing, with OpenShell's own CLI.
//
// Facts (NVIDIA/NemoClaw at commit 04012f7b, 2026-03-21):
//   - bin/lib/onboard.js and scripts/setup.sh register an OpenAI-compatible
//     endpoint with `openshell provider create --name N --type openai
//     --credential OPENAI_API_KEY=K --config OPENAI_BASE_URL=U` (`provider
//     update N --credential ... --config ...` when it exists) and select it
//     with `openshell inference set --no-verify --provider N --model M`;
//     docs/inference/switch-inference-providers.md: the switch "takes effect
//     immediately. No sandbox restart is needed". The sandbox's OpenClaw
//     then speaks OpenAI chat completions through the OpenShell gateway.
//   - bin/lib/local-inference.js: the gateway runs in a container and
//     reaches the host as http://host.openshell.internal; a server bound to
//     127.0.0.1 is unreachable from it ("Ensure Ollama listens on 0.0.0.0").
//   - bin/lib/registry.js: ~/.nemoclaw/sandboxes.json {sandboxes: {name:
//     {provider, model}}, defaultSandbox} records the route onboard set;
//     undo restores that route, then deletes the provider.
//   - uninstall.sh uses `openshell provider delete NAME`.
type nemoclawConnector struct{}

func (*nemoclawConnector) name() string { return "nemoclaw" }
func (*nemoclawConnector) summary() string {
	return "registers OpenShell provider metaclaw and routes NemoClaw's inference to it (openshell)"
}
func (*nemoclawConnector) flags(*flag.FlagSet) {}

// nemoclawUndo is <data dir>/connect/nemoclaw-undo.json.
type nemoclawUndo struct {
	SavedAt  time.Time `json:"saved_at"`
	Provider string    `json:"provider"` // the route before connect, from NemoClaw's registry
	Model    string    `json:"model"`
	BaseURL  string    `json:"base_url"` // what connect set, to see a second run changes nothing
	ModelSet string    `json:"model_set"`
	KeySet   bool      `json:"key_set"`
}

// nemoclawBaseURL is the proxy as OpenShell's gateway container sees it.
func nemoclawBaseURL(t target) string {
	_, port, _ := net.SplitHostPort(t.hostPort)
	return "http://host.openshell.internal:" + port + "/v1"
}

// nemoclawRoute reads the route NemoClaw's registry records for its
// default sandbox.
func nemoclawRoute(home string) (provider, model string) {
	var reg struct {
		Sandboxes map[string]struct {
			Provider string `json:"provider"`
			Model    string `json:"model"`
		} `json:"sandboxes"`
		Default string `json:"defaultSandbox"`
	}
	if readJSON(filepath.Join(home, ".nemoclaw", "sandboxes.json"), &reg) != nil {
		return "", ""
	}
	s, ok := reg.Sandboxes[reg.Default]
	if !ok {
		for _, v := range reg.Sandboxes {
			s = v
			break
		}
	}
	return s.Provider, s.Model
}

// openshellCommands are the commands that point the route at MetaClaw;
// key is the credential (masked for printing).
func openshellCommands(t target, key string) [][]string {
	cred, conf := "OPENAI_API_KEY="+key, "OPENAI_BASE_URL="+nemoclawBaseURL(t)
	return [][]string{
		{"openshell", "provider", "create", "--name", providerID, "--type", "openai", "--credential", cred, "--config", conf},
		{"openshell", "inference", "set", "--no-verify", "--provider", providerID, "--model", t.model},
	}
}

func (c *nemoclawConnector) connect(r *connectRun) (bool, error) {
	var u nemoclawUndo
	err := readJSON(r.undoFile, &u)
	if err == nil && u.BaseURL == nemoclawBaseURL(r.t) && u.ModelSet == r.t.model && u.KeySet == (r.t.apiKey != "") {
		fmt.Fprintln(r.out, "NemoClaw already goes through MetaClaw; nothing changed.")
		return false, nil
	}
	shown := r.t.clientKey()
	if r.t.apiKey != "" {
		shown = masked
	}
	if r.dry {
		for _, cmd := range openshellCommands(r.t, shown) {
			fmt.Fprintf(r.out, "Would run: %s\n", strings.Join(cmd, " "))
		}
		fmt.Fprintf(r.out, "The route before connect would first be saved to %s for --undo.\n", r.undoFile)
		return true, nil
	}
	if lookPath(r.env, "openshell") == "" {
		return false, &errNotInstalled{agent: "NemoClaw", how: "no openshell command on PATH; install NemoClaw (it brings OpenShell)"}
	}
	if errors.Is(err, fs.ErrNotExist) {
		u = nemoclawUndo{SavedAt: time.Now().UTC()}
		u.Provider, u.Model = nemoclawRoute(r.home())
	}
	u.BaseURL, u.ModelSet, u.KeySet = nemoclawBaseURL(r.t), r.t.model, r.t.apiKey != ""
	if err := writeJSON(r.undoFile, u); err != nil {
		return false, err
	}
	cmds := openshellCommands(r.t, r.t.clientKey())
	if _, err := runTool(r.env, cmds[0]...); err != nil {
		update := append([]string{"openshell", "provider", "update", providerID}, cmds[0][7:]...)
		if _, err := runTool(r.env, update...); err != nil {
			return false, err
		}
	}
	if _, err := runTool(r.env, cmds[1]...); err != nil {
		return false, err
	}
	fmt.Fprintf(r.out, "NemoClaw's inference now goes to MetaClaw at %s (model %s). Undo with: metaclaw connect nemoclaw --undo\n", nemoclawBaseURL(r.t), r.t.model)
	if h, _, _ := net.SplitHostPort(r.t.hostPort); h == "127.0.0.1" || h == "::1" {
		fmt.Fprintln(r.out, "note: OpenShell's gateway runs in a container and cannot reach 127.0.0.1 on the host: set proxy.host to an address containers reach (and proxy.api_key), then restart MetaClaw.")
	}
	return true, nil
}

func (c *nemoclawConnector) undo(r *connectRun) error {
	var u nemoclawUndo
	if err := readJSON(r.undoFile, &u); errors.Is(err, fs.ErrNotExist) {
		return nothingToUndo("nemoclaw", r.undoFile)
	} else if err != nil {
		return err
	}
	var cmds [][]string
	if u.Provider != "" && u.Model != "" {
		cmds = append(cmds, []string{"openshell", "inference", "set", "--no-verify", "--provider", u.Provider, "--model", u.Model})
	} else {
		fmt.Fprintln(r.out, "note: NemoClaw's registry recorded no route before connect; set one with `openshell inference set --provider P --model M`.")
	}
	cmds = append(cmds, []string{"openshell", "provider", "delete", providerID})
	for _, cmd := range cmds {
		if r.dry {
			fmt.Fprintf(r.out, "Would run: %s\n", strings.Join(cmd, " "))
			continue
		}
		if _, err := runTool(r.env, cmd...); err != nil {
			return fmt.Errorf("%w (the saved route stays in %s)", err, r.undoFile)
		}
	}
	if r.dry {
		return nil
	}
	if err := os.Remove(r.undoFile); err != nil {
		return fmt.Errorf("remove undo file: %w", err)
	}
	fmt.Fprintln(r.out, "NemoClaw no longer goes through MetaClaw.")
	return nil
}

// runTool runs an agent's command found on env's PATH and returns its
// output; an error names the command (never its arguments, which may
// hold a key) and ends with the tail of its output.
func runTool(env *Env, args ...string) (string, error) {
	return runToolTimeout(env, openclawTimeout, args...)
}

// runToolTimeout is runTool with its own time limit.
func runToolTimeout(env *Env, timeout time.Duration, args ...string) (string, error) {
	bin := lookPath(env, args[0])
	if bin == "" {
		return "", fmt.Errorf("%s is not on PATH", args[0])
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args[1:]...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%s %s: %v: %s", args[0], strings.Join(args[1:min(3, len(args))], " "), err, strings.TrimSpace(tail(out.String(), 600)))
	}
	return out.String(), nil
}
