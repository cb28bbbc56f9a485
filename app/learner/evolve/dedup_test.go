package evolve

import (
	"testing"
)

func TestNormName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"debug-failing-tests": "debug-failing-test", "Debug Failing Test": "debug-failing-test",
		"debug_failing_test": "debug-failing-test", "use-ss-class": "use-ss-class", "access-rules": "access-rule",
		"gas": "gas", "address-bus": "address-bus",
	} {
		if got := normName(in); got != want {
			t.Errorf("normName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestJaccard(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		min  float64
		max  float64
	}{
		{"Read the failing output, reproduce it, fix the cause.", "Read the failing output; reproduce it and fix the cause!", 0.99, 1},
		{"Read the failing output, reproduce it, fix the cause.", "Write release notes from the merged pull requests.", 0, 0.1},
		{"", "", 0, 0},
	}
	for _, tt := range tests {
		if got := jaccard(wordSet(tt.a), wordSet(tt.b)); got < tt.min || got > tt.max {
			t.Errorf("jaccard(%q, %q) = %.2f, want in [%.2f, %.2f]", tt.a, tt.b, got, tt.min, tt.max)
		}
	}
}

func TestInjectedSkills(t *testing.T) {
	t.Parallel()
	got := injectedSkills(`["skill:a@1","memory:m","skill:b-c@12","skill:d"]`)
	if len(got) != 3 || got[0] != "a" || got[1] != "b-c" || got[2] != "d" {
		t.Errorf("injectedSkills = %v", got)
	}
	if injectedSkills("") != nil || injectedSkills("{") != nil {
		t.Error("want nil for empty or bad JSON")
	}
}
