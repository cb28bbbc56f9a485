package store

import (
	"context"
	"errors"
	"math"
	"testing"
)

func TestSkillVersionsAndSearch(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	in := SkillInput{Name: "debug-failing-test", Description: "When a test fails, find why.", Category: "coding",
		Tags: []string{"pytest", "testing"}, Body: "Run the single failing test with -x.", Source: "starter"}
	s, changed, err := db.PutSkill(ctx, in)
	if err != nil || !changed || s.Version != 1 || !s.Enabled {
		t.Fatalf("PutSkill = %+v, %v, %v", s, changed, err)
	}
	if _, changed, _ := db.PutSkill(ctx, in); changed {
		t.Error("identical content made a new version")
	}
	in.Body = "Run the single failing test with -x and read the first error."
	in.Source = "evolver"
	if s, changed, _ = db.PutSkill(ctx, in); !changed || s.Version != 2 || s.Source != "evolver" {
		t.Errorf("update = %+v", s)
	}
	db.PutSkill(ctx, SkillInput{Name: "write-commit-message", Description: "Writing a git commit message.", Body: "Imperative mood."})
	hits, err := db.SearchSkills(ctx, "my pytest tests fail, why?", 5)
	if err != nil || len(hits) == 0 || hits[0].Name != "debug-failing-test" || hits[0].Version != 2 || hits[0].Tags[0] != "pytest" {
		t.Fatalf("search = %+v, %v", hits, err)
	}
	if hits, _ := db.SearchSkills(ctx, "hello there, thanks!", 5); len(hits) != 0 {
		t.Errorf("stop words matched %v", hits)
	}
	if hits, _ := db.SearchSkills(ctx, `" OR * NEAR( -- "quote`, 5); len(hits) != 0 {
		t.Errorf("FTS syntax leaked into the query: %v", hits)
	}
	must(t, db.SetSkillEnabled(ctx, "debug-failing-test", false))
	if hits, _ := db.SearchSkills(ctx, "pytest fail", 5); len(hits) != 0 {
		t.Error("a disabled skill was found")
	}
	must(t, db.SetSkillEnabled(ctx, "debug-failing-test", true))
	if s, err := db.RevertSkill(ctx, "debug-failing-test", 1); err != nil || s.Version != 3 || s.Body != "Run the single failing test with -x." {
		t.Errorf("revert = %+v, %v", s, err)
	}
	vs, _ := db.SkillVersions(ctx, "debug-failing-test")
	if len(vs) != 3 || vs[2].Source != "revert" {
		t.Errorf("versions %+v", vs)
	}
	must(t, db.DeleteSkill(ctx, "debug-failing-test"))
	if _, err := db.Skill(ctx, "debug-failing-test"); !errors.Is(err, ErrNotFound) {
		t.Errorf("deleted skill still there: %v", err)
	}
	if hits, _ := db.SearchSkills(ctx, "pytest", 5); len(hits) != 0 {
		t.Error("deleted skill still indexed")
	}
	if err := db.SetSkillEnabled(ctx, "nope", true); !errors.Is(err, ErrNotFound) {
		t.Errorf("enable unknown = %v", err)
	}
}

func TestApplyEvolution(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	db.PutSkill(ctx, SkillInput{Name: "old-habit", Description: "d", Body: "b"})
	res, err := db.ApplyEvolution(ctx, []SkillChange{
		{Op: "add", Input: SkillInput{Name: "new-skill", Description: "d", Body: "b", Source: "evolver", SessionID: "s1", TurnIDs: []int64{4, 5}}},
		{Op: "retire", Input: SkillInput{Name: "old-habit"}},
	}, Evolution{SessionID: "s1", Ops: `[{"op":"add"}]`})
	if err != nil || res.Generation != 1 || len(res.Changed) != 2 {
		t.Fatalf("ApplyEvolution = %+v, %v", res, err)
	}
	if g, _ := db.SkillGeneration(ctx); g != 1 {
		t.Errorf("generation %d", g)
	}
	vs, _ := db.SkillVersions(ctx, "new-skill")
	if vs[0].Generation != 1 || vs[0].SessionID != "s1" || len(vs[0].TurnIDs) != 2 {
		t.Errorf("provenance %+v", vs[0])
	}
	if s, _ := db.Skill(ctx, "old-habit"); s.Enabled || !s.Retired {
		t.Errorf("retired skill %+v", s)
	}
	// A failing change leaves everything as it was: no generation bump.
	_, err = db.ApplyEvolution(ctx, []SkillChange{
		{Op: "add", Input: SkillInput{Name: "another", Description: "d", Body: "b"}},
		{Op: "retire", Input: SkillInput{Name: "missing"}},
	}, Evolution{})
	if err == nil {
		t.Fatal("retiring a missing skill succeeded")
	}
	if g, _ := db.SkillGeneration(ctx); g != 1 {
		t.Errorf("generation after a failed evolution: %d", g)
	}
	if _, err := db.Skill(ctx, "another"); err == nil {
		t.Error("a failed evolution half-applied")
	}
	evos, _ := db.Evolutions(ctx, 10)
	if len(evos) != 1 || evos[0].Status != "applied" {
		t.Errorf("evolutions %+v", evos)
	}
}

