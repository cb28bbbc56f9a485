package store

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

func TestSkillAsks(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	in := SkillInput{Name: "tls-renewal", Description: "Renew a TLS certificate.", Body: "Run certbot renew."}
	s, _, err := db.PutSkill(ctx, in)
	if err != nil || s.Asks != nil {
		t.Fatalf("PutSkill = %+v, %v", s, err)
	}
	stamp, _ := db.SkillsStamp(ctx)
	epoch := db.SkillsEpoch()
	asks := []string{"the browser says my site is not secure", "certificado caducado"}
	time.Sleep(2 * time.Millisecond) // the stamp counts milliseconds
	must(t, db.SetSkillAsks(ctx, "tls-renewal", 1, asks))
	if s, _ := db.Skill(ctx, "tls-renewal"); !slices.Equal(s.Asks, asks) || s.Version != 1 {
		t.Errorf("after SetSkillAsks: %+v", s)
	}
	if st, _ := db.SkillsStamp(ctx); st == stamp || db.SkillsEpoch() == epoch {
		t.Error("SetSkillAsks moved neither the stamp nor the epoch: readers would not reload")
	}
	if err := db.SetSkillAsks(ctx, "tls-renewal", 2, asks); !errors.Is(err, ErrNotFound) {
		t.Errorf("asks for a version that is not current: %v", err)
	}
	if err := db.SetSkillAsks(ctx, "nope", 1, asks); !errors.Is(err, ErrNotFound) {
		t.Errorf("asks for an unknown skill: %v", err)
	}

	// The same content without asks (a SKILL.md that has none) keeps them;
	// with other asks it replaces them in place, making no version.
	if _, changed, _ := db.PutSkill(ctx, in); changed {
		t.Error("the same content without asks changed the skill")
	}
	if s, _ := db.Skill(ctx, "tls-renewal"); !slices.Equal(s.Asks, asks) {
		t.Errorf("the same content without asks dropped them: %v", s.Asks)
	}
	in.Asks = []string{"https warning on my shop"}
	if s, changed, _ := db.PutSkill(ctx, in); !changed || s.Version != 1 || !slices.Equal(s.Asks, in.Asks) {
		t.Errorf("other asks: changed %v, %+v", changed, s)
	}
	hits, _ := db.SearchSkills(ctx, "renew certificate", 3)
	if len(hits) != 1 || !slices.Equal(hits[0].Asks, in.Asks) {
		t.Errorf("SearchSkills = %+v", hits)
	}

	// New content is a new version, whose asks are its own.
	in.Body, in.Asks = "Run certbot renew, then reload nginx.", nil
	if s, _, _ := db.PutSkill(ctx, in); s.Version != 2 || s.Asks != nil {
		t.Errorf("new version kept the old asks: %+v", s)
	}
	// A revert brings the old version's asks back with its content.
	s, err = db.RevertSkill(ctx, "tls-renewal", 1)
	if err != nil || s.Version != 3 || !slices.Equal(s.Asks, []string{"https warning on my shop"}) {
		t.Errorf("revert = %+v, %v", s, err)
	}
	vs, _ := db.SkillVersions(ctx, "tls-renewal")
	if len(vs) != 3 || vs[1].Asks != nil || len(vs[0].Asks) != 1 {
		t.Errorf("versions' asks: %+v", vs)
	}
}

