package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/metaclaw/metaclaw/app"
	"github.com/metaclaw/metaclaw/app/instance"
	"github.com/metaclaw/metaclaw/store/config"
)

// daemonChildEnv marks the detached child of `start --daemon`: its stderr is
// already the log file, so it logs there once, not twice.
const daemonChildEnv = "METACLAW_DAEMON_CHILD"

type startFlags struct {
	mode, logFile        string
	port                 int
	daemon, noTray, tray bool
	wechatRelogin        bool
	readyTimeout         time.Duration
}

func runStart(env *Env, args []string) error {
	fs := newFlags(env, "start", "[--mode M] [--port N] [--daemon] [--log-file F] [--no-tray] [--wechat-relogin]")
	var f startFlags
	fs.StringVar(&f.mode, "mode", "", "run in this mode (madmax, rl, skills_only) without changing the configuration")
	fs.IntVar(&f.port, "port", 0, "proxy port for this run")
	fs.BoolVar(&f.daemon, "daemon", false, "run in the background; return once the proxy answers")
	fs.StringVar(&f.logFile, "log-file", "", "log file (default <data dir>/metaclaw.log)")
	fs.BoolVar(&f.noTray, "no-tray", false, "do not show the tray icon")
	fs.BoolVar(&f.tray, "tray", false, "show the tray icon (the default when started without arguments)")
	fs.BoolVar(&f.wechatRelogin, "wechat-relogin", false, "log in to WeChat again with a new QR code (switch account)")
	fs.DurationVar(&f.readyTimeout, "ready-timeout", 30*time.Second, "with --daemon: how long to wait for the proxy")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError("start: unexpected argument %q", fs.Arg(0))
	}
	if f.mode != "" && f.mode != config.ModeMadmax && f.mode != config.ModeRL && f.mode != config.ModeSkillsOnly {
		return usageError("start --mode: %q is not allowed; allowed: madmax, rl, skills_only", f.mode)
	}
	if f.port < 0 || f.port > 65535 {
		return usageError("start --port: %d is out of range 1-65535", f.port)
	}
	dir, err := home()
	if err != nil {
		return err
	}
	if f.logFile == "" {
		f.logFile = filepath.Join(dir, instance.LogName)
	}
	if f.daemon {
		return startDaemon(env, dir, f, args)
	}
	return startForeground(env, dir, f)
}

// openLog opens the log file for appending, private to the user.
func openLog(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create log directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open log file: %w", err)
	}
	return f, nil
}

func newLogger(env *Env, logFile *os.File) *slog.Logger {
	var w io.Writer = io.MultiWriter(env.Stderr, logFile)
	if env.getenv(daemonChildEnv) == "1" {
		w = logFile // stderr is the same file
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

func startForeground(env *Env, dir string, f startFlags) error {
	logFile, err := openLog(f.logFile)
	if err != nil {
		return err
	}
	defer logFile.Close()
	log := newLogger(env, logFile)
	a, err := app.New(app.Options{Home: dir, Mode: f.mode, Port: f.port, Version: env.Version, Logger: log})
	var running *app.AlreadyRunningError
	if errors.As(err, &running) {
		return &exitError{code: 1, msg: running.Error()}
	}
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := a.Start(ctx); err != nil {
		a.Stop()
		return err
	}
	if env.getenv(daemonChildEnv) != "1" {
		fmt.Fprintf(env.Stdout, "MetaClaw is running. Point your agent at %s/v1 — press Ctrl-C to stop.\n", a.ProxyURL())
		configureAgent(env, a.ProxyURL(), f.wechatRelogin)
	}
	restart := runUntilDone(ctx, a, log, trayWanted(f, env.getenv, runtime.GOOS))
	if err := a.Stop(); err != nil {
		return err
	}
	if restart {
		return reexec(log)
	}
	if err := a.Err(); err != nil {
		return err
	}
	return nil
}

// runUntilDone blocks until a signal arrives, the tray quits, a service
// fails, or a restart is asked for (it then returns true).
func runUntilDone(ctx context.Context, a *app.App, log *slog.Logger, withTray bool) bool {
	trayDone := make(chan struct{})
	if withTray {
		go runTray(ctx, a, log, trayDone)
	}
	select {
	case <-ctx.Done():
		log.Info("stopping: signal received")
	case <-a.Done():
	case <-trayDone:
		log.Info("stopping: quit from the tray")
	case <-a.Restarting():
		log.Info("restarting: asked for on the web page")
		return true
	}
	return false
}

func startDaemon(env *Env, dir string, f startFlags, args []string) error {
	if instance.Held(dir) {
		info, _ := instance.ReadInfo(dir)
		return &exitError{code: 1, msg: (&app.AlreadyRunningError{Home: dir, Info: info}).Error()}
	}
	logFile, err := openLog(f.logFile)
	if err != nil {
		return err
	}
	defer logFile.Close()
	offset, _ := logFile.Seek(0, io.SeekEnd)
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find own executable: %w", err)
	}
	cmd := exec.Command(exe, childArgs(f)...)
	cmd.Env = append(os.Environ(), daemonChildEnv+"=1", "METACLAW_HOME="+dir)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	instance.Detach(cmd)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start background process: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	info, err := waitReady(dir, cmd.Process.Pid, exited, f.readyTimeout)
	if err != nil {
		tail := logTail(f.logFile, offset)
		if tail != "" {
			err = fmt.Errorf("%w\n%s", err, indent(tail, "  | "))
		}
		return &exitError{code: 1, msg: "could not start: " + err.Error()}
	}
	fmt.Fprintf(env.Stdout, "MetaClaw started in the background (pid %d).\nProxy: %s/v1\nLog:   %s\n", info.PID, info.ProxyURL, f.logFile)
	configureAgent(env, info.ProxyURL, f.wechatRelogin)
	return nil
}

func childArgs(f startFlags) []string {
	args := []string{"start", "--log-file", f.logFile}
	if f.mode != "" {
		args = append(args, "--mode", f.mode)
	}
	if f.port != 0 {
		args = append(args, "--port", strconv.Itoa(f.port))
	}
	if f.noTray || !f.tray {
		args = append(args, "--no-tray")
	} else {
		args = append(args, "--tray")
	}
	return args
}

// waitReady waits until the child has written its pid file and its proxy
// answers /healthz with the child's pid.
func waitReady(dir string, pid int, exited <-chan error, timeout time.Duration) (instance.Info, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-exited:
			if err == nil {
				err = errors.New("the background process exited")
			}
			return instance.Info{}, fmt.Errorf("the background process exited: %v", err)
		case <-deadline.C:
			_ = instance.Kill(pid)
			return instance.Info{}, fmt.Errorf("the proxy did not answer within %s", timeout)
		case <-tick.C:
			info, err := instance.ReadInfo(dir)
			if err != nil || info.PID != pid {
				continue
			}
			if h, err := fetchHealth(info.ProxyURL, 500*time.Millisecond); err == nil && h.PID == pid {
				return info, nil
			}
		}
	}
}

// logTail returns what was written to the log after offset, at most the
// last 20 lines.
func logTail(path string, offset int64) string {
	data, err := os.ReadFile(path)
	if err != nil || int64(len(data)) <= offset {
		return ""
	}
	lines := splitLines(string(data[offset:]))
	if len(lines) > 20 {
		lines = lines[len(lines)-20:]
	}
	out := ""
	for _, l := range lines {
		out += l + "\n"
	}
	return out
}
