package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

const (
	// openclawProvider is the id of the provider connect adds to OpenClaw.
	openclawProvider = providerID
	// openclawMaxTokens is the most tokens OpenClaw asks for in one reply.
	openclawMaxTokens = 8192
	// redactedSentinel is what `openclaw config get` shows instead of a secret.
	redactedSentinel = "__OPENCLAW_REDACTED__"
	// openclawTimeout bounds one run of the OpenClaw CLI.
	openclawTimeout = 3 * time.Minute
)

// openclawKeys are the OpenClaw config paths connect changes, in the order
// they are applied; --undo restores them in reverse order.
var openclawKeys = []string{"models.providers." + openclawProvider, "agents.defaults.model"}

// savedKey is the value a setting had before connect changed it.
type savedKey struct {
	Path    string          `json:"path"`
	Present bool            `json:"present"`
	Value   json.RawMessage `json:"value,omitempty"`
}

// openclawUndo is the content of <data dir>/connect/openclaw-undo.json.
type openclawUndo struct {
	SavedAt time.Time  `json:"saved_at"`
	Keys    []savedKey `json:"keys"`
}

// batchOp is one entry of an `openclaw config set --batch-file` file.
type batchOp struct {
	Path  string `json:"path"`
	Value any    `json:"value"`
}

// ocModel is a model of an OpenClaw provider.
type ocModel struct {
	ID            string         `json:"id"`
	Name          string         `json:"name"`
	Reasoning     bool           `json:"reasoning"`
	Input         []string       `json:"input"`
	Cost          map[string]int `json:"cost"`
	ContextWindow int            `json:"contextWindow"`
	MaxTokens     int            `json:"maxTokens"`
}

// ocProvider is an entry of OpenClaw's models.providers.
type ocProvider struct {
	API     string    `json:"api"`
	BaseURL string    `json:"baseUrl"`
	APIKey  string    `json:"apiKey"`
	Models  []ocModel `json:"models"`
}