// TestSkillHeadsMoveOnEveryChange: a skill's revision moves with every
// change of it, even two in the same millisecond, so a reader that keeps
// revisions misses none; SkillHeadsSince lists only what moved after a
// revision, disabled skills too; EnabledSkillsByID reads the enabled ones
// asked for.
func TestSkillHeadsMoveOnEveryChange(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	head := func(name string, since int64) (SkillHead, bool) {
		heads, err := db.SkillHeadsSince(ctx, since)
		if err != nil {
			t.Fatal(err)
		}
		sk, err := db.Skill(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range heads {
			if h.ID == sk.ID {
				return h, true
			}
		}
		return SkillHead{}, false
	}
	rev := func(name string) int64 {
		h, ok := head(name, 0)
		if !ok || !h.Enabled {
			t.Fatalf("%s: head %+v, listed %v", name, h, ok)
		}
		return h.Rev
	}
	s, _, err := db.PutSkill(ctx, SkillInput{Name: "a", Description: "When a.", Body: "Do a."})
	if err != nil {
		t.Fatal(err)
	}
	db.PutSkill(ctx, SkillInput{Name: "b", Description: "When b.", Body: "Do b."})
	last := rev("a")
	for i, change := range []func() error{
		func() error { return db.SetSkillAsks(ctx, "a", 1, []string{"one"}) },
		func() error { return db.SetSkillAsks(ctx, "a", 1, []string{"two"}) },
		func() error {
			_, _, err := db.PutSkill(ctx, SkillInput{Name: "a", Description: "When a.", Body: "Do a again."})
			return err
		},
		func() error { return db.SetSkillAsks(ctx, "a", 2, []string{"three"}) },
	} {
		must(t, change())
		if r := rev("a"); r <= last {
			t.Errorf("change %d: revision %d after %d", i, r, last)
		} else {
			last = r
		}
	}
	if _, ok := head("b", last); ok {
		t.Error("a skill that did not move since a revision is listed after it")
	}
	before := rev("b")
	must(t, db.SetSkillEnabled(ctx, "b", false))
	if h, ok := head("b", before); !ok || h.Enabled || h.Rev <= before {
		t.Errorf("disabled skill's head since its last revision = %+v, listed %v; want listed, disabled, moved", h, ok)
	}
	sks, err := db.EnabledSkillsByID(ctx, []int64{s.ID, s.ID + 1, 999})
	if err != nil || len(sks) != 1 || sks[0].Name != "a" || !slices.Equal(sks[0].Asks, []string{"three"}) || sks[0].Rev() != last {
		t.Errorf("EnabledSkillsByID = %+v, %v", sks, err)
	}
}

// TestRetiredSkillComesBackWithAsks: a retired skill put again with the
// same content and asks of its own comes back and takes the asks.
func TestRetiredSkillComesBackWithAsks(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	in := SkillInput{Name: "a", Description: "When a.", Body: "Do a."}
	if _, _, err := db.PutSkill(ctx, in); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ApplyEvolution(ctx, []SkillChange{{Op: "retire", Input: SkillInput{Name: "a"}}}, Evolution{SessionID: "s"}); err != nil {
		t.Fatal(err)
	}
	in.Asks = []string{"how do I a?"}
	s, changed, err := db.PutSkill(ctx, in)
	if err != nil || !changed || s.Retired || !s.Enabled || !slices.Equal(s.Asks, in.Asks) || s.Version != 1 {
		t.Errorf("put again = %+v, %v, %v", s, changed, err)
	}
}

// TestSkillRevisionsGrowInCommitOrder: a change gives its skill a revision
// above every other skill's, even when another's ran ahead of the clock
// (or the clock went back), so SkillHeadsSince(R) lists every change made
// after a reader saw revision R; a deletion moves the stamp.
func TestSkillRevisionsGrowInCommitOrder(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	for _, n := range []string{"a", "b", "c"} {
		if _, _, err := db.PutSkill(ctx, SkillInput{Name: n, Description: "When " + n + ".", Body: "Do " + n + "."}); err != nil {
			t.Fatal(err)
		}
	}
	// a's revision an hour ahead, as a clock set back by an hour would leave it.
	if _, err := db.sql.ExecContext(ctx, "UPDATE skills SET updated_at = updated_at + 3600000 WHERE name = 'a'"); err != nil {
		t.Fatal(err)
	}
	st, err := db.SkillsStamp(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seen := st.MaxRev
	changes := map[string]func() error{
		"b": func() error { return db.SetSkillEnabled(ctx, "b", false) },
		"c": func() error { return db.SetSkillAsks(ctx, "c", 1, []string{"how do I c?"}) },
	}
	for _, name := range []string{"b", "c"} {
		must(t, changes[name]())
		heads, err := db.SkillHeadsSince(ctx, seen)
		if err != nil {
			t.Fatal(err)
		}
		if len(heads) != 1 || heads[0].Rev <= seen {
			t.Fatalf("after changing %s, heads since %d = %+v; want that one skill, above it", name, seen, heads)
		}
		seen = heads[0].Rev
	}
	must(t, db.DeleteSkill(ctx, "c"))
	after, err := db.SkillsStamp(ctx)
	if err != nil || after.Deleted != st.Deleted+1 || after == st {
		t.Errorf("stamp after a deletion = %+v (before %+v), %v; want Deleted one more", after, st, err)
	}
}
