package learner_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/metaclaw/metaclaw/app/learner"
	"github.com/metaclaw/metaclaw/app/learner/internal/learntest"
	"github.com/metaclaw/metaclaw/app/learner/skills"
	"github.com/metaclaw/metaclaw/assets"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
	"github.com/metaclaw/metaclaw/store/testutil"
)

// TestEvolutionStalesOnlyChangedPrompts: after a real evolution, a waiting
// training sample goes stale only when what its prompt would receive
// changed — a skill it was given was updated, or retrieval would now pick
// another set — and says why; the others (and their group) move to the new
// generation and stay trainable. The evolution records how many it made
// stale.
func TestEvolutionStalesOnlyChangedPrompts(t *testing.T) {
	t.Parallel()
	var ret *skills.Retriever
	h := newHarness(t, func(c *config.Config, o *learner.Options) {
		c.RL.PRMVotes = 0 // no judge: the test drives evolution alone
		ret = skills.NewRetriever(o.DB, skills.OptionsFrom(config.Defaults().Skills), nil)
		o.Skills = ret
	})
	ctx := context.Background()
	if _, err := skills.InstallStarter(ctx, h.db, assets.Skills()); err != nil {
		t.Fatal(err)
	}
	// Turns use the snapshot of the library they find; the test's turns
	// need the whole starter bank in it.
	if err := ret.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	sql, err := h.db.Skill(ctx, "write-sql-query")
	if err != nil {
		t.Fatal(err)
	}
	// Three turns as the proxy recorded them, with what was injected.
	served := func(user string) store.Sample {
		sel, err := ret.Select(ctx, []skills.Message{{Role: "user", Text: user}})
		if err != nil {
			t.Fatal(err)
		}
		inj := `[]`
		if len(sel.IDs) > 0 {
			inj = `["` + strings.Join(sel.IDs, `","`) + `"]`
		}
		tr := learntest.Record(t, h.db, store.Turn{SessionID: "s", Request: learntest.OpenAIRequest(Msg{Role: "user", Text: user}),
			ResponseText: "ok", Injected: inj})[0]
		s := &store.Sample{TurnID: tr.ID, SessionID: "s", PromptTokens: []int{1}, SampledTokens: []int{2},
			SampledLogprobs: []float64{-1}, Trainable: true}
		if err := h.db.InsertSample(ctx, s); err != nil {
			t.Fatal(err)
		}
		return *s
	}
	keep := served("my pytest run fails with an assertion error, find the failing test")
	extra := &store.Sample{GroupID: keep.ID, Kind: store.SampleExtra, SessionID: "s", PromptTokens: []int{1},
		SampledTokens: []int{3}, SampledLogprobs: []float64{-1}, Trainable: true}
	if err := h.db.InsertSample(ctx, extra); err != nil {
		t.Fatal(err)
	}
	updated := served("write a SQL query that selects the columns of the postgres orders table")
	retrieved := served("play the guitar chords of this song on a ukulele")
	if inj := injected(t, h.db, retrieved.TurnID); inj != "[]" {
		t.Fatalf("the guitar turn was given %s; the test needs it given nothing", inj)
	}
	if inj := injected(t, h.db, keep.TurnID); !strings.Contains(inj, "debug-failing-test") {
		t.Fatalf("the pytest turn was given %s; the test needs debug-failing-test", inj)
	}
	if inj := injected(t, h.db, updated.TurnID); !strings.Contains(inj, "write-sql-query@1") {
		t.Fatalf("the SQL turn was given %s; the test needs write-sql-query", inj)
	}
	// The evolver updates the SQL skill and adds a deployment skill.
	h.brain.evolverOps.Store(`[
		{"op": "update", "name": "write-sql-query", "description": ` + jsonString(sql.Description) + `,
		 "body": ` + jsonString(sql.Body+"\n\nAlso: add LIMIT while exploring.") + `, "reason": "r"},
		{"op": "add", "name": "guitar-chords-on-ukulele", "description": "Use when playing the guitar chords of a song on a ukulele.",
		 "category": "general", "body": "1. Find the song's key.\n2. Move every chord by the same interval, keeping its quality.", "reason": "r"}]`)
	h.serve(t)
	h.turn(t, "evolve-me", "", "play these guitar chords on my ukulele", "I changed the melody instead.")
	h.end("evolve-me")
	testutil.Eventually(t, "the evolution", func() bool { return h.l.Stats().Evolutions == 1 })
	testutil.Eventually(t, "the check of every sample", func() bool {
		evos, _ := h.db.Evolutions(ctx, 1)
		return len(evos) == 1 && evos[0].StaleSamples > 0 && sample(t, h.db, keep.ID).SkillGeneration == 1
	})
	if s := sample(t, h.db, keep.ID); s.Status != store.SampleWaiting {
		t.Errorf("unchanged prompt: %s %q; want waiting in generation 1", s.Status, s.Reason)
	}
	if s := sample(t, h.db, extra.ID); s.Status != store.SampleWaiting || s.SkillGeneration != 1 {
		t.Errorf("its group's extra: %s generation %d; want waiting in generation 1", s.Status, s.SkillGeneration)
	}
	for _, c := range []struct {
		id   int64
		want string
	}{
		{updated.ID, "skill write-sql-query it was given was updated (version 1 → 2)"},
		{retrieved.ID, "retrieval for its prompt now picks other skills: +guitar-chords-on-ukulele"},
	} {
		if s := sample(t, h.db, c.id); s.Status != store.SampleStale || s.Reason != c.want {
			t.Errorf("sample %d: %s %q; want stale %q", c.id, s.Status, s.Reason, c.want)
		}
	}
	evos, _ := h.db.Evolutions(ctx, 1)
	if len(evos) != 1 || evos[0].StaleSamples != 2 {
		t.Errorf("evolution %+v; want 2 stale samples", evos)
	}
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

func sample(t *testing.T, db *store.DB, id int64) store.Sample {
	t.Helper()
	s, err := db.SampleByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func injected(t *testing.T, db *store.DB, turnID int64) string {
	t.Helper()
	tr, err := db.TurnByID(context.Background(), turnID)
	if err != nil {
		t.Fatal(err)
	}
	return tr.Injected
}
