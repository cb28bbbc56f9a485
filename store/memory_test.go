package store

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestNormalizeTopicAndContentKey(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ a, b string }{
		{"Editor themes", "theme of the editor"},
		{"favourite programming languages", "Programming language, favourite"},
		{"Cities", "city"},
	} {
		if NormalizeTopic(tt.a) != NormalizeTopic(tt.b) {
			t.Errorf("NormalizeTopic(%q) = %q, NormalizeTopic(%q) = %q; want equal", tt.a, NormalizeTopic(tt.a), tt.b, NormalizeTopic(tt.b))
		}
	}
	if ContentKey("Prefers  dark mode.") != ContentKey("prefers dark mode") {
		t.Error("ContentKey depends on case, spacing or punctuation")
	}
	if ContentKey("prefers dark mode") == ContentKey("prefers light mode") {
		t.Error("ContentKey collides for different text")
	}
}

func TestMemoryOps(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	t0 := time.UnixMilli(1_800_000_000_000)
	dark, err := db.AddMemory(ctx, MemoryInput{Scope: "alice", Type: MemoryPreference, Topic: "editor theme",
		Content: "Prefers dark mode", Importance: 0.6, Source: "model", SessionID: "s1", TurnIDs: []int64{3}, At: t0})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.SetMemoryPinned(ctx, dark.ID, true, t0); err != nil {
		t.Fatal(err)
	}
	t1 := t0.Add(time.Hour)
	chs, rev, err := db.ApplyMemoryOps(ctx, "alice", []MemoryOp{
		{Kind: MemoryReinforce, IDs: []int64{dark.ID}, Input: MemoryInput{Importance: 0.7, TurnIDs: []int64{5, 3}}},
		{Kind: MemoryAdd, Input: MemoryInput{Type: MemoryFact, Content: "Works at Acme"}},
	}, t1)
	if err != nil {
		t.Fatal(err)
	}
	if got := chs[0].Memory; got.Reinforced != 2 || got.Importance != 0.7 || !cmp.Equal(got.TurnIDs, []int64{3, 5}) || !got.UpdatedAt.Equal(t1) {
		t.Errorf("reinforced = %+v", got)
	}
	if rev != 3 {
		t.Errorf("revision = %d, want 3 (add, pin, batch)", rev)
	}
	t2 := t1.Add(24 * time.Hour)
	chs, _, err = db.ApplyMemoryOps(ctx, "alice", []MemoryOp{{Kind: MemorySupersede, IDs: []int64{dark.ID},
		Input: MemoryInput{Type: MemoryPreference, Topic: "Editor themes", Content: "Prefers light mode"}}}, t2)
	if err != nil {
		t.Fatal(err)
	}
	light := chs[0].Memory
	if !light.Pinned || !light.ValidFrom.Equal(t2) || !light.Current() {
		t.Errorf("superseding memory = %+v; want pinned (inherited), valid from t2", light)
	}
	old, _ := db.Memory(ctx, dark.ID)
	if old.Current() || old.SupersededBy != light.ID || old.EndReason != EndSuperseded || !old.ValidTo.Equal(t2) {
		t.Errorf("superseded memory = %+v", old)
	}
	hist, err := db.MemoryHistory(ctx, light.ID)
	if err != nil || len(hist) != 2 || hist[0].ID != dark.ID || hist[1].ID != light.ID {
		t.Errorf("history = %+v, %v", hist, err)
	}
	cur, rev, err := db.CurrentMemories(ctx, "alice")
	if err != nil || len(cur) != 2 || rev != 4 {
		t.Errorf("current = %d memories at rev %d, %v; want 2 at 4", len(cur), rev, err)
	}
	// An op on a memory that is no longer current fails the whole batch.
	_, _, err = db.ApplyMemoryOps(ctx, "alice", []MemoryOp{
		{Kind: MemoryAdd, Input: MemoryInput{Type: MemoryFact, Content: "lost"}},
		{Kind: MemoryReinforce, IDs: []int64{dark.ID}},
	}, t2)
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("reinforcing a superseded memory = %v, want ErrNotFound", err)
	}
	if hits, _ := db.SearchMemories(ctx, MemorySearch{Scope: "alice", Query: "lost"}); len(hits) != 0 {
		t.Error("a failed batch left a memory behind")
	}
}

