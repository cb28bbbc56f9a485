package rollout

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// OpenClaw runs a task through OpenClaw's non-interactive agent command,
// `openclaw agent --local --json --session-id S --message M --timeout N`
// (reference/openclaw-client.md; app/cmd/metaclaw/openclaw_e2e_test.go runs
// the same command against the proxy). OpenClaw must already point at the
// proxy (metaclaw start does so for claw_type openclaw). It sends no
// session header: the proxy groups its turns and ends the session after
// proxy.session_idle_minutes, as it does for OpenClaw's live sessions.
type OpenClaw struct {
	Bin     string // the openclaw command ("openclaw" from PATH when empty)
	Timeout time.Duration
}

// Run runs one episode of a task.
func (o OpenClaw) Run(ctx context.Context, t Task, session string) (int, error) {
	bin := o.Bin
	if bin == "" {
		bin = "openclaw"
	}
	if _, err := exec.LookPath(bin); err != nil {
		return 0, fmt.Errorf("claw_type openclaw, but the openclaw command is not on PATH: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "agent", "--local", "--json", "--session-id", session,
		"--message", t.Instruction, "--timeout", strconv.Itoa(int(o.Timeout.Seconds())))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 300 {
			msg = "…" + msg[len(msg)-300:]
		}
		return 0, fmt.Errorf("openclaw agent: %w: %s", err, msg)
	}
	return 1, nil
}
