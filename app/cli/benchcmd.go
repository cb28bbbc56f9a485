package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/metaclaw/metaclaw/app/bench"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

const benchUsage = "run DIR [--arms A,B] [--days N] [--out FILE] [--agent builtin|openclaw] [--work DIR] [--fresh] | show [ID] [--json]"

// runBench is `metaclaw bench`: run a benchmark arm by arm (run), or print
// a stored report (show).
func runBench(env *Env, args []string) error {
	if len(args) == 0 {
		return usageError("usage: metaclaw bench %s", benchUsage)
	}
	switch args[0] {
	case "run":
		return benchRun(env, args[1:])
	case "show":
		return benchShow(env, args[1:])
	}
	return usageError("unknown bench command %q; usage: metaclaw bench %s", args[0], benchUsage)
}

// benchFlags are the flags of `bench run`.
type benchFlags struct {
	arms, out, agent, openclaw, work string
	days, maxSteps                   int
	fresh, allowNetwork, quiet       bool
	execTimeout                      time.Duration
}

func parseBenchRun(env *Env, args []string) (benchFlags, string, error) {
	var f benchFlags
	fs := newFlags(env, "bench run", "DIR [flags]")
	fs.StringVar(&f.arms, "arms", "", "arms to run, in order (default base,skills,skills+memory, and full when rl.api_key is set)")
	fs.IntVar(&f.days, "days", 0, "run only the first N days (0: all)")
	fs.StringVar(&f.out, "out", "", "write the report as JSON to FILE (rewritten after every day)")
	fs.StringVar(&f.agent, "agent", bench.AgentBuiltin, "the agent: builtin (a tool loop on the OpenAI API) or openclaw")
	fs.StringVar(&f.openclaw, "openclaw", "", "the openclaw command for --agent openclaw (default: openclaw on PATH)")
	fs.StringVar(&f.work, "work", "", "work folder: state, workspaces, arm data (default <data dir>/bench/<benchmark>)")
	fs.BoolVar(&f.fresh, "fresh", false, "start over instead of resuming the work folder's run")
	fs.IntVar(&f.maxSteps, "max-steps", bench.DefaultMaxSteps, "model calls per message of the built-in agent")
	fs.DurationVar(&f.execTimeout, "exec-timeout", 60*time.Second, "time limit of each command the built-in agent runs")
	fs.BoolVar(&f.allowNetwork, "allow-network", false, "let the agent's commands reach the network on systems that cannot deny it")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress lines")
	// DIR may come before the flags, as the usage line shows it.
	var dir string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		dir, args = args[0], args[1:]
	}
	if err := parse(fs, args); err != nil {
		return f, "", err
	}
	if dir == "" && fs.NArg() > 0 {
		dir = fs.Arg(0)
	}
	if dir == "" || fs.NArg() > 1 || (fs.NArg() == 1 && fs.Arg(0) != dir) {
		return f, "", usageError("usage: metaclaw bench run DIR [flags] (DIR: the benchmark folder with all_tests.json)")
	}
	if f.days < 0 || f.maxSteps < 1 || f.execTimeout <= 0 {
		return f, "", usageError("--days must be ≥ 0, --max-steps ≥ 1 and --exec-timeout positive")
	}
	return f, dir, nil
}

func benchRun(env *Env, args []string) error {
	f, dir, err := parseBenchRun(env, args)
	if err != nil {
		return err
	}
	db, home, err := openDB()
	if err != nil {
		return err
	}
	defer db.Close()
	person, _, err := config.Load(context.Background(), db)
	if err != nil {
		return err
	}
	opts, err := benchOptions(env, f, dir, home, person)
	if err != nil {
		return err
	}
	opts.Save = func(rep *store.BenchReport) error { return saveBenchReport(db, f.out, rep) }
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintf(env.Stderr, "metaclaw bench: %s, arms %s; work folder %s\n", dir, armNames(opts.Arms), opts.Work)
	rep, err := bench.Run(ctx, opts)
	if rep != nil {
		if werr := bench.WriteText(env.Stdout, rep); werr != nil {
			return werr
		}
	}
	switch {
	case err != nil && ctx.Err() != nil:
		return &exitError{code: 130, msg: "interrupted; what was done is saved: run the same command again to resume"}
	case err != nil:
		return err
	}
	if f.out != "" {
		fmt.Fprintln(env.Stdout, "\nreport:", f.out)
	}
	fmt.Fprintln(env.Stdout, "The web page shows it under Bench (metaclaw open).")
	return nil
}

// benchOptions turns the flags and the person's configuration into the
// run's options.
func benchOptions(env *Env, f benchFlags, dir, home string, person config.Config) (bench.Options, error) {
	arms := f.arms
	if arms == "" {
		arms = "base,skills,skills+memory"
		if person.RL.APIKey != "" {
			arms += ",full"
		}
	}
	specs, err := bench.ParseArms(arms)
	if err != nil {
		return bench.Options{}, usageError("--arms: %v", err)
	}
	work := f.work
	if work == "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return bench.Options{}, err
		}
		if strings.HasSuffix(abs, ".json") {
			abs = filepath.Dir(abs)
		}
		work = filepath.Join(home, "bench", filepath.Base(abs))
	}
	ocBin := f.openclaw
	if f.agent == bench.AgentOpenClaw && ocBin == "" {
		ocBin, _ = exec.LookPath("openclaw")
	}
	opts := bench.Options{Dir: dir, Arms: specs, Days: f.days, Agent: f.agent, OpenClaw: ocBin, Work: work, Fresh: f.fresh,
		Person: person, MaxSteps: f.maxSteps, ExecTimeout: f.execTimeout, AllowNetwork: f.allowNetwork, Version: env.Version,
		Progress: env.Stderr}
	if f.quiet {
		opts.Progress = nil
	}
	return opts, nil
}

func armNames(specs []bench.ArmSpec) string {
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
	}
	return strings.Join(names, ",")
}

// saveBenchReport stores the report in the database (the web page reads
// it from there) and writes it to out when given.
func saveBenchReport(db *store.DB, out string, rep *store.BenchReport) error {
	var errs []error
	if err := db.SaveBenchReport(context.Background(), rep); err != nil {
		errs = append(errs, err)
	}
	if out != "" {
		data, err := json.MarshalIndent(rep, "", "  ")
		if err == nil {
			err = os.WriteFile(out, append(data, '\n'), 0o644)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("write %s: %w", out, err))
		}
	}
	return errors.Join(errs...)
}

// benchShow prints a stored report: the newest, or the one named.
func benchShow(env *Env, args []string) error {
	fs := newFlags(env, "bench show", "[ID] [--json]")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return usageError("usage: metaclaw bench show [ID] [--json]")
	}
	db, _, err := openDB()
	if err != nil {
		return err
	}
	defer db.Close()
	ctx := context.Background()
	var rep store.BenchReport
	if fs.NArg() == 1 {
		if rep, err = db.BenchReportByID(ctx, fs.Arg(0)); err != nil {
			return err
		}
	} else {
		reps, err := db.BenchReports(ctx, 1)
		if err != nil {
			return err
		}
		if len(reps) == 0 {
			return errors.New("no bench run yet: metaclaw bench run DIR")
		}
		rep = reps[0]
	}
	if *asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return bench.WriteText(env.Stdout, &rep)
}
