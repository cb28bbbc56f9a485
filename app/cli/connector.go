package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// connector points one agent at the proxy and gives the agent its own
// settings back. One file per agent implements it (connect_<agent>.go),
// with the facts it relies on and their sources in its comments.
type connector interface {
	// name is the agent's name on the command line and in claw_type.
	name() string
	// summary says in a few words what connect changes, for the help.
	summary() string
	// flags registers the agent's own flags.
	flags(fs *flag.FlagSet)
	// connect points the agent at the proxy: it saves what it replaces
	// the first time, changes nothing when the agent already points at
	// the proxy (changed false), and with r.dry only prints the change.
	connect(r *connectRun) (changed bool, err error)
	// undo restores what connect saved; with r.dry it only prints.
	undo(r *connectRun) error
}

// connectors are the agents `metaclaw connect` knows, in the seeds' order.
func connectors() []connector {
	return []connector{
		&openclawConnector{}, &copawConnector{}, &ironclawConnector{}, &picoclawConnector{},
		&zeroclawConnector{}, &nanoclawConnector{}, &nemoclawConnector{}, &hermesConnector{},
		&claudeConnector{},
	}
}

// findConnector returns the connector called name.
func findConnector(name string) connector {
	for _, c := range connectors() {
		if c.name() == name {
			return c
		}
	}
	return nil
}

// connectRun is one run of connect or undo for one agent.
type connectRun struct {
	env *Env
	t   target
	out io.Writer
	// dry prints the change instead of making it.
	dry bool
	// auto is set when `metaclaw start` runs connect for claw_type: an
	// agent that is not installed is a note, not an error.
	auto bool
	// undoFile is where connect keeps what it replaced.
	undoFile string
}

// newConnectRun prepares a run for agent.
func newConnectRun(env *Env, t target, agent string) *connectRun {
	return &connectRun{env: env, t: t, out: env.Stdout, undoFile: filepath.Join(t.connectDir(), agent+"-undo.json")}
}

// home is the person's home directory.
func (r *connectRun) home() string {
	if h := r.env.getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// errNotInstalled says an agent is not on this machine.
type errNotInstalled struct{ agent, how string }

func (e *errNotInstalled) Error() string {
	return fmt.Sprintf("%s does not seem to be installed here (%s)", e.agent, e.how)
}

// runConnect points an agent at the proxy: `metaclaw connect AGENT`.
func runConnect(env *Env, args []string) error {
	if len(args) == 0 {
		return usageError("usage: metaclaw connect %s", connectUsage())
	}
	if args[0] == "print" {
		return connectPrint(env, args[1:])
	}
	c := findConnector(args[0])
	if c == nil {
		return usageError("connect: unknown agent %q; usage: metaclaw connect %s", args[0], connectUsage())
	}
	fs := newFlags(env, "connect "+c.name(), "[--dry-run] [--undo] [flags]")
	dry := fs.Bool("dry-run", false, "print exactly what would change, change nothing")
	undo := fs.Bool("undo", false, "restore the agent's own settings saved by the first connect")
	c.flags(fs)
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError("connect %s: unexpected argument %q", c.name(), fs.Arg(0))
	}
	t, err := loadTarget(env)
	if err != nil {
		return err
	}
	r := newConnectRun(env, t, c.name())
	r.dry = *dry
	if *undo {
		return c.undo(r)
	}
	_, err = c.connect(r)
	var ni *errNotInstalled
	if errors.As(err, &ni) {
		return &exitError{code: 1, msg: "connect " + c.name() + ": " + ni.Error()}
	}
	return err
}

// connectUsage lists the agents for usage messages.
func connectUsage() string {
	return strings.ReplaceAll(connectNames(), ", ", "|") + " [--dry-run] [--undo] | print"
}

// connectNames lists the agents connect knows.
func connectNames() string {
	var names []string
	for _, c := range connectors() {
		names = append(names, c.name())
	}
	return strings.Join(names, ", ")
}

// nothingToUndo is the answer of an undo with no saved settings.
func nothingToUndo(agent, file string) error {
	return &exitError{code: 1, msg: fmt.Sprintf("nothing to undo: connect has not changed %s (no %s)", agent, file)}
}
