package app

import (
	"os"
	"path/filepath"
	"testing"
)

// floors are the figures a set's evaluation must reach (regression
// floors: a change that falls below them fails `make test`).
type floors struct {
	CleanRecall, NoisyRecall, Precision float64 // at least
	MaxInjected, MaxNoSkill             float64 // at most: skills per labelled / no-skill turn
	Memory10, Multi10                   float64 // memory recall@10 overall and on multi-fact questions, at least
}

// devFloors hold the development set's figures (docs/retrieval.md), a
// little below them.
var devFloors = floors{CleanRecall: 0.92, NoisyRecall: 0.72, Precision: 0.80, MaxInjected: 1.25, MaxNoSkill: 0.06, Memory10: 0.90, Multi10: 0.85}

// heldoutFloors hold the held-out set's figures (docs/retrieval.md), a
// little below what was measured: the aims are not all reached (recall,
// and skills on no-skill turns, are short of them), so the floors keep
// what was reached from regressing, and docs/retrieval.md says how far
// from the aims it is.
var heldoutFloors = floors{CleanRecall: 0.79, NoisyRecall: 0.71, Precision: 0.69, MaxInjected: 1.25, MaxNoSkill: 0.28, Memory10: 0.72, Multi10: 0.70}

// heldout2Floors hold the second held-out set's figures (skill turns
// only; written after round 5 was settled), a little below them.
var heldout2Floors = floors{CleanRecall: 0.82, NoisyRecall: 0.78, Precision: 0.70, MaxInjected: 1.2, MaxNoSkill: 0.2}

// heldout3Floors hold the third held-out set's figures (skill turns
// only; written in round 7 before its first run), a little below them.
var heldout3Floors = floors{CleanRecall: 0.83, NoisyRecall: 0.74, Precision: 0.54, MaxInjected: 1.6, MaxNoSkill: 0.31}

// heldout4Floors hold the fourth held-out set's figures (skill turns
// only; written in round 10 before its first run), a little below them.
var heldout4Floors = floors{CleanRecall: 0.67, NoisyRecall: 0.75, Precision: 0.52, MaxInjected: 1.7, MaxNoSkill: 0.5}

// heldout5Floors hold the fifth held-out set's figures (skill turns
// only; written in round 11 before its first run, two thirds of its
// requests not in English), a little below them.
var heldout5Floors = floors{CleanRecall: 0.58, NoisyRecall: 0.74, Precision: 0.59, MaxInjected: 1.6, MaxNoSkill: 0.08}

// dev2Floors hold the second development set's figures, a little below
// them. dev2 has skill turns only: its memory floors are not checked.
var dev2Floors = floors{CleanRecall: 0.88, NoisyRecall: 0.75, Precision: 0.66, MaxInjected: 1.45, MaxNoSkill: 0.08}

// dev3Floors hold the third development set's figures (mostly turns that
// need no skill; skill turns only), a little below them.
var dev3Floors = floors{CleanRecall: 0.89, NoisyRecall: 0.84, Precision: 0.88, MaxInjected: 1.15, MaxNoSkill: 0.16}

// dev4Floors hold the fourth development set's figures (mostly requests
// not in English, half of them needing no skill; skill turns only), a
// little below them.
var dev4Floors = floors{CleanRecall: 0.66, NoisyRecall: 0.79, Precision: 0.69, MaxInjected: 1.25, MaxNoSkill: 0.08}

// floorCheck is one figure held to its floor (or ceiling, atMost).
type floorCheck struct {
	name      string
	got, want float64
	atMost    bool
}

func skillChecks(s skillReport, f floors) []floorCheck {
	return []floorCheck{
		{"recall@6 on clean turns", s.Clean.Recall6, f.CleanRecall, false},
		{"recall@6 on noisy turns", s.Noisy.Recall6, f.NoisyRecall, false},
		{"precision of injected skills", s.All.Precision, f.Precision, false},
		{"skills injected per labelled turn", s.All.MeanInjectedLabelled, f.MaxInjected, true},
		{"skills injected per no-skill turn", s.All.MeanInjectedNoSkill, f.MaxNoSkill, true},
	}
}