// openclawBatch is the change connect makes to OpenClaw's config; with mask
// a proxy key is replaced by asterisks for printing.
func openclawBatch(t target, mask bool) []batchOp {
	key := t.clientKey()
	if mask && t.apiKey != "" {
		key = masked
	}
	m := ocModel{ID: t.model, Name: t.model + " via MetaClaw", Input: []string{"text"},
		Cost:          map[string]int{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
		ContextWindow: t.contextWindow, MaxTokens: min(openclawMaxTokens, max(1, t.contextWindow/4))}
	return []batchOp{
		{Path: openclawKeys[0], Value: ocProvider{API: "openai-completions", BaseURL: t.openAIBase(), APIKey: key, Models: []ocModel{m}}},
		{Path: "agents.defaults.model.primary", Value: openclawProvider + "/" + t.model},
	}
}

// openclawConnector points OpenClaw at the proxy through OpenClaw's own
// CLI, which validates and migrates its config file itself.
//
// Facts (observed with openclaw@2026.9.6 from npm, shared/reference/
// openclaw-client.md; `openclaw config --help`, `openclaw gateway restart
// --help`): `openclaw config set --batch-file F --replace` applies
// [{path, value}] in one write; `config get PATH --json` prints the value,
// with secrets shown as __OPENCLAW_REDACTED__, or {"ok":false,...
// "unset"...} when the path is not set; `config file` prints the config
// file's path; `config unset PATH`; `gateway restart` restarts the gateway
// service so it reads the new config. A provider is models.providers.<id>
// = {api: "openai-completions", baseUrl, apiKey, models: [{id, name,
// reasoning, input, cost, contextWindow, maxTokens}]} and
// agents.defaults.model.primary = "<id>/<model>" selects it. OpenClaw
// speaks the OpenAI chat-completions API to it (always streaming).
type openclawConnector struct{ bin string }

func (*openclawConnector) name() string { return "openclaw" }
func (*openclawConnector) summary() string {
	return "adds provider metaclaw to OpenClaw's config and makes it the default model (openclaw config set)"
}
func (c *openclawConnector) flags(fs *flag.FlagSet) {
	fs.StringVar(&c.bin, "openclaw", "", "the openclaw command (default: openclaw on PATH)")
}

func (c *openclawConnector) connect(r *connectRun) (bool, error) {
	if r.dry {
		return true, printOpenClawPlan(r.env, r.t, r.undoFile)
	}
	oc, err := findOpenClaw(r.env, c.bin)
	if err != nil {
		return false, err
	}
	changed, err := applyOpenClaw(r.env, oc, r.t, r.undoFile)
	if err != nil || !changed {
		return changed, err
	}
	if _, err := oc.run("gateway", "restart"); err != nil {
		fmt.Fprintf(r.out, "note: could not restart OpenClaw's gateway (%v); restart it yourself if it runs: openclaw gateway restart\n", firstLine(err.Error()))
	} else {
		fmt.Fprintln(r.out, "Restarted OpenClaw's gateway.")
	}
	return true, nil
}

func (c *openclawConnector) undo(r *connectRun) error {
	var oc openClaw
	if !r.dry {
		var err error
		if oc, err = findOpenClaw(r.env, c.bin); err != nil {
			return err
		}
	}
	return undoOpenClaw(r.env, oc, r.t, r.undoFile, r.dry)
}

// firstLine is the first line of s.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// printOpenClawPlan prints the batch connect would apply, key masked.
func printOpenClawPlan(env *Env, t target, undoFile string) error {
	data, err := json.MarshalIndent(openclawBatch(t, true), "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Would run: openclaw config set --batch-file FILE --replace\nwith FILE:\n%s\n", data)
	fmt.Fprintf(env.Stdout, "\nThe current values of %s would first be saved to %s for --undo.\n", strings.Join(openclawKeys, " and "), undoFile)
	return nil
}

// applyOpenClaw saves the current OpenClaw settings (unless an earlier
// connect saved them) and points OpenClaw at the proxy. It changes nothing
// when OpenClaw already has exactly MetaClaw's provider and default model.
func applyOpenClaw(env *Env, oc openClaw, t target, undoFile string) (bool, error) {
	batch := openclawBatch(t, false)
	if _, err := os.Stat(undoFile); err == nil {
		if oc.has(env, batch) {
			fmt.Fprintln(env.Stdout, "OpenClaw already goes through MetaClaw; nothing changed.")
			return false, nil
		}
		fmt.Fprintf(env.Stdout, "Keeping the OpenClaw settings saved by the first connect (%s).\n", undoFile)
	} else {
		keys, err := captureOpenClaw(env, oc)
		if err != nil {
			return false, err
		}
		if err := writeJSON(undoFile, openclawUndo{SavedAt: time.Now().UTC(), Keys: keys}); err != nil {
			return false, err
		}
		fmt.Fprintf(env.Stdout, "Saved the current OpenClaw settings to %s.\n", undoFile)
	}
	if err := oc.setBatch(t.connectDir(), batch); err != nil {
		return false, err
	}
	fmt.Fprintf(env.Stdout, "OpenClaw now uses MetaClaw: provider %q at %s, default model %s/%s.\n", openclawProvider, t.openAIBase(), openclawProvider, t.model)
	if t.forwardAuth && t.apiKey == "" {
		fmt.Fprintf(env.Stdout, "proxy.forward_client_auth is on: put your provider key in OpenClaw with\n  openclaw config set models.providers.%s.apiKey YOUR_KEY\n", openclawProvider)
	}
	fmt.Fprintln(env.Stdout, "Undo with: metaclaw connect openclaw --undo")
	noteNotRunning(env, t)
	return true, nil
}

// has reports whether OpenClaw's config already holds every op of batch
// (the provider's hidden key read from the file).
func (o openClaw) has(env *Env, batch []batchOp) bool {
	for _, op := range batch {
		v, ok, err := o.get(op.Path)
		if err != nil || !ok {
			return false
		}
		if bytes.Contains(v, []byte(redactedSentinel)) {
			v = o.authored(env, op.Path, v)
		}
		want, _ := json.Marshal(op.Value)
		if !sameJSON(v, want) {
			return false
		}
	}
	return true
}

// captureOpenClaw reads the current value of every key connect changes.
func captureOpenClaw(env *Env, oc openClaw) ([]savedKey, error) {
	var keys []savedKey
	for _, p := range openclawKeys {
		v, ok, err := oc.get(p)
		if err != nil {
			return nil, err
		}
		if ok && bytes.Contains(v, []byte(redactedSentinel)) {
			v = oc.authored(env, p, v)
		}
		keys = append(keys, savedKey{Path: p, Present: ok, Value: v})
	}
	return keys, nil
}

// undoOpenClaw restores the saved settings, newest change first, and
// removes the undo file; with dry it only says what it would do.
func undoOpenClaw(env *Env, oc openClaw, t target, undoFile string, dry bool) error {
	var u openclawUndo
	err := readJSON(undoFile, &u)
	if errors.Is(err, fs.ErrNotExist) {
		return &exitError{code: 1, msg: "nothing to undo: no saved OpenClaw settings in " + undoFile}
	} else if err != nil {
		return err
	}
	for i := len(u.Keys) - 1; i >= 0; i-- {
		k := u.Keys[i]
		switch {
		case dry:
		case k.Present:
			err = oc.setBatch(t.connectDir(), []batchOp{{Path: k.Path, Value: k.Value}})
		default:
			err = oc.unset(t.connectDir(), k.Path)
		}
		if err != nil {
			return fmt.Errorf("restore %s (the saved settings stay in %s): %w", k.Path, undoFile, err)
		}
		fmt.Fprintln(env.Stdout, restoreMessage(k, dry))
	}
	if dry {
		return nil
	}
	if err := os.Remove(undoFile); err != nil {
		return fmt.Errorf("remove undo file: %w", err)
	}
	fmt.Fprintln(env.Stdout, "OpenClaw no longer goes through MetaClaw.")
	return nil
}

// restoreMessage says what undo did (or, with dry, would do) to k.
func restoreMessage(k savedKey, dry bool) string {
	verb, how := "Removed", "(it was not set before connect)"
	if k.Present {
		verb, how = "Restored", "to its value from before connect"
	}
	if dry {
		verb = "Would " + strings.ToLower(strings.TrimSuffix(verb, "d"))
	}
	return verb + " " + k.Path + " " + how + "."
}

// openClaw runs the OpenClaw CLI.
type openClaw struct{ bin string }

// findOpenClaw returns the openclaw command: bin when given, else openclaw
// on the PATH.
func findOpenClaw(env *Env, bin string) (openClaw, error) {
	if bin != "" {
		if _, err := os.Stat(bin); err != nil {
			return openClaw{}, &exitError{code: 1, msg: fmt.Sprintf("connect openclaw: %v", err)}
		}
		return openClaw{bin: bin}, nil
	}
	if p := lookPath(env, "openclaw"); p != "" {
		return openClaw{bin: p}, nil
	}
	return openClaw{}, &exitError{code: 1, msg: "connect openclaw: the openclaw command is not on PATH.\n" +
		"  Install OpenClaw (it needs Node.js 24 or newer): npm install -g openclaw\n" +
		"  or name it with: metaclaw connect openclaw --openclaw /path/to/openclaw"}
}

// run runs openclaw with args and returns its standard output. An error
// names the command and ends with the tail of its standard error.
func (o openClaw) run(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), openclawTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, o.bin, args...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "FORCE_COLOR=0")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("timed out after %v", openclawTimeout)
		}
		msg := strings.TrimSpace(tail(stderr.String(), 1500))
		return stdout.String(), fmt.Errorf("openclaw %s: %v: %s", strings.Join(args[:min(2, len(args))], " "), err, msg)
	}
	return stdout.String(), nil
}

