package tokenizer

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGoldensRegenerate reruns the golden generator (Node with Hugging
// Face's tokenizers.js and @huggingface/jinja) and checks that it writes
// the committed goldens. It runs only with METACLAW_E2E=1 and node and
// npm on the PATH; the npm packages go to ~/.cache/metaclaw-e2e.
func TestGoldensRegenerate(t *testing.T) {
	if os.Getenv("METACLAW_E2E") != "1" {
		t.Skip("set METACLAW_E2E=1 to regenerate the goldens with Node")
	}
	for _, tool := range []string{"node", "npm", "sh"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found", tool)
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	cmd := exec.Command("sh", filepath.Join(testdata, "hfref", "regen.sh"), out)
	cmd.Env = append(os.Environ(), "HFREF_PREFIX="+filepath.Join(home, ".cache", "metaclaw-e2e", "hfref"))
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("regen.sh: %v\n%s", err, msg)
	}
	for _, file := range []string{"encode.json", "render.json", "kimi.json"} {
		want, got := goldenBody(t, filepath.Join(testdata, "golden", file)), goldenBody(t, filepath.Join(out, file))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s regenerated differs from the committed one (-committed +new):\n%s", file, diff)
		}
	}
}

// goldenBody reads a golden file without its meta block (which names the
// Node version).
func goldenBody(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "meta")
	return m
}
