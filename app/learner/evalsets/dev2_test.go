package evalsets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dev2Dir is the second development set (written independently of dev/,
// heldout/ and the retrieval code; tuned on, never reported).
const dev2Dir = "dev2"

// The second development set's promised sizes.
const (
	dev2MinSkills        = 99 // the starter bank and at least 50 new skills
	dev2MinNewSkills     = 50
	dev2MinStarterSkills = 49
	dev2MinMistakeSkills = 3
	dev2MinTurns         = 220
	dev2MinNoisyTurns    = 80
	dev2MinNoSkillTurns  = 40
	dev2MinMultiTurns    = 10 // turns where two or more skills fit
	dev2MinNonEnglish    = 5  // turns whose note says "non-English"
	dev2MinPerAgent      = 20
	dev2MinPerAPI        = 80
)

// starterNames returns the names of the starter bank's skills.
func starterNames(t *testing.T) map[string]bool {
	t.Helper()
	entries, err := os.ReadDir(starterDir)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, e := range entries {
		if e.IsDir() {
			names[e.Name()] = true
		}
	}
	return names
}

func TestDev2Skills(t *testing.T) {
	lib := heldoutSkills(t, filepath.Join(dev2Dir, "skills"))
	fresh, mistakes := countLibrary(t, lib)
	fromStarter := len(lib) - fresh
	atLeast(t, "skills", len(lib), dev2MinSkills)
	atLeast(t, "new skills", fresh, dev2MinNewSkills)
	atLeast(t, "starter skills", fromStarter, dev2MinStarterSkills)
	atLeast(t, mistakesCategory+" skills", mistakes, dev2MinMistakeSkills)
}

func TestDev2Turns(t *testing.T) {
	s := loadSet(t, dev2Dir)
	lib := heldoutSkills(t, s.SkillsDir)
	ids := map[string]bool{}
	var noisy, none, multi, foreign int
	agents, apis := map[string]int{}, map[string]int{}
	relevantTo := map[string]int{}
	for _, turn := range s.Turns {
		if ids[turn.ID] {
			t.Errorf("turn id %q is used twice", turn.ID)
		}
		ids[turn.ID] = true
		if turn.Noisy {
			noisy++
		}
		switch len(turn.Relevant) {
		case 0:
			none++
		case 1:
		default:
			multi++
		}
		if strings.Contains(turn.Note, "non-English") {
			foreign++
		}
		for _, name := range turn.Relevant {
			relevantTo[name]++
		}
		agents[turn.Agent]++
		apis[turn.API]++
		checkLabels(t, turn, lib)
		if err := checkRequest(turn); err != nil {
			t.Errorf("turn %s: request: %v", turn.ID, err)
		}
	}
	t.Logf("turns: %d (%d noisy, %d need no skill, %d need two or more, %d non-English); agents %v; APIs %v",
		len(s.Turns), noisy, none, multi, foreign, agents, apis)
	atLeast(t, "turns", len(s.Turns), dev2MinTurns)
	atLeast(t, "noisy turns", noisy, dev2MinNoisyTurns)
	atLeast(t, "turns that need no skill", none, dev2MinNoSkillTurns)
	atLeast(t, "turns where several skills fit", multi, dev2MinMultiTurns)
	atLeast(t, "non-English turns", foreign, dev2MinNonEnglish)
	for _, a := range []string{"openclaw", "claude-code", "nanoclaw", "hermes", "plain"} {
		atLeast(t, "turns from "+a, agents[a], dev2MinPerAgent)
	}
	for _, a := range []string{"openai", "anthropic"} {
		atLeast(t, a+" turns", apis[a], dev2MinPerAPI)
	}
	// Every skill the set adds is what some turn needs, so none is there
	// only as a distractor nobody asks for.
	starter := starterNames(t)
	for name := range lib {
		if !starter[name] && relevantTo[name] == 0 {
			t.Errorf("new skill %s is relevant to no turn", name)
		}
	}
}

// TestDev2Labels checks what the shared label check does not: a skill is
// not both relevant and acceptable for one turn.
func TestDev2Labels(t *testing.T) {
	s := loadSet(t, dev2Dir)
	for _, turn := range s.Turns {
		rel := map[string]bool{}
		for _, name := range turn.Relevant {
			rel[name] = true
		}
		for _, name := range turn.Acceptable {
			if rel[name] {
				t.Errorf("turn %s: %s is both relevant and acceptable", turn.ID, name)
			}
		}
	}
}
