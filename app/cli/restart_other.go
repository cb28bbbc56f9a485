//go:build !unix

package cli

import (
	"fmt"
	"log/slog"
	"os"
	"os/exec"
)

// reexec starts a new run of the same command, once the app has stopped
// and released the data directory, and lets this one end.
func reexec(log *slog.Logger) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("restart: find own executable: %w", err)
	}
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Environ(), os.Stdin, os.Stdout, os.Stderr
	log.Info("MetaClaw restarting")
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("restart: %w", err)
	}
	return nil
}
