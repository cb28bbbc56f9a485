package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestStartMakesTheDataDirectoryPrivate: a data directory created before
// MetaClaw (by hand, by a backup restore) open to other users is made 0700
// at start, and the log says so.
func TestStartMakesTheDataDirectoryPrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("permission bits do not describe access on Windows")
	}
	t.Parallel()
	in := newInstance(t)
	if err := os.Chmod(in.home, 0o755); err != nil {
		t.Fatal(err)
	}
	in.setup()
	in.must("start", "--daemon")
	defer in.must("stop")
	fi, err := os.Stat(in.home)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != 0o700 {
		t.Errorf("data directory is %#o after start, want 0700", got)
	}
	log, _ := os.ReadFile(filepath.Join(in.home, "metaclaw.log"))
	if !strings.Contains(string(log), "made it private (0700)") || !strings.Contains(string(log), "was=0755") {
		t.Errorf("the log does not say the directory was tightened:\n%s", log)
	}
}
