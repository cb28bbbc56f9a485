package learner_test

import (
	"context"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/app/learner"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
	"github.com/metaclaw/metaclaw/store/testutil"
)

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
			h := newHarness(t, func(c *config.Config, o *learner.Options) {
				c.Skills.WriteAsks = tc.write
				o.Paused = func() bool { return tc.paused }
				o.AsksSettle = 10 * time.Millisecond
			})
			h.serve(t)
			if _, _, err := h.db.PutSkill(ctx, store.SkillInput{Name: "fix-ci", Description: "When the CI build fails.", Body: "Read the first error of the log."}); err != nil {
				t.Fatal(err)
			}
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
				time.Sleep(50 * 10 * time.Millisecond) // fifty times the settling delay
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
	ctx := context.Background()
	h := newHarness(t, func(c *config.Config, o *learner.Options) {
		c.Skills.WriteAsks = true
		c.Learning.MaxCallsPerDay = 10 // two for asks
		o.AsksSettle = 10 * time.Millisecond
	})
	for i := range 5 {
		name := "skill-" + string(rune('a'+i))
		if _, _, err := h.db.PutSkill(ctx, store.SkillInput{Name: name, Description: "When " + name + ".", Body: "Do it."}); err != nil {
			t.Fatal(err)
		}
	}
	h.serve(t)
	testutil.Eventually(t, "two skills' asks", func() bool { return h.brain.asksCalls.Load() == 2 })
	// Another change wakes the worker; the day's share is spent.
	if _, _, err := h.db.PutSkill(ctx, store.SkillInput{Name: "skill-z", Description: "When z.", Body: "Do z."}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * 10 * time.Millisecond)
	if n := h.brain.asksCalls.Load(); n != 2 {
		t.Errorf("%d asks calls, want 2 (a fifth of 10)", n)
	}
}

// TestWriteAsksNow: WriteAsks writes every missing ask before it returns,
// and the background worker, woken by the same change, asks for none
// again.
func TestWriteAsksNow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHarness(t, func(c *config.Config, o *learner.Options) {
		c.Skills.WriteAsks = true
		o.AsksSettle = 10 * time.Millisecond
	})
	h.serve(t)
	for _, name := range []string{"one", "two", "three"} {
		if _, _, err := h.db.PutSkill(ctx, store.SkillInput{Name: name, Description: "When " + name + ".", Body: "Do " + name + "."}); err != nil {
			t.Fatal(err)
		}
	}
	h.l.WriteAsks(ctx)
	for _, name := range []string{"one", "two", "three"} {
		if sk, _ := h.db.Skill(ctx, name); len(sk.Asks) != 3 {
			t.Errorf("%s has %d asks after WriteAsks", name, len(sk.Asks))
		}
	}
	time.Sleep(50 * 10 * time.Millisecond)
	if n := h.brain.asksCalls.Load(); n != 3 {
		t.Errorf("%d asks calls for three skills", n)
	}
}
