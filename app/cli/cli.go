// Package cli is the metaclaw command line: setup, start, stop, status and
// config. It parses arguments, talks to a person on a terminal, and drives
// app. app/cmd/metaclaw is a thin main around Main.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/metaclaw/metaclaw/app/instance"
)

// Env is the process environment a command runs in; tests substitute it.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Version        string
	// Getenv reads environment variables (os.Getenv when nil).
	Getenv func(string) string
}

func (e *Env) getenv(k string) string {
	if e.Getenv != nil {
		return e.Getenv(k)
	}
	return os.Getenv(k)
}

// exitError carries an exit code with a message already printed or to print.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// usageError reports bad arguments (exit code 2).
func usageError(format string, args ...any) error {
	return &exitError{code: 2, msg: fmt.Sprintf(format, args...)}
}

type command struct {
	name, args, help string
	run              func(env *Env, args []string) error
}

func commands() []command {
	return []command{
		{"setup", "[--provider P --model M --api-key-env NAME ...]", "configure the provider, model, key, mode and port", runSetup},
		{"start", "[--mode M] [--port N] [--daemon] [--log-file F] [--no-tray] [--wechat-relogin]", "start MetaClaw and point claw_type's agent at it (foreground unless --daemon)", runStart},
		{"stop", "[--timeout D]", "stop the running MetaClaw", runStop},
		{"status", "[--json]", "show whether MetaClaw is running, and where", runStatus},
		{"config", "show|get|set|unset|import|export ...", "read and change the configuration", runConfig},
		{"pause", "", "pause learning (the proxy keeps serving)", runPause},
		{"resume", "", "resume learning", runResume},
		{"train-step", "[--port N] [--timeout D]", "have the running MetaClaw train one step now", runTrainStep},
		{"skills", "list|show|search|import|export|enable|disable|delete|revert|sync ...", "manage the skill library", runSkills},
		{"memory", "list|search|show|add|edit|pin|forget|export|import|scopes ...", "manage long-term memory", runMemory},
		{"autostart", "on|off|status", "start MetaClaw when you log in, or stop doing so", runAutostart},
		{"scheduler", "status|next-window [--json]", "show the training window (madmax): open or shut, why, until when", runScheduler},
		{"calendar", "connect|disconnect|status", "connect Google Calendar so meetings open training windows", runCalendar},
		{"open", "[--print]", "open the web page logged in (--print: print the one-time login URL)", runOpen},
		{"connect", "AGENT [--dry-run] [--undo] | print", "point an agent at the proxy (" + connectNames() + "), or print how to", runConnect},
		{"bench", "run DIR [--arms A,B] [--days N] [--out FILE] | show", "measure on a benchmark whether learning helps your model", runBench},
		{"migrate", "[--from DIR]", "bring over the Python MetaClaw's config.yaml, skills and memories (~/.metaclaw)", runMigrate},
		{"version", "", "print the version", runVersion},
	}
}

// Main runs the command line and returns the process exit code. With no
// arguments it starts MetaClaw with its tray, as a double-click does.
func Main(args []string, env *Env) int {
	if stop := startProfile(env); stop != nil {
		defer stop()
	}
	err := dispatch(args, env)
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(env.Stderr, "metaclaw:", ee.msg)
		}
		return ee.code
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintln(env.Stderr, "metaclaw:", err)
	return 1
}

func dispatch(args []string, env *Env) error {
	if len(args) == 0 {
		return runStart(env, []string{"--tray"})
	}
	switch args[0] {
	case "-h", "--help", "help":
		usage(env.Stdout)
		return nil
	case "-v", "--version":
		return runVersion(env, nil)
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(env, args[1:])
		}
	}
	usage(env.Stderr)
	return usageError("unknown command %q", args[0])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "MetaClaw: your agent learns from every conversation.")
	fmt.Fprintln(w, "\nUsage: metaclaw <command> [flags]   (no command: start with the tray)")
	fmt.Fprintln(w, "\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %-55s %s\n", c.name, c.args, c.help)
	}
	fmt.Fprintln(w, "\nData directory: ~/.metaclaw (set METACLAW_HOME to use another).")
}

func runVersion(env *Env, _ []string) error {
	fmt.Fprintln(env.Stdout, "metaclaw", env.Version)
	return nil
}

// newFlags returns a flag set that prints its usage to env.Stderr and
// returns errors instead of exiting.
func newFlags(env *Env, name, args string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(env.Stderr, "Usage: metaclaw %s %s\n", name, args)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses flags, turning a parse failure into a usage error.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return &exitError{code: 2}
	}
	return nil
}

func home() (string, error) { return instance.Home() }

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix)
}
