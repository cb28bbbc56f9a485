package autostart

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestXDGEntry turns the entry on and off in a temporary XDG_CONFIG_HOME.
// go-autostart reads XDG_CONFIG_HOME when the program starts, so the test
// runs itself again with the variable set.
func TestXDGEntry(t *testing.T) {
	if os.Getenv("METACLAW_AUTOSTART_CHILD") != "1" {
		cfg := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^TestXDGEntry$", "-test.v")
		cmd.Env = append(os.Environ(), "METACLAW_AUTOSTART_CHILD=1", "XDG_CONFIG_HOME="+cfg)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		if _, err := os.Stat(filepath.Join(cfg, "autostart")); err != nil {
			t.Errorf("the child did not use XDG_CONFIG_HOME: %v\n%s", err, out)
		}
		return
	}
	cfg := os.Getenv("XDG_CONFIG_HOME")
	e := New("/opt/Meta Claw/metaclaw")
	if want := filepath.Join(cfg, "autostart", "metaclaw.desktop"); e.Location() != want {
		t.Fatalf("Location = %q, want %q", e.Location(), want)
	}
	if e.Enabled() {
		t.Fatal("enabled before Enable")
	}
	if err := e.Enable(); err != nil {
		t.Fatal(err)
	}
	if !e.Enabled() {
		t.Fatal("not enabled after Enable")
	}
	data, err := os.ReadFile(e.Location())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"[Desktop Entry]", "Type=Application", "Name=MetaClaw", `Exec="/opt/Meta Claw/metaclaw"`, "Icon=metaclaw"} {
		if !strings.Contains(string(data), want+"\n") {
			t.Errorf("entry lacks %q:\n%s", want, data)
		}
	}
	if err := e.Enable(); err != nil {
		t.Fatalf("second Enable: %v", err)
	}
	for i := 0; i < 2; i++ {
		if err := e.Disable(); err != nil {
			t.Fatalf("Disable #%d: %v", i+1, err)
		}
		if e.Enabled() {
			t.Fatalf("enabled after Disable #%d", i+1)
		}
	}
}
