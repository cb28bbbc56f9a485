package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/metaclaw/metaclaw/app/control"
	"github.com/metaclaw/metaclaw/app/instance"
	"github.com/metaclaw/metaclaw/idle/windows"
	"github.com/metaclaw/metaclaw/store"
)

// Instance states reported by status.
const (
	stateRunning    = "running"
	stateNotRunning = "not running"
	stateStale      = "stale"
)

type statusReport struct {
	State          string                  `json:"state"`
	PID            int                     `json:"pid,omitempty"`
	Mode           string                  `json:"mode,omitempty"`            // the mode running (or that would run)
	ConfiguredMode string                  `json:"configured_mode,omitempty"` // the mode configured
	Paused         bool                    `json:"paused"`                    // learning paused (read from the database)
	Problems       []string                `json:"problems,omitempty"`        // setup problems
	Attention      []string                `json:"attention,omitempty"`       // what keeps failing
	Upstream       *proxyFailures          `json:"upstream,omitempty"`        // the provider's failures this run
	Learning       *control.LearningStatus `json:"learning,omitempty"`        // what learning spent today
	CutsToday      *store.Cuts             `json:"cuts_today,omitempty"`      // turns cut to fit the context today
	RestartPending []string                `json:"restart_pending,omitempty"` // saved settings that apply after a restart
	Version        string                  `json:"version,omitempty"`
	ProxyURL       string                  `json:"proxy_url,omitempty"`
	WebURL         string                  `json:"web_url,omitempty"`
	UptimeSeconds  int                     `json:"uptime_seconds,omitempty"`
	Responding     bool                    `json:"responding"`
	Recorder       *recorderStats          `json:"recorder,omitempty"`
	Scheduler      *windows.State          `json:"scheduler,omitempty"` // training windows, as the running app recorded them
	DataDir        string                  `json:"data_dir"`
	Detail         string                  `json:"detail,omitempty"`
	learnStatus
}

func inspect(dir string) statusReport {
	r := statusReport{State: stateNotRunning, DataDir: dir}
	info, infoErr := instance.ReadInfo(dir)
	if !instance.Held(dir) {
		if infoErr == nil {
			r.State, r.PID = stateStale, info.PID
			r.Detail = fmt.Sprintf("a pid file names pid %d, but no MetaClaw holds the data directory", info.PID)
		}
		return r
	}
	r.State = stateRunning
	if infoErr != nil {
		r.Detail = "starting (no pid file yet)"
		return r
	}
	r.PID, r.Mode, r.Version, r.ProxyURL, r.WebURL = info.PID, info.Mode, info.Version, info.ProxyURL, info.WebURL
	r.UptimeSeconds = int(time.Since(info.StartedAt).Seconds())
	if h, err := fetchHealth(info.ProxyURL, 2*time.Second); err == nil && h.PID == info.PID {
		r.Responding, r.Mode, r.UptimeSeconds, r.Recorder = true, h.Mode, h.UptimeSeconds, h.Recorder
		r.fromApp(h.App)
	} else {
		r.Detail = "the proxy is not answering"
	}
	return r
}

func runStatus(env *Env, args []string) error {
	fs := newFlags(env, "status", "[--json]")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	dir, err := home()
	if err != nil {
		return err
	}
	r := inspect(dir)
	if st, ok := runningScheduler(dir); ok && r.State == stateRunning {
		r.Scheduler = &st
	}
	if r.State == stateRunning {
		r.learnStatus = readLearnStatus()
	}
	r.fromDatabase()
	if *asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			return err
		}
	} else {
		printStatus(env, r)
	}
	if r.State != stateRunning {
		return &exitError{code: 3}
	}
	return nil
}

