package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/toolloop"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// Options configure a run.
type Options struct {
	Dir          string        // the benchmark folder
	Arms         []ArmSpec     // in order; base first when present
	Days         int           // the first Days days; 0 = all
	Agent        string        // AgentBuiltin or AgentOpenClaw
	OpenClaw     string        // the openclaw command, for AgentOpenClaw
	Work         string        // the work folder: state, workspaces, the arms' data directories
	Fresh        bool          // discard the work folder's earlier run instead of resuming it
	Person       config.Config // the person's configuration: provider, model, keys
	MaxSteps     int           // model calls per message (built-in agent)
	ExecTimeout  time.Duration // per exec command (built-in agent)
	AllowNetwork bool          // let exec commands reach the network where they cannot be denied it
	Version      string
	Progress     io.Writer                      // one line per round; nil: none
	Save         func(*store.BenchReport) error // called with the report after every day and at the end
	Now          func() time.Time
}

// Run runs the benchmark, resuming the work folder's run when it holds one
// with the same settings, and returns the report. When ctx ends the run
// stops after saving what it did (status stopped) and returns ctx's error.
func Run(ctx context.Context, opts Options) (*store.BenchReport, error) {
	r, err := newRunner(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer r.close()
	for i := range r.days {
		for _, spec := range r.opts.Arms {
			if r.st.Arms[spec.Name].DaysDone > i {
				continue
			}
			if err := r.playDay(ctx, spec, i); err != nil {
				return r.stop(err)
			}
			if err := r.publish(store.BenchRunning); err != nil {
				return nil, err
			}
		}
	}
	r.stopArms()
	rep, err := r.finish(store.BenchDone)
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// runner is one run in progress.
type runner struct {
	opts  Options
	b     *Benchmark
	days  []Day
	st    *State
	relay *Relay
	shell toolloop.Shell
	runs  map[string]*armRun
	log   *slog.Logger
	logf  *os.File
}

func newRunner(ctx context.Context, opts Options) (*runner, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Progress == nil {
		opts.Progress = io.Discard
	}
	b, err := Load(opts.Dir)
	if err != nil {
		return nil, err
	}
	if err := checkOptions(ctx, &opts); err != nil {
		return nil, err
	}
	days := b.Days
	if opts.Days > 0 && opts.Days < len(days) {
		days = days[:opts.Days]
	}
	r := &runner{opts: opts, b: b, days: days, runs: map[string]*armRun{}}
	if err := r.openWork(); err != nil {
		return nil, err
	}
	if r.relay, err = NewRelay(); err != nil {
		r.close()
		return nil, err
	}
	shim := PythonShim(filepath.Join(opts.Work, "bin"))
	r.shell = toolloop.Shell{Env: CommandEnv(shim), Isolated: !opts.AllowNetwork, Timeout: opts.ExecTimeout}
	return r, nil
}

// checkOptions refuses what cannot run, before anything starts.
func checkOptions(ctx context.Context, opts *Options) error {
	p := opts.Person
	if p.LLM.APIKey == "" || p.LLM.APIBase == "" || p.LLM.ModelID == "" {
		return errors.New("no provider configured: set llm.api_base, llm.api_key and llm.model_id (metaclaw setup)")
	}
	for _, a := range opts.Arms {
		if a.Train && p.RL.APIKey == "" {
			return errors.New("arm full trains a LoRA adapter and needs a training service key (rl.api_key); " +
				"without one MetaClaw would run it as skills_only, so it is not run: set rl.api_key or leave full out of --arms")
		}
	}
	switch opts.Agent {
	case AgentBuiltin:
		if preset, ok := config.PresetByName(p.LLM.Provider); ok && preset.API == "anthropic" {
			return errors.New("the built-in agent speaks the OpenAI chat completions API, and llm.provider is anthropic; use an OpenAI-compatible provider or --agent openclaw")
		}
		if !opts.AllowNetwork {
			if err := toolloop.ProbeIsolation(ctx); err != nil {
				return fmt.Errorf("the agent's commands cannot be denied the network: %v; run with --allow-network to accept that", err)
			}
		}
	case AgentOpenClaw:
		if opts.OpenClaw == "" {
			return errors.New("--agent openclaw: openclaw is not installed (npm install -g openclaw, or give --openclaw PATH)")
		}
		return ProbeOpenClaw(ctx, opts.OpenClaw)
	default:
		return fmt.Errorf("unknown agent %q (builtin or openclaw)", opts.Agent)
	}
	return nil
}

// openWork opens (or starts) the run in the work folder.
func (r *runner) openWork() error {
	o := r.opts
	var names []string
	for _, a := range o.Arms {
		names = append(names, a.Name)
	}
	key, plan := planKey(r.b.Dir, "days="+strconv.Itoa(len(r.days)), "arms="+strings.Join(names, ","), "agent="+o.Agent,
		"model="+o.Person.LLM.ModelID, "provider="+o.Person.LLM.APIBase)
	if o.Fresh {
		if err := os.RemoveAll(o.Work); err != nil {
			return err
		}
	}
	st, err := loadState(o.Work)
	if err != nil {
		return err
	}
	if st != nil && st.Key != key {
		return fmt.Errorf("the work folder %s holds another run (%s); run with --fresh to start over, or give another --work", o.Work, st.Plan)
	}
	if st == nil {
		var id [6]byte
		_, _ = rand.Read(id[:])
		st = &State{Version: stateVersion, ID: o.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(id[:2]),
			Key: key, Plan: plan, StartedAt: o.Now().UTC(), Arms: map[string]*ArmState{}}
	}
	for _, a := range o.Arms {
		if st.Arms[a.Name] == nil {
			st.Arms[a.Name] = &ArmState{}
		}
	}
	r.st = st
	if err := os.MkdirAll(o.Work, 0o700); err != nil {
		return err
	}
	if r.logf, err = os.OpenFile(filepath.Join(o.Work, "bench.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600); err != nil {
		return err
	}
	r.log = slog.New(slog.NewTextHandler(r.logf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	return st.save(o.Work)
}

func (r *runner) close() {
	r.stopArms()
	if r.relay != nil {
		r.relay.Close()
	}
	if r.logf != nil {
		r.logf.Close()
	}
}

// stopArms stops the arms' MetaClaw instances, which lets the learning
// still in flight (the last day's judging) finish, and then adds the calls
// the relay counted meanwhile.
func (r *runner) stopArms() {
	for name, run := range r.runs {
		if err := run.stop(); err != nil && r.log != nil {
			r.log.Warn("stop arm", "arm", name, "err", err)
		}
		delete(r.runs, name)
		if r.relay != nil {
			_, learning := r.relay.Take(name)
			addUsage(&r.st.Arms[name].Learning, learning)
		}
	}
	_ = r.st.save(r.opts.Work)
}

// slug names an arm in paths and session ids.
func slug(arm string) string { return strings.ReplaceAll(arm, "+", "-") }

func (r *runner) armHome(spec ArmSpec) string {
	return filepath.Join(r.opts.Work, "arms", slug(spec.Name), "home")
}

// arm returns the running arm, starting it on first use.
func (r *runner) arm(ctx context.Context, spec ArmSpec) (*armRun, error) {
	if run := r.runs[spec.Name]; run != nil {
		return run, nil
	}
	run, err := startArm(ctx, spec, r.armHome(spec), r.opts.Person, r.relay, r.opts.Version, r.log)
	if err != nil {
		return nil, err
	}
	r.runs[spec.Name] = run
	return run, nil
}

// stop saves a stopped run's report and returns the error that stopped
// it.
func (r *runner) stop(cause error) (*store.BenchReport, error) {
	r.stopArms()
	rep, err := r.finish(store.BenchStopped)
	if err != nil {
		return rep, errors.Join(cause, err)
	}
	return rep, cause
}

// publish saves the report as it stands.
func (r *runner) publish(status string) error {
	_, err := r.finish(status)
	return err
}

func (r *runner) finish(status string) (*store.BenchReport, error) {
	rep := r.report(context.WithoutCancel(context.Background()), status)
	if r.opts.Save != nil {
		if err := r.opts.Save(rep); err != nil {
			return rep, err
		}
	}
	return rep, nil
}
