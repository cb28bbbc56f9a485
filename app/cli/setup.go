package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/metaclaw/metaclaw/app/learner"
	"github.com/metaclaw/metaclaw/store/config"
	"golang.org/x/term"
)

type setupFlags struct {
	provider, model, apiBase, apiKeyEnv, apiKeyFile, mode, rlKeyEnv string
	clawType                                                        string
	port                                                            int
	yes, noTest                                                     bool
}

func runSetup(env *Env, args []string) error {
	fs := newFlags(env, "setup", "[flags]   (no flags: interactive)")
	var f setupFlags
	fs.StringVar(&f.provider, "provider", "", "provider preset: "+presetNames())
	fs.StringVar(&f.model, "model", "", "model id (default: the preset's)")
	fs.StringVar(&f.apiBase, "api-base", "", "base URL (default: the preset's; required for custom)")
	fs.StringVar(&f.apiKeyEnv, "api-key-env", "", "read the provider API key from this environment variable")
	fs.StringVar(&f.apiKeyFile, "api-key-file", "", "read the provider API key from this file")
	fs.StringVar(&f.mode, "mode", "", "madmax, rl or skills_only")
	fs.StringVar(&f.rlKeyEnv, "rl-api-key-env", "", "read the Tinker-compatible training key from this environment variable")
	fs.IntVar(&f.port, "port", 0, "proxy port")
	fs.StringVar(&f.clawType, "claw-type", "", "the agent `metaclaw start` points at the proxy: "+clawTypes())
	fs.BoolVar(&f.yes, "non-interactive", false, "never prompt; use flags and defaults")
	fs.BoolVar(&f.noTest, "no-test", false, "do not test the connection to the provider")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError("setup: unexpected argument %q", fs.Arg(0))
	}
	db, _, cur, err := loadConfig()
	if err != nil {
		return err
	}
	db.Close()
	var changes map[string]string
	if f.provider != "" || f.yes {
		changes, err = setupFromFlags(env, f, cur)
	} else {
		changes, err = setupInteractive(env, cur)
	}
	if err != nil {
		return err
	}
	if err := saveChanges(env, changes); err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, "\nSaved.")
	if !f.noTest {
		testSavedConnection(env)
	}
	fmt.Fprintln(env.Stdout, "Next: `metaclaw start` (or `metaclaw start --daemon`), then point your agent at the proxy.")
	return nil
}

// clawTypes lists the values claw_type accepts.
func clawTypes() string {
	f, _ := config.Lookup("claw_type")
	return strings.Join(f.Enum, ", ")
}

// testSavedConnection asks the saved provider for its models (or one
// token) and says whether it answered and, if not, what failed. A failed
// test changes nothing: the settings are saved.
func testSavedConnection(env *Env) {
	db, _, cfg, err := loadConfig()
	if err != nil {
		return
	}
	db.Close()
	fmt.Fprintf(env.Stdout, "Testing the connection to %s ... ", cfg.LLM.APIBase)
	if err := learner.TestConnection(context.Background(), cfg); err != nil {
		fmt.Fprintf(env.Stdout, "FAILED: %v\nFix it with `metaclaw setup` or `metaclaw config set llm.api_key ...`; MetaClaw shows the provider's failures in `metaclaw status`.\n", err)
		return
	}
	fmt.Fprintln(env.Stdout, "the provider answered.")
}

func presetNames() string {
	var names []string
	for _, p := range config.Presets {
		names = append(names, p.Name)
	}
	return strings.Join(names, ", ")
}

func setupFromFlags(env *Env, f setupFlags, cur config.Config) (map[string]string, error) {
	provider := f.provider
	if provider == "" {
		provider = cur.LLM.Provider
	}
	p, ok := config.PresetByName(provider)
	if !ok {
		return nil, &exitError{code: 1, msg: fmt.Sprintf("setup --provider: %q is not a preset; allowed: %s", provider, presetNames())}
	}
	ch := map[string]string{"llm.provider": p.Name, "llm.api_base": first(f.apiBase, p.APIBase), "llm.model_id": first(f.model, p.Model)}
	if p.Name == "custom" && (f.apiBase == "" || f.model == "") {
		return nil, &exitError{code: 1, msg: "setup --provider custom needs --api-base URL and --model ID"}
	}
	key, err := readKey(env, f.apiKeyEnv, f.apiKeyFile)
	if err != nil {
		return nil, err
	}
	if key != "" {
		ch["llm.api_key"] = key
	}
	if f.mode != "" {
		ch["mode"] = f.mode
	}
	if f.port != 0 {
		ch["proxy.port"] = strconv.Itoa(f.port)
	}
	if f.clawType != "" {
		ch["claw_type"] = f.clawType
	}
	if f.rlKeyEnv != "" {
		rk, err := readKey(env, f.rlKeyEnv, "")
		if err != nil {
			return nil, err
		}
		ch["rl.api_key"] = rk
	}
	return ch, nil
}

