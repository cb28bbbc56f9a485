package autostart

import (
	"os"
	"path/filepath"
	"testing"
)

func TestGUISibling(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cli := filepath.Join(dir, "metaclaw-cli.exe")
	gui := filepath.Join(dir, "metaclaw.exe")
	lonely := filepath.Join(t.TempDir(), "metaclaw-cli.exe")
	for _, f := range []string{cli, gui, lonely} {
		if err := os.WriteFile(f, nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, exe, goos, want string
	}{
		{"windows console build", cli, "windows", gui},
		{"windows GUI build", gui, "windows", gui},
		{"console build alone", lonely, "windows", lonely},
		{"not windows", cli, "linux", cli},
		{"plain binary", "/usr/bin/metaclaw", "linux", "/usr/bin/metaclaw"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := guiSibling(tt.exe, tt.goos); got != tt.want {
				t.Errorf("guiSibling(%q, %s) = %q, want %q", tt.exe, tt.goos, got, tt.want)
			}
		})
	}
}
