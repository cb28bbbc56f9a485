package memory

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRuleExtract(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		user string
		want []string // contents
	}{
		{"name", "Hi! My name is Ada Lovelace and I need help.", []string{"The user's name is Ada Lovelace."}},
		{"call me", "call me Grace", []string{"The user's name is Grace."}},
		{"lowercase name is no name", "my name is not important", nil},
		{"employer and city", "I work at Acme Corp. I live in Lisbon, Portugal.",
			[]string{"The user works at Acme Corp.", "The user lives in Lisbon, Portugal."}},
		{"favorite", "My favourite editor is Helix, by far.", []string{"The user's favorite editor is Helix."}},
		{"prefer", "I prefer tabs over spaces in Go code.", []string{"The user prefers tabs over spaces in Go code."}},
		{"prefer mid-sentence is not a rule", "Do what you think, I guess I prefer whatever works.", nil},
		{"always", "Always run the tests before committing!", []string{`The user asked: "Always run the tests before committing".`}},
		{"remember", "Please remember that the staging DB is read-only.", []string{"The user asked to remember: the staging DB is read-only."}},
		{"questions are skipped", "Do you remember that my name is Bob? What is my favourite color?", nil},
		{"timezone", "FYI my timezone is Europe/Berlin.", []string{"The user's time zone is Europe/Berlin."}},
		{"plain request", "Please fix the failing test in payments.go", nil},
		{"repeats once", "I prefer dark mode. I prefer dark mode.", []string{"The user prefers dark mode."}},
		{"please remember colon", "Please remember: the VPN needs to be on for the wiki", []string{"The user asked to remember: the VPN needs to be on for the wiki."}},
		{"note that", "note that the tests need Docker running", []string{"The user asked to keep in mind: the tests need Docker running."}},
		{"keep in mind", "keep in mind I am on a metered connection", []string{"The user asked to keep in mind: I am on a metered connection."}},
		{"keep in mind that", "Keep in mind that prod deploys freeze on Fridays", []string{"The user asked to keep in mind: prod deploys freeze on Fridays."}},
		{"I'd like you to always", "I'd like you to always show the diff before committing", []string{`The user asked: "I'd like you to always show the diff before committing".`}},
		{"a note about a file is not a memory", "Note: the output below is truncated", nil},
		{"keep going is not keep in mind", "keep going until the tests pass", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, c := range RuleExtract([]Exchange{{User: tt.user, Assistant: "My name is Claude. I prefer to help."}}) {
				if c.Confidence != RuleConfidence {
					t.Errorf("confidence %v", c.Confidence)
				}
				got = append(got, c.Content)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Error(diff)
			}
		})
	}
}

// TestRulePhrasingsHeldOut runs the rules over phrasings kept apart from
// the ones above (testdata/rule_phrasings_heldout.tsv, written before the
// rules and never used to tune them) and reports how many they get right.
func TestRulePhrasingsHeldOut(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/rule_phrasings_heldout.tsv")
	if err != nil {
		t.Fatal(err)
	}
	right, total := 0, 0
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		said, want, _ := strings.Cut(line, "\t")
		total++
		var got []string
		for _, c := range RuleExtract([]Exchange{{User: said}}) {
			got = append(got, c.Content)
		}
		ok := want == "-" && len(got) == 0 || want != "-" && len(got) == 1 && strings.Contains(got[0], want)
		if ok {
			right++
		} else {
			t.Logf("missed: %q → %q (want %q)", said, got, want)
		}
	}
	t.Logf("held-out phrasings: %d of %d right", right, total)
	if right*10 < total*8 {
		t.Errorf("%d of %d held-out phrasings right, want at least 80%%", right, total)
	}
}