// get returns the JSON value at path in OpenClaw's config, or ok false when
// the path is not set.
func (o openClaw) get(path string) (v json.RawMessage, ok bool, err error) {
	out, err := o.run("config", "get", path, "--json")
	if err != nil {
		var failure struct {
			OK    *bool `json:"ok"`
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal([]byte(out), &failure) == nil && failure.OK != nil && !*failure.OK &&
			strings.Contains(failure.Error.Message, "unset") {
			return nil, false, nil
		}
		return nil, false, err
	}
	v = json.RawMessage(strings.TrimSpace(out))
	if !json.Valid(v) {
		return nil, false, fmt.Errorf("openclaw config get %s: the output is not JSON: %.200q", path, out)
	}
	return v, true, nil
}

// authored returns the value at path as written in OpenClaw's config file,
// which, unlike `config get`, shows secrets. When the file cannot be read as
// JSON it warns and returns redacted.
func (o openClaw) authored(env *Env, path string, redacted json.RawMessage) json.RawMessage {
	if out, err := o.run("config", "file"); err == nil {
		if v, ok := jsonAt(strings.TrimSpace(out), path); ok {
			return v
		}
	}
	fmt.Fprintf(env.Stderr, "warning: OpenClaw hides the secrets in %s; --undo will restore it without them\n", path)
	return redacted
}

// jsonAt returns the value at a dotted path in a JSON file.
func jsonAt(file, path string) (json.RawMessage, bool) {
	cur, err := os.ReadFile(file)
	if err != nil {
		return nil, false
	}
	for _, part := range strings.Split(path, ".") {
		var m map[string]json.RawMessage
		if json.Unmarshal(cur, &m) != nil || m[part] == nil {
			return nil, false
		}
		cur = m[part]
	}
	return cur, true
}

// setBatch applies ops in one `openclaw config set --batch-file` call. The
// batch file holds the proxy key, so it is private to the user and removed
// afterwards.
func (o openClaw) setBatch(dir string, ops []batchOp) error {
	f := filepath.Join(dir, "openclaw-batch.json")
	if err := writeJSON(f, ops); err != nil {
		return err
	}
	defer os.Remove(f)
	_, err := o.run("config", "set", "--batch-file", f, "--replace")
	return err
}

// unset removes path from OpenClaw's config; a path that is not there is
// fine.
func (o openClaw) unset(dir, path string) error {
	_, err := o.run("config", "unset", path)
	if err == nil || strings.Contains(err.Error(), "path not found") {
		return nil
	}
	if !strings.Contains(err.Error(), "size-drop") || !strings.HasPrefix(path, "models.providers.") {
		return err
	}
	// OpenClaw refuses a write that halves its config file (a guard against
	// clobbering). In a small config the provider is most of the file, so
	// shrink it first by emptying its model list.
	if err := o.setBatch(dir, []batchOp{{Path: path + ".models", Value: []any{}}}); err != nil {
		return err
	}
	_, err = o.run("config", "unset", path)
	return err
}