func reportChecks(t *testing.T, checks []floorCheck) {
	t.Helper()
	for _, c := range checks {
		if c.atMost && c.got > c.want || !c.atMost && c.got < c.want {
			t.Errorf("%s = %.3f, floor %.3f", c.name, c.got, c.want)
		}
	}
}

func checkFloors(t *testing.T, s skillReport, m *memoryReport, f floors) {
	t.Helper()
	_, m10 := m.Recall("all")
	_, multi10 := m.Recall("multi")
	reportChecks(t, append(skillChecks(s, f),
		floorCheck{"memory recall@10", m10, f.Memory10, false},
		floorCheck{"memory recall@10 on multi-fact questions", multi10, f.Multi10, false}))
}

// checkSkillFloors holds a skill-turns-only set's figures to its floors.
func checkSkillFloors(t *testing.T, name, what string, f floors) {
	t.Helper()
	set := loadSet(t, filepath.Join("learner", "evalsets", name))
	s := evalSkills(t, set)
	t.Logf("%s:\n%s", what, s)
	reportChecks(t, skillChecks(s, f))
}

// TestRetrievalDev2 holds the second development set's figures (skill
// turns only).
func TestRetrievalDev2(t *testing.T) {
	t.Parallel()
	checkSkillFloors(t, "dev2", "second development set", dev2Floors)
}

// TestRetrievalDev holds the development set's figures.
func TestRetrievalDev(t *testing.T) {
	t.Parallel()
	set := loadSet(t, filepath.Join("learner", "evalsets", "dev"))
	s, m := evalSkills(t, set), evalMemory(t, set)
	t.Logf("development set:\n%s\n%s", s, m)
	checkFloors(t, s, m, devFloors)
}

// TestRetrievalHeldout holds the held-out set's figures. The set is
// written apart from the retrieval code and never tuned on.
func TestRetrievalHeldout(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("learner", "evalsets", "heldout")
	if _, err := os.Stat(filepath.Join(dir, "turns.jsonl")); err != nil {
		t.Skipf("the held-out set is absent (%v): its floors are not checked", err)
	}
	set := loadSet(t, dir)
	s, m := evalSkills(t, set), evalMemory(t, set)
	t.Logf("held-out set:\n%s\n%s", s, m)
	checkFloors(t, s, m, heldoutFloors)
}

// TestRetrievalHeldout2 holds the second held-out set's figures (skill
// turns only).
func TestRetrievalHeldout2(t *testing.T) {
	t.Parallel()
	checkSkillFloors(t, "heldout2", "second held-out set", heldout2Floors)
}

// TestRetrievalHeldout3 holds the third held-out set's figures (skill
// turns only).
func TestRetrievalHeldout3(t *testing.T) {
	t.Parallel()
	checkSkillFloors(t, "heldout3", "third held-out set", heldout3Floors)
}

// TestRetrievalHeldout4 holds the fourth held-out set's figures (skill
// turns only).
func TestRetrievalHeldout4(t *testing.T) {
	t.Parallel()
	checkSkillFloors(t, "heldout4", "fourth held-out set", heldout4Floors)
}

// TestRetrievalHeldout5 holds the fifth held-out set's figures (skill
// turns only).
func TestRetrievalHeldout5(t *testing.T) {
	t.Parallel()
	checkSkillFloors(t, "heldout5", "fifth held-out set", heldout5Floors)
}

// TestRetrievalDev4 holds the fourth development set's figures.
func TestRetrievalDev4(t *testing.T) {
	t.Parallel()
	checkSkillFloors(t, "dev4", "fourth development set", dev4Floors)
}

// TestRetrievalDev3 holds the third development set's figures.
func TestRetrievalDev3(t *testing.T) {
	t.Parallel()
	checkSkillFloors(t, "dev3", "third development set", dev3Floors)
}
