package evolve

import (
	"context"
	"strings"
	"unicode"

	"github.com/metaclaw/metaclaw/store"
)

// NearDuplicate is the word-set Jaccard similarity at or above which a
// proposed skill counts as a near-duplicate of an existing one. Two skills
// about the same lesson written twice by a model typically share 60–80% of
// their distinct content words (stop words left out), while skills on
// different topics that merely share a domain share 10–30%; 0.6 merges the
// former and keeps the latter apart.
const NearDuplicate = 0.6

// dedupCandidates is how many search hits are compared with a proposal.
const dedupCandidates = 5

// normName folds a skill name for comparison: lower case, words split on
// anything but letters and digits, a plural "s" dropped from words longer
// than three letters ("debug-failing-tests" = "Debug failing test").
func normName(name string) string {
	words := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	for i, w := range words {
		if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			words[i] = w[:len(w)-1]
		}
	}
	return strings.Join(words, "-")
}

// findDuplicate returns the existing skill a proposed add nearly
// duplicates: one whose name is the same after normName, else the best
// search hit on the proposal's description and body whose content words
// overlap with it by at least NearDuplicate (Jaccard).
func (e *Evolver) findDuplicate(ctx context.Context, op Op, library map[string]store.Skill) (store.Skill, bool, error) {
	norm := normName(op.Name)
	for _, s := range library {
		if normName(s.Name) == norm {
			return s, true, nil
		}
	}
	hits, err := e.db.SearchSkills(ctx, op.Description+"\n"+op.Body, dedupCandidates)
	if err != nil {
		return store.Skill{}, false, err
	}
	words := wordSet(op.Description + " " + op.Body)
	var best store.Skill
	bestSim := 0.0
	for _, h := range hits {
		if sim := jaccard(words, wordSet(h.Description+" "+h.Body)); sim >= NearDuplicate && sim > bestSim {
			best, bestSim = h.Skill, sim
		}
	}
	return best, bestSim > 0, nil
}

// wordSet returns the distinct content words of text: lower case, letters
// and digits, two characters or more, common English words left out.
func wordSet(text string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if len([]rune(w)) >= 2 && !stopWords[w] {
			set[w] = true
		}
	}
	return set
}

// jaccard is |a ∩ b| / |a ∪ b| (0 for two empty sets).
func jaccard(a, b map[string]bool) float64 {
	inter := 0
	for w := range a {
		if b[w] {
			inter++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but if then else of to in on at by for with from into is are was
		were be been being do does did have has had it its this that these those there here what which who when where
		why how all any each more most other some such no not only so than too very can will just should could would
		may might must as about before after when you your we our they their them he she his her`) {
		m[w] = true
	}
	return m
}()
