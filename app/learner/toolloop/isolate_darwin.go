package toolloop

import "os/exec"

// canIsolate: macOS runs the command under sandbox-exec with a profile
// that denies every network operation.
const canIsolate = true

const isolationMissing = "sandbox-exec, which denies commands the network on macOS, is not available"

const sandboxProfile = "(version 1)(allow default)(deny network*)"

func isolate(cmd *exec.Cmd) {
	path, err := exec.LookPath("sandbox-exec")
	if err != nil {
		path = "/usr/bin/sandbox-exec" // fails to start, and the probe says so
	}
	cmd.Args = append([]string{path, "-p", sandboxProfile}, cmd.Args...)
	cmd.Path = path
}
