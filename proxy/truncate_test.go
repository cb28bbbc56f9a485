package proxy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTruncate(t *testing.T) {
	t.Parallel()
	sys := msgInfo{system: true, tokens: 10}
	user := msgInfo{user: true, tokens: 10}
	asst := msgInfo{tokens: 10}
	call := msgInfo{tokens: 10}
	result := msgInfo{tokens: 10}
	tests := []struct {
		name   string
		msgs   []msgInfo
		budget int
		want   []bool
	}{
		{"under budget", []msgInfo{sys, user, asst}, 100, nil},
		{"off", []msgInfo{sys, user, asst}, 0, nil},
		{"oldest turns go, system stays", []msgInfo{sys, user, asst, user, asst, user}, 35,
			[]bool{false, true, true, true, true, false}},
		{"tool result never split from its call", []msgInfo{sys, user, call, result, result, asst, user}, 45,
			[]bool{false, true, true, true, true, true, false}},
		{"a turn with tool calls stays whole", []msgInfo{user, asst, user, call, result, call, result}, 55,
			[]bool{true, true, false, false, false, false, false}},
		{"newest turn kept even over budget", []msgInfo{sys, user, call, result}, 5,
			[]bool{false, false, false, false}},
		{"consecutive user messages are one turn", []msgInfo{user, asst, user, user, call, result}, 45,
			[]bool{true, true, false, false, false, false}},
		{"leading assistant is its own turn", []msgInfo{asst, user, asst, user}, 25,
			[]bool{true, true, true, false}},
		{"system in the middle stays", []msgInfo{user, sys, asst, user}, 25,
			[]bool{true, false, true, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := truncate(tt.msgs, tt.budget)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("drop (-want +got):\n%s", diff)
			}
		})
	}
}