func TestMemoryOpsRefuseOtherScope(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	m, err := db.AddMemory(ctx, MemoryInput{Scope: "alice", Type: MemoryFact, Content: "Alice has a cat"})
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range []MemoryOp{
		{Kind: MemoryReinforce, IDs: []int64{m.ID}},
		{Kind: MemorySupersede, IDs: []int64{m.ID}, Input: MemoryInput{Type: MemoryFact, Content: "x"}},
		{Kind: MemoryEnd, IDs: []int64{m.ID}, Reason: EndDecayed},
		{Kind: MemoryDrop, IDs: []int64{m.ID}},
	} {
		if _, _, err := db.ApplyMemoryOps(ctx, "bob", []MemoryOp{op}, time.Now()); !errors.Is(err, ErrNotFound) {
			t.Errorf("%s from another scope = %v, want ErrNotFound", op.Kind, err)
		}
	}
	if got, _ := db.Memory(ctx, m.ID); !got.Current() || got.Reinforced != 1 {
		t.Errorf("memory changed by another scope: %+v", got)
	}
}

func TestMemoryInputChecks(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	tests := []struct {
		name string
		in   MemoryInput
		want string
	}{
		{"empty", MemoryInput{Type: MemoryFact, Content: "  "}, "empty"},
		{"bad type", MemoryInput{Type: "opinion", Content: "x"}, "not one of"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := db.AddMemory(context.Background(), tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("AddMemory = %v, want an error with %q", err, tt.want)
			}
		})
	}
	m, err := db.AddMemory(context.Background(), MemoryInput{Type: MemoryFact, Content: "x", Importance: 7, Confidence: -1})
	if err != nil || m.Scope != DefaultScope || m.Importance != 1 || m.Confidence != 0 {
		t.Errorf("defaults and clamping: %+v, %v", m, err)
	}
}

func TestSearchMemoriesScopeAndHistory(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	a, _ := db.AddMemory(ctx, MemoryInput{Scope: "alice", Type: MemoryPreference, Topic: "editor", Content: "Uses the Helix editor"})
	db.AddMemory(ctx, MemoryInput{Scope: "bob", Type: MemoryPreference, Topic: "editor", Content: "Uses the Emacs editor"})
	db.ApplyMemoryOps(ctx, "alice", []MemoryOp{{Kind: MemorySupersede, IDs: []int64{a.ID},
		Input: MemoryInput{Type: MemoryPreference, Topic: "editor", Content: "Uses the Zed editor"}}}, time.Now())
	tests := []struct {
		name    string
		q       MemorySearch
		want    []string
		wantNil bool
	}{
		{"current only", MemorySearch{Scope: "alice", Query: "which editors"}, []string{"Uses the Zed editor"}, false},
		{"with history", MemorySearch{Scope: "alice", Query: "editor", History: true}, []string{"Uses the Zed editor", "Uses the Helix editor"}, false},
		{"other scope", MemorySearch{Scope: "bob", Query: "editor"}, []string{"Uses the Emacs editor"}, false},
		{"stemmed", MemorySearch{Scope: "bob", Query: "using"}, []string{"Uses the Emacs editor"}, false},
		{"stop words only", MemorySearch{Scope: "alice", Query: "the and of"}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hits, err := db.SearchMemories(ctx, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range hits {
				got = append(got, h.Content)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Error(diff)
			}
		})
	}
}

