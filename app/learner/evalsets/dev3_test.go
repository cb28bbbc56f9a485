package evalsets

import (
	"path/filepath"
	"testing"
)

// TestDev3: the third development set's promised sizes, labels that name
// its library's skills, and requests the proxy's readers parse.
func TestDev3(t *testing.T) {
	t.Parallel()
	s := loadSet(t, "dev3")
	lib := heldoutSkills(t, filepath.Join("dev3", "skills"))
	none, noisy := 0, 0
	for _, turn := range s.Turns {
		checkLabels(t, turn, lib)
		if err := checkRequest(turn); err != nil {
			t.Errorf("%s: %v", turn.ID, err)
		}
		if len(turn.Relevant) == 0 {
			none++
		}
		if turn.Noisy {
			noisy++
		}
	}
	t.Logf("dev3: %d turns, %d need no skill, %d noisy, %d skills", len(s.Turns), none, noisy, len(lib))
	atLeast(t, "turns", len(s.Turns), 120)
	atLeast(t, "no-skill turns", none, 70)
	atLeast(t, "noisy turns", noisy, 50)
}
