//go:build unix

package cli

import (
	"fmt"
	"log/slog"
	"os"
	"syscall"
)

// reexec replaces this process with a new run of the same command, once
// the app has stopped and released the data directory: a restart keeps the
// pid, the terminal and the log.
func reexec(log *slog.Logger) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("restart: find own executable: %w", err)
	}
	log.Info("MetaClaw restarting")
	if err := syscall.Exec(exe, os.Args, os.Environ()); err != nil {
		return fmt.Errorf("restart: %w", err)
	}
	return nil
}
