package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/metaclaw/metaclaw/app/instance"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

const configUsage = `show [--json] | get KEY | set KEY VALUE [KEY VALUE ...] | unset KEY ... |
                 import FILE [--strict] | export [--include-secrets] [-o FILE]`

func openDB() (*store.DB, string, error) {
	dir, err := home()
	if err != nil {
		return nil, "", err
	}
	db, err := store.Open(filepath.Join(dir, instance.DBName))
	return db, dir, err
}

func runConfig(env *Env, args []string) error {
	if len(args) == 0 {
		return usageError("usage: metaclaw config %s", configUsage)
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "show":
		return configShow(env, rest)
	case "get":
		return configGet(env, rest)
	case "set":
		return configSet(env, rest)
	case "unset":
		return configUnset(env, rest)
	case "import":
		return configImport(env, rest)
	case "export":
		return configExport(env, rest)
	}
	if _, ok := config.Lookup(sub); ok && len(rest) == 1 {
		return configSet(env, args) // the reference's `metaclaw config KEY VALUE`
	}
	return usageError("config: unknown subcommand %q; usage: metaclaw config %s", sub, configUsage)
}

func loadConfig() (*store.DB, string, config.Config, error) {
	db, dir, err := openDB()
	if err != nil {
		return nil, "", config.Config{}, err
	}
	c, _, err := config.Load(context.Background(), db)
	if err != nil {
		db.Close()
		return nil, "", c, err
	}
	return db, dir, c, nil
}

func configShow(env *Env, args []string) error {
	fs := newFlags(env, "config show", "[--json]")
	asJSON := fs.Bool("json", false, "print JSON (secrets masked)")
	if err := parse(fs, args); err != nil {
		return err
	}
	db, _, c, err := loadConfig()
	if err != nil {
		return err
	}
	defer db.Close()
	if *asJSON {
		out := map[string]string{}
		for _, f := range config.Fields() {
			out[f.Key], _ = c.Display(f.Key)
		}
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	group := "-"
	for _, f := range config.Fields() {
		if f.Group != group {
			group = f.Group
			if group != "" {
				fmt.Fprintf(env.Stdout, "\n[%s]\n", group)
			}
		}
		v, _ := c.Display(f.Key)
		if f.Secret && v == "" {
			v = "(not set)"
		}
		fmt.Fprintf(env.Stdout, "%-38s = %s\n", f.Key, v)
	}
	return nil
}

// keysHelp prints the usage of a config subcommand whose arguments are keys
// when they ask for help instead (`metaclaw config get --help`).
func keysHelp(env *Env, args []string, usage string) bool {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		fmt.Fprintln(env.Stdout, "Usage: metaclaw config "+usage)
		return true
	}
	return false
}

func configGet(env *Env, args []string) error {
	if keysHelp(env, args, "get KEY") {
		return nil
	}
	if len(args) != 1 {
		return usageError("usage: metaclaw config get KEY")
	}
	db, _, c, err := loadConfig()
	if err != nil {
		return err
	}
	defer db.Close()
	v, err := c.Display(args[0])
	if err != nil {
		return &exitError{code: 1, msg: err.Error()}
	}
	fmt.Fprintln(env.Stdout, v)
	return nil
}

func configSet(env *Env, args []string) error {
	if keysHelp(env, args, "set KEY VALUE [KEY VALUE ...]") {
		return nil
	}
	if len(args) == 0 || len(args)%2 != 0 {
		return usageError("usage: metaclaw config set KEY VALUE [KEY VALUE ...]")
	}
	changes := map[string]string{}
	for i := 0; i < len(args); i += 2 {
		changes[args[i]] = args[i+1]
	}
	return saveChanges(env, changes)
}

