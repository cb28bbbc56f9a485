package web

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/metaclaw/metaclaw/store/config"
)

func TestTail(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	for i := 1; i <= 1000; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	path := filepath.Join(dir, "log")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		n         int
		max       int64
		first     string
		wantLines int
	}{
		{"last lines", 3, 1 << 20, "line 998", 3},
		{"byte cap drops the partial line", 100, 40, "line 997", 4},
		{"fewer lines than asked", 5000, 1 << 20, "line 1", 1000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lines, err := tail(path, tc.n, tc.max)
			if err != nil {
				t.Fatal(err)
			}
			if len(lines) != tc.wantLines || lines[0] != tc.first || lines[len(lines)-1] != "line 1000" {
				t.Errorf("got %d lines, first %q, last %q", len(lines), lines[0], lines[len(lines)-1])
			}
		})
	}
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o600)
	if lines, err := tail(empty, 10, 100); err != nil || len(lines) != 0 {
		t.Errorf("empty file: %q, %v", lines, err)
	}
	if _, err := tail(filepath.Join(dir, "none"), 10, 100); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
}

func TestRedact(t *testing.T) {
	t.Parallel()
	c := config.Defaults()
	_ = c.Set("llm.api_key", "moonshot-key-abcdef")
	_ = c.Set("rl.api_key", "abc") // too short to hunt for
	secrets := secretValues(c)
	if diff := cmp.Diff([]string{"moonshot-key-abcdef"}, secrets); diff != "" {
		t.Fatalf("secretValues: %s", diff)
	}
	in := []string{
		"msg=upstream key=moonshot-key-abcdef failed",
		"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload",
		"openai key sk-proj-AbCdEf0123456789 leaked",
		`api_key="zzzzzzzzzzzz" token: 0123456789abcdef`,
		"an ordinary line about abc",
	}
	want := []string{
		"msg=upstream key=******** failed",
		"Authorization: Bearer ********",
		"openai key sk-******** leaked",
		`api_key="********" token: ********`,
		"an ordinary line about abc",
	}
	if diff := cmp.Diff(want, redact(in, secrets)); diff != "" {
		t.Errorf("redact (-want +got):\n%s", diff)
	}
}
