package toolloop

import (
	"context"
	"os/exec"
)

func shellCommand(ctx context.Context, command string) *exec.Cmd {
	return exec.CommandContext(ctx, "cmd", "/C", command)
}

// setProcessGroup leaves the default: exec kills the command itself at the
// time limit.
func setProcessGroup(*exec.Cmd) {}
