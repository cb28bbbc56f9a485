package bench

import (
	"context"
	"regexp"
	"strings"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/toolloop"
)

// CheckFile runs a file_check round's check in the workspace: the command
// passes when its exit code is eval.expect_exit (0 when not given) and,
// when eval.expect_stdout is given, the output contains it (matches it, as
// a regular expression, with expect_stdout_regex). The check runs with
// eval.timeout seconds (30 when not given) and the shell's environment.
func CheckFile(ctx context.Context, sh toolloop.Shell, ev *Eval, workspace string) Result {
	sh.Timeout = 30 * time.Second
	if ev.Timeout > 0 {
		sh.Timeout = time.Duration(ev.Timeout * float64(time.Second))
	}
	sh.Isolated = false // the benchmark's own checks, as the reference runs them
	r := sh.Run(ctx, workspace, ev.Command)
	want := 0
	if ev.ExpectExit != nil {
		want = *ev.ExpectExit
	}
	passed := !r.TimedOut && r.ExitCode == want
	if passed && ev.ExpectStdout != nil {
		if ev.ExpectStdoutRegex {
			// Python's $ (the reference's re.search) also matches before a
			// final newline; Go's does not, so the output loses it.
			re, err := regexp.Compile(*ev.ExpectStdout)
			passed = err == nil && re.MatchString(strings.TrimSuffix(r.Output, "\n"))
		} else {
			passed = strings.Contains(r.Output, *ev.ExpectStdout)
		}
	}
	res := Result{Passed: passed, Output: r.Output}
	if passed {
		res.Score = 1
	}
	return res
}
