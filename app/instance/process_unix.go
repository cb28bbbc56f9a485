//go:build unix

package instance

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// Alive reports whether a process with this pid exists.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Terminate asks a process to stop gracefully (SIGTERM).
func Terminate(pid int) error { return syscall.Kill(pid, syscall.SIGTERM) }

// Kill stops a process at once (SIGKILL).
func Kill(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }

// Detach makes cmd run in its own session, so it outlives the terminal that
// started it and gets no signals meant for that terminal's process group.
func Detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// Cmdline returns a process's command line where the OS exposes it.
func Cmdline(pid int) string {
	b, err := os.ReadFile("/proc/" + itoa(pid) + "/cmdline")
	if err != nil {
		return ""
	}
	return string(b)
}
