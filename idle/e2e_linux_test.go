package idle

// Helpers for the Linux end-to-end tests of the idle-time sources: they
// start real Xvfb, dbus-daemon and mutter processes, each in its own
// process group that is killed when the test ends, pass or fail.

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// inputNeedTool skips the test when tool is not on PATH, or fails it
// when METACLAW_E2E=1 (CI), naming the apt package that provides it.
func inputNeedTool(tb testing.TB, tool, aptPackage string) {
	tb.Helper()
	if _, err := exec.LookPath(tool); err != nil {
		if os.Getenv("METACLAW_E2E") == "1" {
			tb.Fatalf("METACLAW_E2E=1 needs %s (apt-get install %s): %v", tool, aptPackage, err)
		}
		tb.Skipf("%s not found (apt-get install %s)", tool, aptPackage)
	}
}

// inputLog collects a process's output for failure messages; the exec
// copier goroutine and the test read it concurrently.
type inputLog struct {
	mu  sync.Mutex // guards buf
	buf bytes.Buffer
}

func (l *inputLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *inputLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// inputStart starts cmd in a new process group that dies with the test
// binary (Pdeathsig) and is killed at cleanup: SIGTERM, then SIGKILL for
// whatever is left after 10 s. The returned channel closes when cmd
// exits.
func inputStart(tb testing.TB, cmd *exec.Cmd) <-chan struct{} {
	tb.Helper()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start %s: %v", cmd.Path, err)
	}
	pgid := cmd.Process.Pid
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait() // killed at cleanup; its exit status says nothing
		close(exited)
	}()
	tb.Cleanup(func() {
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
		}
		_ = syscall.Kill(-pgid, syscall.SIGKILL) // stragglers in the group
		<-exited
	})
	return exited
}

// inputReadLine reads the first line a child writes to r, failing the
// test when none comes within timeout.
func inputReadLine(tb testing.TB, r *os.File, what string, timeout time.Duration, log *inputLog) string {
	tb.Helper()
	if err := r.SetReadDeadline(time.Now().Add(timeout)); err != nil {
		tb.Fatalf("%s: set read deadline: %v", what, err)
	}
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		tb.Fatalf("%s: no line within %v: %v\n%s", what, timeout, err, log)
	}
	return strings.TrimSpace(line)
}

// inputXvfb starts Xvfb (1280x720, 24 bit) on a display number it picks
// itself (-displayfd: no race with other X servers on this machine) and
// returns the display, e.g. ":3", once the server accepts connections.
// -noreset keeps the server, and so its idle time, alive between clients.
func inputXvfb(tb testing.TB) string {
	tb.Helper()
	inputNeedTool(tb, "Xvfb", "xvfb")
	r, w, err := os.Pipe()
	if err != nil {
		tb.Fatalf("pipe: %v", err)
	}
	defer r.Close()
	log := &inputLog{}
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x720x24", "-nolisten", "tcp", "-noreset")
	cmd.ExtraFiles = []*os.File{w} // fd 3 in the child
	cmd.Stdout, cmd.Stderr = log, log
	inputStart(tb, cmd)
	w.Close()
	n := inputReadLine(tb, r, "Xvfb -displayfd", 60*time.Second, log)
	return ":" + n
}

// inputDBus starts a private session bus (dbus-daemon --session) and
// returns its address.
func inputDBus(tb testing.TB) string {
	tb.Helper()
	inputNeedTool(tb, "dbus-daemon", "dbus-daemon")
	r, w, err := os.Pipe()
	if err != nil {
		tb.Fatalf("pipe: %v", err)
	}
	defer r.Close()
	log := &inputLog{}
	cmd := exec.Command("dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=1")
	cmd.Stdout, cmd.Stderr = w, log
	inputStart(tb, cmd)
	w.Close()
	return inputReadLine(tb, r, "dbus-daemon --print-address", 60*time.Second, log)
}

// inputEnv returns this process's environment without the desktop
// variables, plus set ("KEY=value" pairs).
func inputEnv(set ...string) []string {
	drop := map[string]bool{"DISPLAY": true, "WAYLAND_DISPLAY": true, "XDG_SESSION_TYPE": true,
		"DBUS_SESSION_BUS_ADDRESS": true, "XDG_RUNTIME_DIR": true, "XAUTHORITY": true}
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !drop[k] {
			env = append(env, kv)
		}
	}
	return append(env, set...)
}

// inputRun runs a short command and fails the test with its output when
// it fails.
func inputRun(tb testing.TB, env []string, name string, args ...string) {
	tb.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = 5 * time.Second
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// inputEventually polls cond every 50 ms until it returns true or the
// deadline passes; it returns cond's last report for the failure message.
func inputEventually(timeout time.Duration, cond func() (bool, string)) (bool, string) {
	deadline := time.Now().Add(timeout)
	for {
		ok, report := cond()
		if ok || time.Now().After(deadline) {
			return ok, report
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// inputMs formats a duration as whole milliseconds for logs.
func inputMs(d time.Duration) string { return fmt.Sprintf("%d ms", d.Milliseconds()) }
