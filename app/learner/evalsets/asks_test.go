package evalsets

import (
	"path/filepath"
	"testing"
)

// TestAsksCoverEverySkill: a set's asks.jsonl gives every skill of its
// library asks, once, and names no other skill.
func TestAsksCoverEverySkill(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{"dev", "dev2", "dev3", "dev4", "heldout", "heldout2", "heldout3", "heldout4", "heldout5"} {
		s := loadSet(t, dir)
		lib := heldoutSkills(t, filepath.Join(dir, "skills"))
		seen := map[string]bool{}
		for _, a := range s.Asks {
			if _, ok := lib[a.Skill]; !ok || seen[a.Skill] || len(a.Asks) < 3 {
				t.Errorf("%s/asks.jsonl: %q unknown, repeated or with %d asks", dir, a.Skill, len(a.Asks))
			}
			seen[a.Skill] = true
		}
		if len(seen) != len(lib) {
			t.Errorf("%s: asks for %d of %d skills", dir, len(seen), len(lib))
		}
	}
}

// TestAsksInCoverEverySkill: a set's asks_in.jsonl gives every skill of
// its library five asks in each of the five other languages, once, and
// names no other skill or language.
func TestAsksInCoverEverySkill(t *testing.T) {
	t.Parallel()
	langs := []string{"de", "es", "fr", "it", "pt"}
	for _, dir := range []string{"dev", "dev2", "dev3", "dev4", "heldout", "heldout2", "heldout3", "heldout4", "heldout5"} {
		s := loadSet(t, dir)
		lib := heldoutSkills(t, filepath.Join(dir, "skills"))
		seen := map[string]bool{}
		for _, a := range s.AsksIn {
			if _, ok := lib[a.Skill]; !ok || seen[a.Skill] || len(a.Asks) != len(langs) {
				t.Errorf("%s/asks_in.jsonl: %q unknown, repeated or in %d languages", dir, a.Skill, len(a.Asks))
			}
			seen[a.Skill] = true
			for _, l := range langs {
				if n := len(a.Asks[l]); n != 5 {
					t.Errorf("%s/asks_in.jsonl: %q has %d asks in %s", dir, a.Skill, n, l)
				}
			}
		}
		if len(seen) != len(lib) {
			t.Errorf("%s: asks in other languages for %d of %d skills", dir, len(seen), len(lib))
		}
	}
}