func TestScoresEfficacyEmbeddings(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	turns := []*Turn{
		{SessionID: "s", Injected: `["skill:a@1","memory:3"]`},
		{SessionID: "s", Injected: `["skill:a@2","skill:b@1"]`},
		{SessionID: "s"},
		{SessionID: "s", Injected: `["skill:b@1"]`}, // never scored
	}
	must(t, db.RecordTurns(ctx, turns))
	for i, sc := range []int{1, -1, -1} {
		must(t, db.PutScore(ctx, Score{TurnID: turns[i].ID, Score: sc, Votes: []int{sc, sc, 0}, Failed: 0, Evidence: "next_turn"}))
	}
	got, err := db.TurnScore(ctx, turns[0].ID)
	if err != nil || got.Score != 1 || len(got.Votes) != 3 {
		t.Errorf("TurnScore = %+v, %v", got, err)
	}
	eff, err := db.SkillEfficacy(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a, b := eff["a"], eff["b"]
	if a.Injected != 2 || a.ScoredWith != 2 || a.MeanWith != 0 || a.MeanWithout != -1 {
		t.Errorf("efficacy a = %+v", a)
	}
	if b.Injected != 2 || b.ScoredWith != 1 || b.MeanWith != -1 || b.MeanWithout != 0 {
		t.Errorf("efficacy b = %+v", b)
	}
	if err := db.PutScore(ctx, Score{TurnID: turns[0].ID, Score: 2}); err == nil {
		t.Error("score 2 accepted")
	}
	vec := []float32{0.5, -1, float32(math.Pi)}
	must(t, db.PutEmbedding(ctx, "m", "hello", vec))
	back, ok, err := db.CachedEmbedding(ctx, "m", "hello")
	if err != nil || !ok || back[2] != vec[2] || len(back) != 3 {
		t.Errorf("embedding = %v %v %v", back, ok, err)
	}
	if _, ok, _ := db.CachedEmbedding(ctx, "other", "hello"); ok {
		t.Error("embedding cached across models")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestApplyEvolutionNoChange: operations identical to the library bump
// nothing, however often they are proposed, and are logged as empty.
func TestApplyEvolutionNoChange(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	db.PutSkill(ctx, SkillInput{Name: "habit", Description: "d", Body: "b"})
	db.PutSkill(ctx, SkillInput{Name: "gone", Description: "d", Body: "b"})
	if res, err := db.ApplyEvolution(ctx, []SkillChange{{Op: "retire", Input: SkillInput{Name: "gone"}}}, Evolution{}); err != nil || res.Generation != 1 {
		t.Fatalf("retire: %+v, %v", res, err)
	}
	same := []SkillChange{
		{Op: "update", Input: SkillInput{Name: "habit", Description: "d", Body: "b"}},
		{Op: "retire", Input: SkillInput{Name: "gone"}},
	}
	for range 8 {
		res, err := db.ApplyEvolution(ctx, same, Evolution{SessionID: "s"})
		if err != nil || res.Generation != 1 || len(res.Changed) != 0 {
			t.Fatalf("no-op evolution = %+v, %v; want generation 1, nothing changed", res, err)
		}
	}
	if g, _ := db.SkillGeneration(ctx); g != 1 {
		t.Errorf("generation %d after 8 no-op evolutions, want 1", g)
	}
	if s, _ := db.Skill(ctx, "habit"); s.Version != 1 {
		t.Errorf("habit at version %d", s.Version)
	}
	evos, _ := db.Evolutions(ctx, 10)
	if len(evos) != 9 || evos[0].Status != "empty" || evos[0].Generation != 1 || evos[0].Error == "" {
		t.Errorf("evolutions %+v", evos)
	}
	// One real change among no-ops bumps once and names only it.
	mixed := []SkillChange{same[1], {Op: "update", Input: SkillInput{Name: "habit", Description: "d2", Body: "b"}}}
	res, err := db.ApplyEvolution(ctx, mixed, Evolution{})
	if err != nil || res.Generation != 2 || len(res.Changed) != 1 || res.Changed[0].Input.Name != "habit" {
		t.Errorf("mixed evolution = %+v, %v", res, err)
	}
}
