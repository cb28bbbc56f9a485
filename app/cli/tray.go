package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/metaclaw/metaclaw/app"
	"github.com/metaclaw/metaclaw/app/autostart"
	"github.com/metaclaw/metaclaw/app/instance"
	"github.com/metaclaw/metaclaw/app/tray"
)

// runTray shows the tray icon until the person quits from it (done is
// closed) or ctx ends. Without a tray host it says so once and returns
// without closing done: MetaClaw runs on.
func runTray(ctx context.Context, a *app.App, log *slog.Logger, done chan<- struct{}) {
	err := tray.Available()
	switch {
	case errors.Is(err, tray.ErrNoHost):
		log.Info("tray icon waiting for a tray host: it appears as soon as the panel starts", "reason", err.Error())
	case err != nil:
		log.Info("running without a tray icon", "reason", err.Error())
		return
	}
	if tray.Run(ctx, newTrayControl(a, log), log, err != nil) {
		close(done)
	}
}

// trayWanted reports whether start shows the tray icon: asked for with
// --tray, or by default in a desktop session (a display on Linux; always
// on Windows and macOS), unless --no-tray.
func trayWanted(f startFlags, getenv func(string) string, goos string) bool {
	switch {
	case f.noTray:
		return false
	case f.tray:
		return true
	case goos == "linux" || goos == "freebsd" || goos == "openbsd" || goos == "netbsd":
		return getenv("DISPLAY") != "" || getenv("WAYLAND_DISPLAY") != ""
	}
	return true
}

// trayControl adapts the app to the tray's narrow interface.
type trayControl struct {
	a       *app.App
	log     *slog.Logger
	login   *autostart.Entry // nil when the executable cannot be found
	logPath string
}

var _ tray.Control = trayControl{}

func newTrayControl(a *app.App, log *slog.Logger) trayControl {
	t := trayControl{a: a, log: log}
	dir, _ := home()
	t.logPath = trayLogPath(os.Args[1:], dir)
	login, err := autostart.ForThisProgram()
	if err != nil {
		log.Warn("start at login is unavailable", "err", err)
	}
	t.login = login
	return t
}

func (t trayControl) Status() tray.Status {
	st := t.a.Status()
	w := t.a.SchedulerStatus()
	return tray.Status{Mode: st.Mode, ProxyURL: st.ProxyURL, TurnsToday: st.TurnsToday,
		Problems: append(append([]string(nil), st.Attention...), st.Problems...),
		Paused:   t.a.Paused(), Training: st.Training, Autostart: t.login != nil && t.login.Enabled(),
		Window: tray.Window{Enabled: w.Enabled, Open: w.Open, Reason: w.Reason, Until: w.Until.Local()}}
}

func (t trayControl) SetPaused(paused bool) error { return t.a.SetPaused(paused) }

func (t trayControl) SetAutostart(on bool) error {
	if t.login == nil {
		return errors.New("the executable cannot be found")
	}
	if on {
		return t.login.Enable()
	}
	return t.login.Disable()
}

// OpenWeb does what `metaclaw open` does (log in to the web page through a
// one-time token) when that command exists. Otherwise it opens the page's
// address, from the pid file or the configuration, and logs it.
func (t trayControl) OpenWeb() error {
	for _, c := range commands() {
		if c.name == "open" {
			w := trayLogWriter{t.log}
			return c.run(&Env{Stdin: strings.NewReader(""), Stdout: w, Stderr: w}, nil)
		}
	}
	url := t.webURL()
	t.log.Info("opening the web page", "url", url)
	return trayOpen(url)
}

func (t trayControl) webURL() string {
	if dir, err := home(); err == nil {
		if info, err := instance.ReadInfo(dir); err == nil && info.WebURL != "" {
			return info.WebURL
		}
	}
	web := t.a.Config().Web
	return "http://" + net.JoinHostPort(web.Host, strconv.Itoa(web.Port)) + "/"
}

func (t trayControl) OpenLog() error { return trayOpen(t.logPath) }

// trayLogPath is the log file this process writes: the value of start's
// --log-file among args, else the data directory's metaclaw.log.
func trayLogPath(args []string, dir string) string {
	for i, arg := range args {
		for _, name := range []string{"--log-file", "-log-file"} {
			v, ok := strings.CutPrefix(arg, name+"=")
			if arg == name && i+1 < len(args) {
				v, ok = args[i+1], true
			}
			if ok {
				if abs, err := filepath.Abs(v); err == nil {
					return abs
				}
				return v
			}
		}
	}
	return filepath.Join(dir, instance.LogName)
}

// trayOpen opens a URL or a file with the desktop's default application.
func trayOpen(target string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", target)
	case "darwin":
		cmd = exec.Command("open", target)
	default:
		cmd = exec.Command("xdg-open", target)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("open %s: %w", target, err)
	}
	go func() { _ = cmd.Wait() }() // reap it; the opener's exit status says little
	return nil
}

// trayLogWriter logs each line written to it (the output of a command run
// for the tray).
type trayLogWriter struct{ log *slog.Logger }

func (w trayLogWriter) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		if line != "" {
			w.log.Info("open: " + line)
		}
	}
	return len(p), nil
}
