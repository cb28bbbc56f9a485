//go:build windows

package instance

import (
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// Alive reports whether a process with this pid exists.
func Alive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return false
	}
	return code == 259 // STILL_ACTIVE
}

// Terminate asks a process to stop. Windows has no SIGTERM for a GUI
// process; the caller first asks over the proxy's control endpoint, so this
// is the forced path.
func Terminate(pid int) error { return Kill(pid) }

// Kill stops a process at once.
func Kill(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

// Detach makes cmd run without a console, in its own process group.
func Detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.DETACHED_PROCESS}
}

// Cmdline is not available on Windows without privileges; the health
// endpoint identifies the process instead.
func Cmdline(pid int) string { return "" }
