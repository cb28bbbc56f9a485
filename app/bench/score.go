package bench

import (
	"fmt"
	"regexp"
	"strings"
)

// FeedbackMarker starts every feedback message, as in the reference
// (benchmark/src/infer/prompts.py).
const FeedbackMarker = "[Previous Feedback]"

// The feedback wording is ours; what each text says follows the reference's
// prompts.py: a reminder closes every error, a missing box gets a format
// note, and each wrong option gets its explanation.
const (
	reminder   = "Keep this in mind for the tasks that follow."
	formatNote = `Note: your previous answer had no \bbox{X} with your choice (\bbox{A} for one option, \bbox{A,B} for several). ` + reminder
	missedLine = "You missed option %s: %s"
	wrongLine  = "You wrongly selected option %s: %s"
)

// boxRE finds a \bbox{…} or \boxed{…}. The last one counts, as issue 22
// specifies and as a model that corrects itself ("\bbox{A}… no, \bbox{B}")
// means; the reference reads the first (re.search in _extract_bbox_answer),
// which docs/bench.md says.
var boxRE = regexp.MustCompile(`\\(?:bbox|boxed)\{([^}]*)\}`)

// Result is a round's score.
type Result struct {
	Score    float64
	Passed   bool    // exact match (multi_choice) or the check passed (file_check)
	Selected Letters // multi_choice: the box's letters; nil without a box
	Format   bool    // multi_choice: a box with at least one letter was found
	Output   string  // file_check: the check's output, for the log
}

// ScoreMultiChoice scores an answer to a multi_choice round: the letters
// of the last box against eval.answer, 1 − (FP+FN)/n_options (n_options
// is the number of eval.options; with none given, the letters named by the
// answer and the key). Without a box, or with no letter in it, the round
// scores 0. Letters that are not options count as wrong selections, so a
// box full of them can score below 0, as in the reference.
func ScoreMultiChoice(r *Round, answer string) Result {
	var res Result
	if all := boxRE.FindAllStringSubmatch(answer, -1); all != nil {
		if l := lettersOf(all[len(all)-1][1]); len(l) > 0 {
			res.Selected, res.Format = l, true
		}
	}
	want := r.Eval.Answer
	if !res.Format || len(want) == 0 {
		return res
	}
	sel := map[string]bool{}
	for _, l := range res.Selected {
		sel[l] = true
	}
	tp := 0
	for _, l := range want {
		if sel[l] {
			tp++
		}
	}
	fp, fn := len(res.Selected)-tp, len(want)-tp
	n := len(r.Eval.Options)
	if n == 0 {
		n = len(res.Selected) + fn
	}
	res.Score = 1 - float64(fp+fn)/float64(n)
	res.Passed = fp == 0 && fn == 0
	return res
}

// FeedbackText is the feedback a round's result earns ("" for none).
func FeedbackText(r *Round, res Result) string {
	if r.Type == FileCheck {
		if res.Passed {
			return r.Feedback.Correct
		}
		if r.Feedback.Incorrect == "" {
			return ""
		}
		return r.Feedback.Incorrect + "\n" + reminder
	}
	if !res.Format {
		return formatNote
	}
	if res.Passed {
		return r.Feedback.Correct
	}
	sel := map[string]bool{}
	for _, l := range res.Selected {
		sel[l] = true
	}
	want := map[string]bool{}
	var lines []string
	for _, l := range r.Eval.Answer {
		want[l] = true
		if !sel[l] {
			lines = append(lines, fmt.Sprintf(missedLine, l, r.Feedback.Options[l]))
		}
	}
	for _, l := range res.Selected {
		if !want[l] {
			lines = append(lines, fmt.Sprintf(wrongLine, l, r.Feedback.Options[l]))
		}
	}
	return strings.Join(append(lines, reminder), "\n")
}

// Message is the message a round sends: its question, after the previous
// round's feedback when there is any.
func Message(prevFeedback, question string) string {
	if prevFeedback == "" {
		return question
	}
	return FeedbackMarker + " " + prevFeedback + "\n\n" + question
}

// FeedbackMessage is the message that carries the feedback on a group's
// last round.
func FeedbackMessage(feedback string) string {
	return FeedbackMarker + " " + feedback
}
