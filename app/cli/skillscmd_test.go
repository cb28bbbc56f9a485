package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestSkillsHelpIsNotAnArgument: --help on a skills subcommand that takes
// a folder or a name prints its usage and touches nothing (skills export
// --help once exported the library into a folder named "--help").
func TestSkillsHelpIsNotAnArgument(t *testing.T) {
	t.Setenv("METACLAW_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	for _, sub := range []string{"export", "import", "delete", "disable", "revert"} {
		var out, errOut bytes.Buffer
		Main([]string{"skills", sub, "--help"}, &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
		if !strings.Contains(errOut.String(), "Usage: metaclaw skills "+sub) {
			t.Errorf("skills %s --help printed %q %q", sub, out.String(), errOut.String())
		}
	}
	if _, err := os.Stat("--help"); !os.IsNotExist(err) {
		t.Errorf("a folder named --help exists: %v", err)
	}
}
