package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/metaclaw/metaclaw/app/learner"
	"github.com/metaclaw/metaclaw/idle"
	"github.com/metaclaw/metaclaw/idle/windows"
	"github.com/metaclaw/metaclaw/store/config"
)

const schedulerUsage = "status [--json] | next-window [--json]"

// schedCheck is one evaluation of the training-window signals in this
// process: the settings, sleep hours, the calendar (read from Google when
// connected) and the pause flag.
type schedCheck struct {
	dir    string
	cfg    config.Config
	wcfg   idle.WindowConfig
	now    time.Time
	paused bool
	busy   []idle.Interval
	cal    string // the calendar signal in words
	calOK  bool   // connected
}

func runScheduler(env *Env, args []string) error {
	if len(args) == 0 {
		return usageError("usage: metaclaw scheduler %s", schedulerUsage)
	}
	var run func(*Env, *schedCheck, bool) error
	switch args[0] {
	case "status":
		run = schedulerStatus
	case "next-window":
		run = schedulerNext
	default:
		return usageError("scheduler: unknown subcommand %q; usage: metaclaw scheduler %s", args[0], schedulerUsage)
	}
	fs := newFlags(env, "scheduler "+args[0], "[--json]")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError("scheduler %s: unexpected argument %q", args[0], fs.Arg(0))
	}
	c, err := newSchedCheck(env)
	if err != nil {
		return err
	}
	return run(env, c, *asJSON)
}

func newSchedCheck(env *Env) (*schedCheck, error) {
	db, dir, cfg, err := loadConfig()
	if err != nil {
		return nil, err
	}
	defer db.Close()
	ep, err := googleEndpoints(env)
	if err != nil {
		return nil, err
	}
	wcfg, err := idle.WindowConfigFrom(cfg.Scheduler, nil)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := &schedCheck{dir: dir, cfg: cfg, wcfg: wcfg, now: time.Now()}
	paused, err := db.Meta(ctx, learner.MetaLearningPaused)
	if err != nil {
		return nil, err
	}
	c.paused = paused == "1"
	c.busy, c.cal, c.calOK = readCalendar(ctx, cfg, dir, ep, c.now, false)
	return c, nil
}

// schedSettings are the window settings, as status shows them.
type schedSettings struct {
	SleepHours           string `json:"sleep_hours"`
	IdleThresholdMinutes int    `json:"idle_threshold_minutes"`
	MinWindowMinutes     int    `json:"min_window_minutes"`
}

// schedStatusReport is `metaclaw scheduler status`: the evaluation in this
// process, and what the running MetaClaw last recorded.
type schedStatusReport struct {
	windows.State
	Settings schedSettings  `json:"settings"`
	Running  *windows.State `json:"running,omitempty"`
}

// evaluate reads the keyboard idle time here and evaluates the window.
func (c *schedCheck) evaluate() windows.State {
	st := windows.State{Enabled: windows.Enabled(c.cfg), ScreenFallback: c.cfg.Scheduler.ScreenFallback,
		Calendar: c.cal, CalendarConnected: c.calOK, Paused: c.paused, UpdatedAt: c.now}
	in := idle.WindowInputs{Now: c.now, Idle: readIdle(&st), Busy: c.busy, Paused: c.paused}
	return st.WithWindow(idle.EvaluateWindow(c.wcfg, in))
}

// readIdle asks this desktop's keyboard idle source once, noting in st
// which source answered or why none did.
func readIdle(st *windows.State) idle.IdleReading {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	src, err := idle.Detect(ctx)
	if err != nil {
		st.IdleError = err.Error()
		return idle.IdleReading{}
	}
	defer src.Close()
	st.IdleSource = src.Name()
	d, err := src.Idle(ctx)
	if err != nil {
		return idle.IdleReading{Source: src.Name(), Err: err}
	}
	return idle.IdleReading{Idle: d, OK: true, Source: src.Name()}
}

