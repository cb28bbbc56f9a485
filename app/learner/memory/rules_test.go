package memory

import (
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
