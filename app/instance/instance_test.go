package instance

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestAcquireMakesTheDataDirectoryPrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("permission bits do not describe access on Windows")
	}
	t.Parallel()
	tests := []struct {
		name   string
		before os.FileMode // 0: the directory does not exist
		was    os.FileMode
	}{
		{"created", 0, 0},
		{"open to others", 0o755, 0o755},
		{"open to the group", 0o750, 0o750},
		{"already private", 0o700, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			home := filepath.Join(t.TempDir(), "home")
			if tt.before != 0 {
				if err := os.Mkdir(home, tt.before); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(home, tt.before); err != nil { // past the umask
					t.Fatal(err)
				}
			}
			l, err := Acquire(home)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Release()
			fi, err := os.Stat(home)
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode().Perm(); got != 0o700 {
				t.Errorf("mode %#o, want 0700", got)
			}
			if was, ok := l.Tightened(); was != tt.was || ok != (tt.was != 0) {
				t.Errorf("Tightened() = %#o, %v; want %#o", was, ok, tt.was)
			}
		})
	}
}