func schedulerStatus(env *Env, c *schedCheck, asJSON bool) error {
	r := schedStatusReport{State: c.evaluate(), Settings: schedSettings{SleepHours: c.wcfg.SleepHours().String(),
		IdleThresholdMinutes: c.cfg.Scheduler.IdleThresholdMinutes, MinWindowMinutes: c.cfg.Scheduler.MinWindowMinutes}}
	if st, ok := runningScheduler(c.dir); ok {
		r.Running = &st
	}
	if asJSON {
		return printJSON(env, r)
	}
	w := env.Stdout
	fmt.Fprintf(w, "Training window: %s\n", r.Summary())
	if !r.Enabled {
		on := r.State
		on.Enabled = true
		fmt.Fprintf(w, "  note:        %s\n", windows.OffDetail(c.cfg))
		fmt.Fprintf(w, "  if on:       %s\n", on.Summary())
	}
	fmt.Fprintf(w, "  detail:      %s\n", r.Detail)
	fmt.Fprintf(w, "  idle source: %s\n", r.IdleText())
	fmt.Fprintf(w, "  calendar:    %s\n", r.Calendar)
	fmt.Fprintf(w, "  learning:    %s\n", pausedText(r.Paused))
	fmt.Fprintf(w, "  settings:    sleep hours %s, keyboard idle %d min, windows of at least %d min\n",
		r.Settings.SleepHours, r.Settings.IdleThresholdMinutes, r.Settings.MinWindowMinutes)
	if s := r.Running; s != nil {
		fmt.Fprintf(w, "The running MetaClaw (recorded %s): %s\n", s.UpdatedAt.Local().Format("15:04:05"), s.Summary())
		fmt.Fprintf(w, "  detail:      %s\n", s.Detail)
		if s.Enabled {
			fmt.Fprintf(w, "  idle source: %s\n", s.IdleText())
		}
		fmt.Fprintf(w, "  calendar:    %s\n", s.Calendar)
	}
	return nil
}

func pausedText(paused bool) string {
	if paused {
		return "paused (every window stays shut until `metaclaw resume`)"
	}
	return "on"
}

// nextWindowReport is `metaclaw scheduler next-window`.
type nextWindowReport struct {
	Found    bool      `json:"found"`
	Open     bool      `json:"open"` // the window has begun
	Reason   string    `json:"reason,omitempty"`
	Start    time.Time `json:"start,omitzero"`
	End      time.Time `json:"end,omitzero"`
	Detail   string    `json:"detail,omitempty"`
	Calendar string    `json:"calendar"`
	Enabled  bool      `json:"enabled"` // training windows in use
	Paused   bool      `json:"paused"`
}

func schedulerNext(env *Env, c *schedCheck, asJSON bool) error {
	w := idle.NextWindow(c.now, c.wcfg, c.busy)
	r := nextWindowReport{Found: w.Reason != "", Open: w.Open, Reason: w.Reason, Start: w.Since, End: w.Until,
		Detail: w.Detail, Calendar: c.cal, Enabled: windows.Enabled(c.cfg), Paused: c.paused}
	if asJSON {
		return printJSON(env, r)
	}
	out := env.Stdout
	switch {
	case !r.Found:
		fmt.Fprintf(out, "No sleep or meeting window ahead (sleep hours %s)\n", c.wcfg.SleepHours())
	case r.Open:
		fmt.Fprintf(out, "Training window open now: %s (%s)\n", r.Reason, r.Detail)
	default:
		fmt.Fprintf(out, "Next training window: %s from %s until %s (%s)\n", r.Reason, longTime(r.Start), longTime(r.End), r.Detail)
	}
	if c.wcfg.IdleThreshold > 0 {
		fmt.Fprintf(out, "  keyboard idle for %d min also opens one\n", c.cfg.Scheduler.IdleThresholdMinutes)
	}
	fmt.Fprintf(out, "  calendar: %s\n", r.Calendar)
	if !r.Enabled {
		fmt.Fprintf(out, "  note: %s\n", windows.OffDetail(c.cfg))
	}
	if r.Paused {
		fmt.Fprintln(out, "  note: learning is paused; every window stays shut until `metaclaw resume`")
	}
	return nil
}

func longTime(t time.Time) string { return t.Local().Format("Mon Jan 2 15:04") }
