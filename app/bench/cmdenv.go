package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// CommandEnv returns the environment of the agent's commands and the
// checks: the process's, with binDir first on PATH when it is not empty.
func CommandEnv(binDir string) []string {
	env := os.Environ()
	if binDir == "" {
		return env
	}
	for i, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			env[i] = "PATH=" + binDir + string(os.PathListSeparator) + v
			return env
		}
	}
	return append(env, "PATH="+binDir)
}

// PythonShim makes `python` run python3 when only python3 is installed
// (the reference's checks call `python`): it links dir/python to python3
// and returns dir, or returns "" when no shim is needed or possible.
func PythonShim(dir string) string {
	if _, err := exec.LookPath("python"); err == nil {
		return ""
	}
	py3, err := exec.LookPath("python3")
	if err != nil {
		return ""
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return ""
	}
	link := filepath.Join(dir, "python")
	_ = os.Remove(link)
	if err := os.Symlink(py3, link); err != nil {
		return ""
	}
	return dir
}
