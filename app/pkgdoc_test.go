package app

import (
	"os/exec"
	"strings"
	"testing"
)

// TestPackageDocs checks that every package of the module has a package doc
// comment that starts the way Go's doc convention says ("Package name …",
// or "Command name …" for a main package).
func TestPackageDocs(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}|{{.Name}}|{{.Doc}}", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.SplitN(line, "|", 3)
		pkg, name, doc := parts[0], parts[1], parts[2]
		n++
		want := "Package " + name + " "
		if name == "main" {
			want = "Command "
		}
		if !strings.HasPrefix(doc, want) {
			t.Errorf("%s: package doc %q should start with %q", pkg, doc, want)
		}
	}
	if n < 20 {
		t.Fatalf("only %d packages listed", n)
	}
}