func printStatus(env *Env, r statusReport) {
	w := env.Stdout
	switch r.State {
	case stateRunning:
		fmt.Fprintf(w, "MetaClaw is running (pid %d)\n", r.PID)
		fmt.Fprintf(w, "  mode:     %s\n", modeLine(r))
		fmt.Fprintf(w, "  proxy:    %s/v1\n", r.ProxyURL)
		if r.WebURL != "" {
			fmt.Fprintf(w, "  web:      %s\n", r.WebURL)
		}
		fmt.Fprintf(w, "  uptime:   %s\n", (time.Duration(r.UptimeSeconds) * time.Second).String())
		fmt.Fprintf(w, "  version:  %s\n", r.Version)
		if rs := r.Recorder; rs != nil {
			fmt.Fprintf(w, "  turns:    %d recorded this run, %d waiting", rs.Recorded, rs.Queued)
			if rs.Dropped+rs.Failed > 0 {
				fmt.Fprintf(w, " — recording fell behind: %d dropped, %d failed (see the log)", rs.Dropped, rs.Failed)
			}
			fmt.Fprintln(w)
		}
		if st := r.Scheduler; st != nil {
			fmt.Fprintf(w, "  window:   %s\n", windowLine(*st))
		}
		printLearnStatus(w, r.learnStatus)
		printRunning(w, r)
	case stateStale:
		fmt.Fprintf(w, "MetaClaw is not running (stale pid file for pid %d; `metaclaw stop` removes it)\n", r.PID)
	default:
		fmt.Fprintln(w, "MetaClaw is not running")
	}
	fmt.Fprintf(w, "  data dir: %s\n", r.DataDir)
	printState(w, r)
	if r.Detail != "" && r.State == stateRunning {
		fmt.Fprintf(w, "  note:     %s\n", r.Detail)
	}
}

func runStop(env *Env, args []string) error {
	fs := newFlags(env, "stop", "[--timeout D]")
	timeout := fs.Duration("timeout", 20*time.Second, "how long to wait for a graceful stop before forcing it")
	if err := parse(fs, args); err != nil {
		return err
	}
	dir, err := home()
	if err != nil {
		return err
	}
	r := inspect(dir)
	switch r.State {
	case stateNotRunning:
		fmt.Fprintln(env.Stdout, "MetaClaw is not running")
		return nil
	case stateStale:
		if _, err := instance.RemoveStale(dir); err != nil {
			return fmt.Errorf("remove stale pid file: %w", err)
		}
		fmt.Fprintf(env.Stdout, "MetaClaw was not running; removed a stale pid file (pid %d)\n", r.PID)
		return nil
	}
	if r.PID == 0 {
		return &exitError{code: 1, msg: "MetaClaw is starting; try again in a moment"}
	}
	if !r.Responding && !looksLikeMetaClaw(r.PID) {
		return &exitError{code: 1, msg: fmt.Sprintf("pid %d does not answer as MetaClaw; not stopping it", r.PID)}
	}
	return stopPID(env, dir, r.PID, *timeout)
}

func looksLikeMetaClaw(pid int) bool {
	cmd := instance.Cmdline(pid)
	return strings.Contains(cmd, "metaclaw")
}

func stopPID(env *Env, dir string, pid int, timeout time.Duration) error {
	if err := instance.Terminate(pid); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("stop pid %d: %w", pid, err)
	}
	if waitGone(dir, pid, timeout) {
		fmt.Fprintf(env.Stdout, "MetaClaw stopped (pid %d)\n", pid)
		return nil
	}
	fmt.Fprintf(env.Stderr, "MetaClaw did not stop within %s; forcing it\n", timeout)
	if err := instance.Kill(pid); err != nil && instance.Alive(pid) {
		return fmt.Errorf("kill pid %d: %w", pid, err)
	}
	if !waitGone(dir, pid, 5*time.Second) {
		return &exitError{code: 1, msg: fmt.Sprintf("pid %d is still running", pid)}
	}
	_, _ = instance.RemoveStale(dir)
	fmt.Fprintf(env.Stdout, "MetaClaw stopped (pid %d, forced)\n", pid)
	return nil
}

// waitGone waits until the process has exited and released the data
// directory.
func waitGone(dir string, pid int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if !instance.Held(dir) && !instance.Alive(pid) {
			return true
		}
		time.Sleep(25 * time.Millisecond)
	}
	return false
}

// windowLine is the training window in one line: "open (sleep) until
// 07:00 — sleep hours until 07:00", or "off".
func windowLine(st windows.State) string {
	if !st.Enabled {
		return "off (training windows are used in madmax or with scheduler.enabled)"
	}
	return st.Summary() + " — " + st.Detail
}
