package toolloop

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// maxOutput bounds the output a command returns to the agent or the log.
const maxOutput = 16 << 10

// Shell runs shell commands in a folder with a time limit and a fixed
// environment; with Isolated it denies them the network (see
// isolate_*.go and the package doc for what that means). The exec tool
// uses it, and the bench's file checks.
type Shell struct {
	Env      []string // the environment; nil: the process's
	Isolated bool     // commands run without network
	Timeout  time.Duration
}

// RunResult is what a command did.
type RunResult struct {
	ExitCode int // -1 when it did not run to an exit (timeout, start failure)
	Output   string
	TimedOut bool
}

// Run runs command with sh -c (cmd /C on Windows) in dir. Its output
// (stdout and stderr) is kept up to maxOutput bytes; at the time limit the
// command and every process it started are killed.
func (s *Shell) Run(ctx context.Context, dir, command string) RunResult {
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	if s.Isolated && !canIsolate {
		return RunResult{ExitCode: -1, Output: "[refused: " + isolationMissing + "]"}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := shellCommand(ctx, command)
	cmd.Dir, cmd.Env = dir, s.Env
	var out capped
	cmd.Stdout, cmd.Stderr = &out, &out
	setProcessGroup(cmd)
	if s.Isolated {
		isolate(cmd)
	}
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	res := RunResult{ExitCode: -1, Output: out.String()}
	var exit *exec.ExitError
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		res.TimedOut = true
		res.Output += fmt.Sprintf("\n[killed after %s]", timeout)
	case err == nil:
		res.ExitCode = 0
	case errors.As(err, &exit):
		res.ExitCode = exit.ExitCode()
	default:
		res.Output += "\n[" + err.Error() + "]"
	}
	return res
}

// capped is a buffer that keeps the first maxOutput bytes.
type capped struct {
	buf       bytes.Buffer
	truncated bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := maxOutput - c.buf.Len(); room < len(p) {
		c.buf.Write(p[:max(room, 0)])
		c.truncated = true
		return len(p), nil
	}
	return c.buf.Write(p)
}

func (c *capped) String() string {
	if c.truncated {
		return c.buf.String() + "\n[output truncated]"
	}
	return c.buf.String()
}

// ProbeIsolation reports whether commands can be denied the network here,
// by running one so.
func ProbeIsolation(ctx context.Context) error {
	if !canIsolate {
		return errors.New(isolationMissing)
	}
	s := Shell{Isolated: true, Timeout: 10 * time.Second}
	dir, err := os.MkdirTemp("", "metaclaw-toolloop-probe")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if r := s.Run(ctx, dir, "exit 0"); r.ExitCode != 0 {
		return fmt.Errorf("%s: %s", isolationMissing, strings.TrimSpace(r.Output))
	}
	return nil
}