func TestMemoryProgressAndQueue(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	t0 := time.UnixMilli(1_800_000_000_000)
	turns := []*Turn{{SessionID: "s", CreatedAt: t0}, {SessionID: "s", Type: TurnSide, CreatedAt: t0},
		{SessionID: "s", CreatedAt: t0}, {SessionID: "s", CreatedAt: t0}}
	if err := db.RecordTurns(ctx, turns); err != nil {
		t.Fatal(err)
	}
	if n, _ := db.CountMainTurnsAfter(ctx, "s", 0); n != 3 {
		t.Errorf("main turns = %d, want 3", n)
	}
	if err := db.SetMemoryProgress(ctx, "s", 3, t0); err != nil {
		t.Fatal(err)
	}
	db.SetMemoryProgress(ctx, "s", 1, t0) // never moves back
	if p, _ := db.MemoryProgress(ctx, "s"); p != 3 {
		t.Errorf("progress = %d, want 3", p)
	}
	rest, err := db.MainTurnsAfter(ctx, "s", 3, 0)
	if err != nil || len(rest) != 1 || rest[0].ID != turns[3].ID {
		t.Errorf("MainTurnsAfter = %+v, %v", rest, err)
	}
	// Turn 2 is the side turn: the two latest main turns through 3 are 1 and 3.
	upTo, err := db.MainTurnsThroughBrief(ctx, "s", 3, 2)
	if err != nil || len(upTo) != 2 || upTo[0].ID != turns[0].ID || upTo[1].ID != turns[2].ID {
		t.Errorf("MainTurnsThroughBrief = %+v, %v", upTo, err)
	}
	if brief, err := db.MainTurnsAfterBrief(ctx, "s", 3, 0); err != nil || len(brief) != 1 || brief[0].ID != turns[3].ID {
		t.Errorf("MainTurnsAfterBrief = %+v, %v", brief, err)
	}
	if ids, _ := db.SessionsToExtract(ctx, t0, 10); len(ids) != 0 {
		t.Errorf("an open session is to extract: %v", ids)
	}
	db.EndSession(ctx, "s", "done", t0.Add(time.Minute))
	if ids, _ := db.SessionsToExtract(ctx, t0, 10); !cmp.Equal(ids, []string{"s"}) {
		t.Errorf("SessionsToExtract = %v, want [s]", ids)
	}
	db.SetMemoryProgress(ctx, "s", 4, t0)
	if ids, _ := db.SessionsToExtract(ctx, t0, 10); len(ids) != 0 {
		t.Errorf("a fully extracted session is to extract: %v", ids)
	}

	ids := []int64{turns[0].ID, turns[2].ID}
	if err := db.QueueMemoryTurns(ctx, "s", ids, t0); err != nil {
		t.Fatal(err)
	}
	db.QueueMemoryTurns(ctx, "s", ids, t0.Add(time.Hour)) // already queued: unchanged
	due, err := db.DueMemoryTurns(ctx, t0, 10)
	if err != nil || len(due) != 2 {
		t.Fatalf("due = %+v, %v", due, err)
	}
	db.RetryMemoryTurns(ctx, ids[:1], t0.Add(time.Hour))
	if due, _ := db.DueMemoryTurns(ctx, t0, 10); len(due) != 1 || due[0].TurnID != ids[1] {
		t.Errorf("due after retry = %+v", due)
	}
	db.DequeueMemoryTurns(ctx, ids)
	if n, _ := db.CountPendingMemoryTurns(ctx); n != 0 {
		t.Errorf("pending after dequeue = %d", n)
	}
	got, err := db.TurnsByID(ctx, []int64{turns[3].ID, turns[0].ID, 999})
	if err != nil || len(got) != 2 || got[0].ID != turns[0].ID {
		t.Errorf("TurnsByID = %d turns, %v", len(got), err)
	}
}

func TestMemoriesFromTurnsAndDrop(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	r, _ := db.AddMemory(ctx, MemoryInput{Scope: "s", Type: MemoryFact, Content: "rule one", Source: "rules", TurnIDs: []int64{7, 8}})
	db.AddMemory(ctx, MemoryInput{Scope: "s", Type: MemoryFact, Content: "model one", Source: "model", TurnIDs: []int64{7}})
	db.AddMemory(ctx, MemoryInput{Scope: "s", Type: MemoryFact, Content: "rule two", Source: "rules", TurnIDs: []int64{9}})
	got, err := db.MemoriesFromTurns(ctx, "s", "rules", []int64{8, 10})
	if err != nil || len(got) != 1 || got[0].ID != r.ID {
		t.Fatalf("MemoriesFromTurns = %+v, %v", got, err)
	}
	if _, _, err := db.ApplyMemoryOps(ctx, "s", []MemoryOp{{Kind: MemoryDrop, IDs: []int64{r.ID}}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Memory(ctx, r.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("dropped memory still there: %v", err)
	}
	scopes, err := db.MemoryScopes(ctx)
	if err != nil || len(scopes) != 1 || scopes[0].Current != 2 || scopes[0].Rev != 4 {
		t.Errorf("scopes = %+v, %v", scopes, err)
	}
}

func TestMarkMemoriesUsed(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	m, _ := db.AddMemory(ctx, MemoryInput{Type: MemoryEpisode, Content: "Fixed the flaky test"})
	rev, _ := db.MemoryScopeRev(ctx, DefaultScope)
	at := time.UnixMilli(1_900_000_000_000)
	if err := db.MarkMemoriesUsed(ctx, map[int64]int{m.ID: 3}, at); err != nil {
		t.Fatal(err)
	}
	got, _ := db.Memory(ctx, m.ID)
	if got.UseCount != 3 || !got.LastUsedAt.Equal(at) {
		t.Errorf("after use: %+v", got)
	}
	if after, _ := db.MemoryScopeRev(ctx, DefaultScope); after != rev {
		t.Errorf("usage moved the revision from %d to %d", rev, after)
	}
}
