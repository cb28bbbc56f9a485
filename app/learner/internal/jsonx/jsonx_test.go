package jsonx

import (
	"testing"
)

func TestFirstObject(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
		err            bool
	}{
		{name: "bare", in: `{"score": 1}`, want: `{"score": 1}`},
		{name: "fenced", in: "Here:\n```json\n{\"score\": -1, \"reason\": \"x\"}\n```\nDone", want: `{"score": -1, "reason": "x"}`},
		{name: "fence without info", in: "```\n{\"a\":1}\n```", want: `{"a":1}`},
		{name: "prose around", in: `I think {"score": 0, "reason": "unclear {x}"} is fair.`, want: `{"score": 0, "reason": "unclear {x}"}`},
		{name: "broken first", in: `{oops} then {"score": 1}`, want: `{"score": 1}`},
		{name: "nested", in: `{"operations": [{"op": "add"}]}`, want: `{"operations": [{"op": "add"}]}`},
		{name: "none", in: "no json here", err: true},
		{name: "truncated", in: `{"score": 1`, err: true},
		{name: "array only", in: `[1, 2]`, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := FirstObject(tt.in)
			if tt.err {
				if err == nil {
					t.Fatalf("FirstObject(%q) = %s, want an error", tt.in, got)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("FirstObject(%q) = %s, %v; want %s", tt.in, got, err, tt.want)
			}
		})
	}
}

func FuzzFirstObject(f *testing.F) {
	f.Add("```json\n{\"score\": 1}\n```")
	f.Add(`x {"a": {"b": [1, {"c": 2}]}} y`)
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = FirstObject(s) // must not panic
	})
}