func readKey(env *Env, envName, file string) (string, error) {
	switch {
	case envName != "":
		v := strings.TrimSpace(env.getenv(envName))
		if v == "" {
			return "", &exitError{code: 1, msg: fmt.Sprintf("setup: environment variable %s is empty or not set", envName)}
		}
		return v, nil
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return "", &exitError{code: 1, msg: fmt.Sprintf("setup: read key file: %v", err)}
		}
		return strings.TrimSpace(string(b)), nil
	}
	return "", nil
}

func first(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// prompter asks questions on the terminal (or whatever stdin is).
type prompter struct {
	env *Env
	in  *bufio.Reader
}

var errCancelled = &exitError{code: 1, msg: "setup cancelled; nothing saved"}

func (p *prompter) ask(question, def string) (string, error) {
	if def != "" {
		fmt.Fprintf(p.env.Stdout, "%s [%s]: ", question, def)
	} else {
		fmt.Fprintf(p.env.Stdout, "%s: ", question)
	}
	line, err := p.in.ReadString('\n')
	if err != nil && (line == "" || !errors.Is(err, io.EOF)) {
		fmt.Fprintln(p.env.Stdout)
		return "", errCancelled
	}
	if v := strings.TrimSpace(line); v != "" {
		return v, nil
	}
	return def, nil
}

// askValid asks until the answer is valid for key.
func (p *prompter) askValid(question, key, def string) (string, error) {
	for {
		v, err := p.ask(question, def)
		if err != nil {
			return "", err
		}
		if _, norm, err := config.Normalize(key, v); err == nil {
			return norm, nil
		} else {
			fmt.Fprintln(p.env.Stdout, "  ", err)
		}
	}
}

// askSecret reads a secret without echo when stdin is a terminal.
func (p *prompter) askSecret(question string, isSet bool) (string, error) {
	hint := "input hidden"
	if isSet {
		hint += "; Enter keeps the current one"
	}
	fmt.Fprintf(p.env.Stdout, "%s (%s): ", question, hint)
	if f, ok := p.env.Stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(p.env.Stdout)
		if err != nil {
			return "", errCancelled
		}
		return strings.TrimSpace(string(b)), nil
	}
	line, err := p.in.ReadString('\n')
	if err != nil && line == "" {
		return "", errCancelled
	}
	return strings.TrimSpace(line), nil
}

func setupInteractive(env *Env, cur config.Config) (map[string]string, error) {
	p := &prompter{env: env, in: bufio.NewReader(env.Stdin)}
	fmt.Fprintln(env.Stdout, "MetaClaw setup. Press Enter to keep the value in brackets.\n\nProviders:")
	for i, pr := range config.Presets {
		fmt.Fprintf(env.Stdout, "  %d) %-11s %s\n", i+1, pr.Name, pr.Label)
	}
	preset, err := askPreset(p, cur.LLM.Provider)
	if err != nil {
		return nil, err
	}
	ch := map[string]string{"llm.provider": preset.Name}
	base, model := preset.APIBase, preset.Model
	if preset.Name == cur.LLM.Provider {
		base, model = cur.LLM.APIBase, cur.LLM.ModelID
	}
	if ch["llm.api_base"], err = p.askValid("Base URL", "llm.api_base", base); err != nil {
		return nil, err
	}
	if ch["llm.model_id"], err = p.askValid("Model", "llm.model_id", model); err != nil {
		return nil, err
	}
	return askRest(p, cur, ch)
}

func askPreset(p *prompter, current string) (config.Preset, error) {
	for {
		v, err := p.ask("Provider (number or name)", current)
		if err != nil {
			return config.Preset{}, err
		}
		if n, err := strconv.Atoi(v); err == nil && n >= 1 && n <= len(config.Presets) {
			return config.Presets[n-1], nil
		}
		if pr, ok := config.PresetByName(strings.ToLower(v)); ok {
			return pr, nil
		}
		fmt.Fprintf(p.env.Stdout, "   %q is not one of: %s\n", v, presetNames())
	}
}

func askRest(p *prompter, cur config.Config, ch map[string]string) (map[string]string, error) {
	key, err := p.askSecret("API key", cur.LLM.APIKey != "")
	if err != nil {
		return nil, err
	}
	if key != "" {
		ch["llm.api_key"] = key
	}
	if ch["mode"], err = p.askValid("Mode (madmax, rl, skills_only)", "mode", cur.Mode); err != nil {
		return nil, err
	}
	if ch["mode"] != config.ModeSkillsOnly {
		rk, err := p.askSecret("Tinker-compatible training key for RL (Enter to skip: runs as skills_only until set)", cur.RL.APIKey != "")
		if err != nil {
			return nil, err
		}
		if rk != "" {
			ch["rl.api_key"] = rk
		}
	}
	if ch["proxy.port"], err = p.askValid("Proxy port", "proxy.port", strconv.Itoa(cur.Proxy.Port)); err != nil {
		return nil, err
	}
	q := "Your agent, which `metaclaw start` points at MetaClaw (" + clawTypes() + ")"
	if ch["claw_type"], err = p.askValid(q, "claw_type", cur.ClawType); err != nil {
		return nil, err
	}
	return ch, nil
}
