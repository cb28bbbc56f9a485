package store

import (
	"context"
	"path/filepath"
	"testing"
)

func TestSessionTurnHeadsAndRecent(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "metaclaw.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	var turns []*Turn
	for i := range 10 {
		typ := TurnMain
		if i%3 == 2 {
			typ = TurnSide
		}
		turns = append(turns, &Turn{SessionID: "s", Type: typ, API: "openai", Model: "m", Status: 200, Request: []byte(`{"i":1}`)})
	}
	if err := db.RecordTurns(ctx, turns); err != nil {
		t.Fatal(err)
	}
	heads, err := db.SessionTurnHeads(ctx, "s")
	if err != nil || len(heads) != 10 || heads[0].TurnNum != 1 || heads[9].TurnNum != 10 || heads[2].Type != TurnSide {
		t.Fatalf("heads = %+v, %v", heads, err)
	}
	recent, err := db.RecentSessionTurns(ctx, "s", TurnMain, 3)
	if err != nil || len(recent) != 3 {
		t.Fatalf("recent = %+v, %v", recent, err)
	}
	// Main turns are 1,2,4,5,7,8,10: the last three, oldest first.
	if recent[0].TurnNum != 7 || recent[1].TurnNum != 8 || recent[2].TurnNum != 10 || len(recent[2].Request) == 0 {
		t.Fatalf("recent turn numbers %d %d %d", recent[0].TurnNum, recent[1].TurnNum, recent[2].TurnNum)
	}
	brief, err := db.RecentSessionTurnsBrief(ctx, "s", TurnMain, 3)
	if err != nil || len(brief) != 3 {
		t.Fatalf("brief = %+v, %v", brief, err)
	}
	for i, b := range brief {
		if b.ID != recent[i].ID || b.TurnNum != recent[i].TurnNum || !b.CreatedAt.Equal(recent[i].CreatedAt) || b.Request != nil {
			t.Fatalf("brief turn %d = %+v, want %+v without its request", i, b, recent[i])
		}
	}
	all, err := db.RecentSessionTurns(ctx, "s", "", 100)
	if err != nil || len(all) != 10 {
		t.Fatalf("all = %d, %v", len(all), err)
	}
}
