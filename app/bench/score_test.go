package bench

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func mcRound(answer string, options ...string) *Round {
	r := &Round{ID: "r", Type: MultiChoice, Eval: Eval{Answer: lettersOf(answer), Options: map[string]string{}},
		Feedback: Feedback{Correct: "Correct!", Options: map[string]string{}}}
	for _, o := range options {
		r.Eval.Options[o] = "option " + o
		r.Feedback.Options[o] = "why " + o
	}
	return r
}

func TestScoreMultiChoice(t *testing.T) {
	abcd := []string{"A", "B", "C", "D"}
	tests := []struct {
		name    string
		round   *Round
		answer  string
		want    float64
		passed  bool
		format  bool
		letters Letters
	}{
		{"exact", mcRound("A,C", abcd...), `So: \bbox{A,C}`, 1, true, true, Letters{"A", "C"}},
		{"order and case do not matter", mcRound("A,C", abcd...), `\bbox{c, a}`, 1, true, true, Letters{"A", "C"}},
		{"one missed", mcRound("A,C", abcd...), `\bbox{A}`, 0.75, false, true, Letters{"A"}},
		{"one wrong", mcRound("C", abcd...), `\bbox{C,D}`, 0.75, false, true, Letters{"C", "D"}},
		{"one missed one wrong of six", mcRound("A,B,D", "A", "B", "C", "D", "E", "F"), `\bbox{A,B,C}`, 1 - 2.0/6, false, true, Letters{"A", "B", "C"}},
		{"boxed", mcRound("C", abcd...), `\boxed{C}`, 1, true, true, Letters{"C"}},
		{"the last box counts", mcRound("B", abcd...), `\bbox{A} no wait \bbox{B}`, 1, true, true, Letters{"B"}},
		{"a last box without letters is no answer", mcRound("B", abcd...), `\bbox{B} then \boxed{}`, 0, false, false, nil},
		{"no box", mcRound("B", abcd...), "I think it is B.", 0, false, false, nil},
		{"a box without a letter", mcRound("B", abcd...), `\bbox{2}`, 0, false, false, nil},
		{"letters that are not options", mcRound("A", abcd...), `\bbox{WXYZ}`, 1 - 5.0/4, false, true, Letters{"W", "X", "Y", "Z"}},
		{"no options listed", mcRound("A,B"), `\bbox{A}`, 0.5, false, true, Letters{"A"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ScoreMultiChoice(tt.round, tt.answer)
			want := Result{Score: tt.want, Passed: tt.passed, Format: tt.format, Selected: tt.letters}
			if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestFeedbackText(t *testing.T) {
	mc := mcRound("A,C", "A", "B", "C", "D")
	fc := &Round{Type: FileCheck, Feedback: Feedback{Correct: "Fine.", Incorrect: "Name it right."}}
	tests := []struct {
		name  string
		round *Round
		res   Result
		want  string
	}{
		{"multi_choice right", mc, Result{Passed: true, Format: true, Selected: Letters{"A", "C"}}, "Correct!"},
		{"multi_choice missed and wrong", mc, Result{Format: true, Selected: Letters{"A", "B"}},
			"You missed option C: why C\nYou wrongly selected option B: why B\nKeep this in mind for the tasks that follow."},
		{"multi_choice without a box", mc, Result{}, formatNote},
		{"file_check passed", fc, Result{Passed: true}, "Fine."},
		{"file_check failed", fc, Result{}, "Name it right.\nKeep this in mind for the tasks that follow."},
		{"file_check failed without a text", &Round{Type: FileCheck}, Result{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FeedbackText(tt.round, tt.res); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMessages(t *testing.T) {
	if got := Message("", "Q?"); got != "Q?" {
		t.Errorf("no feedback: %q", got)
	}
	if got, want := Message("Well done.", "Q?"), "[Previous Feedback] Well done.\n\nQ?"; got != want {
		t.Errorf("with feedback: %q, want %q", got, want)
	}
	if got, want := FeedbackMessage("Well done."), "[Previous Feedback] Well done."; got != want {
		t.Errorf("standalone: %q, want %q", got, want)
	}
}

func TestLettersOfAnswer(t *testing.T) {
	for in, want := range map[string]Letters{`"A,C"`: {"A", "C"}, `["c","A"]`: {"A", "C"}, `"B"`: {"B"}} {
		var l Letters
		if err := l.UnmarshalJSON([]byte(in)); err != nil || !cmp.Equal(l, want) {
			t.Errorf("%s: %v, %v; want %v", in, l, err, want)
		}
	}
}
