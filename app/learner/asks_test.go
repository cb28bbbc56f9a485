package learner_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/app/learner"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
	"github.com/metaclaw/metaclaw/store/testutil"
)

// asksSettle is the tests' settling delay; quiet is fifty times it, the
// wait that shows no call comes.
const (
	asksSettle = 10 * time.Millisecond
	quiet      = 50 * asksSettle
)

// asksHarness is a harness whose learner writes asks (edit may change
// more), with the tests' settling delay.
func asksHarness(t *testing.T, edit func(*config.Config, *learner.Options)) *harness {
	return newHarness(t, func(c *config.Config, o *learner.Options) {
		c.Skills.WriteAsks = true
		o.AsksSettle = asksSettle
		if edit != nil {
			edit(c, o)
		}
	})
}

// putSkills adds skills without asks.
func putSkills(t *testing.T, db *store.DB, names ...string) {
	t.Helper()
	for _, name := range names {
		if _, _, err := db.PutSkill(context.Background(), store.SkillInput{Name: name, Description: "When " + name + ".", Body: "Do " + name + "."}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLearnerWritesAsks: with skills.write_asks the learner has the
// evolver's model write the asks of a skill that has none soon after it
// changes, over the real wire; without it, or while learning is paused,
// no call is made.
func TestLearnerWritesAsks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		name          string
		write, paused bool
	}{{"on", true, false}, {"off", false, false}, {"paused", true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := asksHarness(t, func(c *config.Config, o *learner.Options) {
				c.Skills.WriteAsks = tc.write
				o.Paused = func() bool { return tc.paused }
			})
			h.serve(t)
			putSkills(t, h.db, "fix-ci")
			if tc.write && !tc.paused {
				testutil.Eventually(t, "the skill's asks", func() bool {
					sk, _ := h.db.Skill(ctx, "fix-ci")
					return len(sk.Asks) == 3
				})
				if n := h.brain.asksCalls.Load(); n != 1 {
					t.Errorf("%d calls for one skill", n)
				}
				return
			}
			if tc.paused {
				testutil.Eventually(t, "the run skipped as paused", func() bool { return h.l.Stats().Skipped > 0 })
			} else {
				time.Sleep(quiet)
			}
			h.stop()
			h.stop = nil
			if n := h.brain.asksCalls.Load(); n != 0 {
				t.Errorf("%d asks calls", n)
			}
		})
	}
}

// TestAsksKeepToTheirShareOfTheDay: asks take at most a fifth of
// learning.max_calls_per_day, so that an import of many skills leaves the
// judge its budget.
func TestAsksKeepToTheirShareOfTheDay(t *testing.T) {
	t.Parallel()
	h := asksHarness(t, func(c *config.Config, o *learner.Options) {
		c.Learning.MaxCallsPerDay = 10 // two for asks
	})
	putSkills(t, h.db, "skill-a", "skill-b", "skill-c", "skill-d", "skill-e")
	h.serve(t)
	testutil.Eventually(t, "two skills' asks", func() bool { return h.brain.asksCalls.Load() == 2 })
	// Another change wakes the worker; the day's share is spent.
	putSkills(t, h.db, "skill-z")
	time.Sleep(quiet)
	if n := h.brain.asksCalls.Load(); n != 2 {
		t.Errorf("%d asks calls, want 2 (a fifth of 10)", n)
	}
}

// TestAsksOfASkillAddedDuringARun: a skill that changes while a run is
// asking for another's asks wakes the worker again; it does not wait for
// the next round ten minutes later.
func TestAsksOfASkillAddedDuringARun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := asksHarness(t, nil)
	var once sync.Once
	h.brain.duringAsks.Store(func() {
		once.Do(func() {
			if _, _, err := h.db.PutSkill(ctx, store.SkillInput{Name: "second", Description: "When second.", Body: "Do second."}); err != nil {
				t.Error(err)
			}
		})
	})
	putSkills(t, h.db, "first")
	h.serve(t)
	testutil.Eventually(t, "the asks of the skill added during the first run", func() bool {
		sk, _ := h.db.Skill(ctx, "second")
		return len(sk.Asks) == 3
	})
	if n := h.brain.asksCalls.Load(); n != 2 {
		t.Errorf("%d asks calls for two skills", n)
	}
}

// TestWriteAsksNow: WriteAsks writes every missing ask before it returns,
// and the background worker, woken by the same change, asks for none
// again.
func TestWriteAsksNow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := asksHarness(t, nil)
	h.serve(t)
	putSkills(t, h.db, "one", "two", "three")
	h.l.WriteAsks(ctx)
	for _, name := range []string{"one", "two", "three"} {
		if sk, _ := h.db.Skill(ctx, name); len(sk.Asks) != 3 {
			t.Errorf("%s has %d asks after WriteAsks", name, len(sk.Asks))
		}
	}
	time.Sleep(quiet)
	if n := h.brain.asksCalls.Load(); n != 3 {
		t.Errorf("%d asks calls for three skills", n)
	}
}

// TestLearnerWritesAsksInLanguages: once a skill has its asks, the
// learner has those in the person's other languages written: with auto,
// each language the person sent 3 requests in; or the configured ones;
// with none, no language.
func TestLearnerWritesAsksInLanguages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		setting string
		want    []string // languages written
	}{{"auto", []string{"de"}}, {"es", []string{"es"}}, {"none", nil}} {
		t.Run(tc.setting, func(t *testing.T) {
			t.Parallel()
			h := asksHarness(t, func(c *config.Config, o *learner.Options) { c.Skills.AskLanguages = tc.setting })
			// German three times, Spanish twice: auto writes German only.
			if err := h.db.AddLanguagesSeen(ctx, map[string]int{"de": 3, "es": 2}); err != nil {
				t.Fatal(err)
			}
			h.serve(t)
			putSkills(t, h.db, "fix-ci")
			testutil.Eventually(t, "the skill's asks", func() bool {
				sk, _ := h.db.Skill(ctx, "fix-ci")
				return len(sk.Asks) == 3
			})
			if tc.want != nil {
				testutil.Eventually(t, "the skill's asks in "+tc.want[0], func() bool {
					sk, _ := h.db.Skill(ctx, "fix-ci")
					return len(sk.AsksIn[tc.want[0]]) == 3
				})
			} else {
				time.Sleep(quiet)
			}
			h.stop()
			h.stop = nil
			sk, _ := h.db.Skill(ctx, "fix-ci")
			if len(sk.AsksIn) != len(tc.want) {
				t.Errorf("asks in %v, want the languages %v", sk.AsksIn, tc.want)
			}
			if n, want := h.brain.asksInCalls.Load(), int64(min(len(tc.want), 1)); n != want {
				t.Errorf("%d calls for asks in other languages, want %d", n, want)
			}
		})
	}
}
