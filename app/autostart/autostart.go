// Package autostart turns "start MetaClaw at login" on and off for the
// current user: an XDG autostart entry on Linux and a LaunchAgent on macOS
// (both written by github.com/emersion/go-autostart), and a value under the
// HKCU Run key on Windows. On Windows go-autostart needs cgo (it makes a
// shortcut through COM), so this package writes the Run value itself with
// golang.org/x/sys/windows/registry and the Windows build stays CGO_ENABLED=0;
// the NSIS installer (build/windows) writes and removes the same value.
//
// The tray, the web page's glue and `metaclaw autostart` use it; it imports
// no project package.
package autostart

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// DisplayName is the name people see in their session's startup list.
const DisplayName = "MetaClaw"

// Entry is the login item that starts one MetaClaw executable, with no
// arguments (as a double-click does: proxy and tray).
type Entry struct {
	exe string
}

// New returns the entry for an executable (an absolute path).
func New(exe string) *Entry { return &Entry{exe: exe} }

// ForThisProgram returns the entry for the running executable, see
// Executable.
func ForThisProgram() (*Entry, error) {
	exe, err := Executable()
	if err != nil {
		return nil, err
	}
	return New(exe), nil
}

// Executable returns the program a login should start: the running
// executable with symbolic links resolved. On Windows, when it runs as the
// console build metaclaw-cli.exe next to the GUI build metaclaw.exe, it is
// the GUI build, so that no console window opens at login.
func Executable() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find own executable: %w", err)
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	return guiSibling(exe, runtime.GOOS), nil
}

// guiSibling maps …/metaclaw-cli.exe to …/metaclaw.exe on Windows when that
// file exists.
func guiSibling(exe, goos string) string {
	if goos != "windows" || !strings.EqualFold(filepath.Base(exe), "metaclaw-cli.exe") {
		return exe
	}
	gui := filepath.Join(filepath.Dir(exe), "metaclaw.exe")
	if _, err := os.Stat(gui); err != nil {
		return exe
	}
	return gui
}

// Exe returns the executable the entry starts.
func (e *Entry) Exe() string { return e.exe }
