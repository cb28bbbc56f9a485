package cli

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/metaclaw/metaclaw/app/instance"
	"github.com/metaclaw/metaclaw/store/config"
)

const (
	// placeholderKey is the key clients send when the proxy takes any key.
	placeholderKey = "metaclaw"
	// masked stands for a secret in printed output.
	masked = "********"
	// providerID is the name connect gives MetaClaw among an agent's
	// providers.
	providerID = "metaclaw"
)

// target is what an agent needs to reach the proxy.
type target struct {
	dir           string // MetaClaw's data directory
	hostPort      string // the proxy's address as clients dial it
	apiKey        string // proxy.api_key; empty when the proxy takes any key
	model         string
	contextWindow int // announced to the agent (config.Config.AgentWindow)
	cutLimit      int // the prompt tokens MetaClaw cuts at; 0 when it never cuts
	forwardAuth   bool
}

// loadTarget reads the proxy's address, key and model from the
// configuration, and warns when a running MetaClaw listens elsewhere.
func loadTarget(env *Env) (target, error) {
	db, dir, cfg, err := loadConfig()
	if err != nil {
		return target{}, err
	}
	db.Close()
	t := newTarget(dir, cfg)
	info, err := instance.ReadInfo(dir)
	if err == nil && instance.Held(dir) && !strings.HasSuffix(info.ProxyURL, ":"+strconv.Itoa(cfg.Proxy.Port)) {
		fmt.Fprintf(env.Stderr, "note: the running MetaClaw listens on %s, not on the configured port %d; agents are pointed at the configured port\n", info.ProxyURL, cfg.Proxy.Port)
	}
	return t, nil
}

// newTarget is the proxy as the configuration describes it.
func newTarget(dir string, cfg config.Config) target {
	host := cfg.Proxy.Host
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	t := target{dir: dir, hostPort: net.JoinHostPort(host, strconv.Itoa(cfg.Proxy.Port)), apiKey: cfg.Proxy.APIKey,
		model: cfg.LLM.ModelID, forwardAuth: cfg.Proxy.ForwardClientAuth}
	t.contextWindow, t.cutLimit = agentWindow(dir, cfg)
	return t
}

// openAIBase is the base URL for OpenAI-style clients, anthropicBase for
// Anthropic SDK clients (which add /v1/messages themselves).
func (t target) openAIBase() string    { return "http://" + t.hostPort + "/v1" }
func (t target) anthropicBase() string { return "http://" + t.hostPort }

// clientKey is the key an agent sends to the proxy.
func (t target) clientKey() string { return first(t.apiKey, placeholderKey) }

// connectDir holds the undo files and backups of connect.
func (t target) connectDir() string { return filepath.Join(t.dir, "connect") }

// lookPath finds an executable named name in env's PATH, or returns "".
func lookPath(env *Env, name string) string {
	names := []string{name}
	if runtime.GOOS == "windows" {
		names = []string{name + ".cmd", name + ".exe", name + ".bat"}
	}
	for _, dir := range filepath.SplitList(env.getenv("PATH")) {
		for _, n := range names {
			p := filepath.Join(dir, n)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && (runtime.GOOS == "windows" || fi.Mode()&0o111 != 0) {
				return p
			}
		}
	}
	return ""
}

// printAnthropicEnv prints the variables an Anthropic SDK client reads.
func printAnthropicEnv(env *Env, t target, agent string) {
	fmt.Fprintf(env.Stdout, "To send %s through MetaClaw, set:\n\n  export ANTHROPIC_BASE_URL=%s\n", agent, t.anthropicBase())
	if t.apiKey != "" {
		fmt.Fprintln(env.Stdout, "  export ANTHROPIC_AUTH_TOKEN=...   # the value of proxy.api_key")
	}
	if t.cutLimit > 0 {
		fmt.Fprintf(env.Stdout, "  export CLAUDE_CODE_AUTO_COMPACT_WINDOW=%d   # MetaClaw cuts history past %d tokens\n", t.contextWindow, t.cutLimit)
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