// saveChanges validates and saves all changes, or none, and tells a
// running MetaClaw's person to restart it.
func saveChanges(env *Env, changes map[string]string) error {
	db, dir, err := openDB()
	if err != nil {
		return err
	}
	defer db.Close()
	c, err := config.Save(context.Background(), db, changes)
	var errs config.Errors
	if errors.As(err, &errs) {
		return &exitError{code: 1, msg: "configuration not changed:\n" + indent(errs.Error(), "  ")}
	}
	if err != nil {
		return err
	}
	for _, k := range sortedKeys(changes) {
		f, _ := config.Lookup(k)
		v, _ := c.Display(f.Key)
		fmt.Fprintf(env.Stdout, "%s = %s\n", f.Key, v)
	}
	noteRestart(env, dir)
	return nil
}

func noteRestart(env *Env, dir string) {
	if instance.Held(dir) {
		fmt.Fprintln(env.Stderr, "note: MetaClaw is running; restart it to apply (metaclaw stop && metaclaw start)")
	}
}

func configUnset(env *Env, args []string) error {
	if keysHelp(env, args, "unset KEY ...") {
		return nil
	}
	if len(args) == 0 {
		return usageError("usage: metaclaw config unset KEY ...")
	}
	db, dir, err := openDB()
	if err != nil {
		return err
	}
	defer db.Close()
	if err := config.Reset(context.Background(), db, args); err != nil {
		return &exitError{code: 1, msg: "configuration not changed: " + err.Error()}
	}
	fmt.Fprintf(env.Stdout, "reset to default: %s\n", strings.Join(args, ", "))
	noteRestart(env, dir)
	return nil
}

func configImport(env *Env, args []string) error {
	fs := newFlags(env, "config import", "FILE [--strict]")
	strict := fs.Bool("strict", false, "refuse the file if it names keys MetaClaw does not know")
	if err := parse(fs, reorder(fs, args)); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError("usage: metaclaw config import FILE [--strict]")
	}
	data, err := os.ReadFile(fs.Arg(0))
	if err != nil {
		return &exitError{code: 1, msg: fmt.Sprintf("read %s: %v", fs.Arg(0), err)}
	}
	changes, unknown, err := config.ParseYAML(data)
	if err != nil {
		return &exitError{code: 1, msg: fmt.Sprintf("%s not imported:\n%s", fs.Arg(0), indent(err.Error(), "  "))}
	}
	if len(unknown) > 0 {
		fmt.Fprintf(env.Stderr, "unknown keys in %s (not imported):\n%s\n", fs.Arg(0), indent(strings.Join(unknown, "\n"), "  "))
		if *strict {
			return &exitError{code: 1, msg: "nothing imported (--strict)"}
		}
	}
	return saveChanges(env, changes)
}

// reorder moves flags (with their values) before positional arguments, so
// `import FILE --strict` parses like `import --strict FILE`.
func reorder(fs *flag.FlagSet, args []string) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			pos = append(pos, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		if f := fs.Lookup(name); f != nil && !isBool(f) && i+1 < len(args) {
			i++
			flags = append(flags, args[i])
		}
	}
	return append(flags, pos...)
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

func configExport(env *Env, args []string) error {
	fs := newFlags(env, "config export", "[--include-secrets] [-o FILE]")
	secrets := fs.Bool("include-secrets", false, "include API keys (only with -o; the file is created with mode 0600)")
	out := fs.String("o", "", "write to FILE instead of standard output")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *secrets && *out == "" {
		return usageError("config export: --include-secrets needs -o FILE (secrets are never printed)")
	}
	db, _, c, err := loadConfig()
	if err != nil {
		return err
	}
	defer db.Close()
	data, err := c.YAML(*secrets)
	if err != nil {
		return err
	}
	if *out == "" {
		_, err := env.Stdout.Write(data)
		return err
	}
	if err := os.WriteFile(*out, data, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", *out, err)
	}
	return os.Chmod(*out, 0o600)
}

func sortedKeys(m map[string]string) []string {
	var ks []string
	for _, f := range config.Fields() {
		for k := range m {
			if g, _ := config.Lookup(k); g.Key == f.Key {
				ks = append(ks, k)
			}
		}
	}
	return ks
}
