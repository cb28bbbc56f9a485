package bench

import (
	"context"
	"runtime"
	"testing"

	"github.com/metaclaw/metaclaw/app/learner/toolloop"
)

func TestCheckFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("sh commands")
	}
	ws := t.TempDir()
	one, three := 1, 3
	out := "ok:"
	re := `^OK: \d+$`
	tests := []struct {
		name string
		ev   Eval
		want bool
	}{
		{"exit 0", Eval{Command: "true"}, true},
		{"exit 1", Eval{Command: "false"}, false},
		{"expected exit 1", Eval{Command: "exit 1", ExpectExit: &one}, true},
		{"expected exit 3, got 1", Eval{Command: "exit 1", ExpectExit: &three}, false},
		{"stdout contains", Eval{Command: "echo ok: fine", ExpectStdout: &out}, true},
		{"stdout lacks", Eval{Command: "echo OK: fine", ExpectStdout: &out}, false},
		{"stdout regex", Eval{Command: "echo OK: 42", ExpectStdout: &re, ExpectStdoutRegex: true}, true},
		{"timeout", Eval{Command: "sleep 5", Timeout: 0.2}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckFile(context.Background(), toolloop.Shell{}, &tt.ev, ws)
			if got.Passed != tt.want || (got.Score == 1) != tt.want {
				t.Errorf("%+v: passed %v score %v (%q), want %v", tt.ev, got.Passed, got.Score, got.Output, tt.want)
			}
		})
	}
}
