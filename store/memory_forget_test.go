package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"
)

// fileHas reports whether the database file or its WAL holds marker.
func fileHas(t *testing.T, path, marker string) []string {
	t.Helper()
	var where []string
	for _, p := range []string{path, path + "-wal"} {
		b, err := os.ReadFile(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(bytes.ToLower(b), bytes.ToLower([]byte(marker))) {
			where = append(where, p)
		}
	}
	return where
}

// TestForgetRemovesBytes is the "forget deletes for good" check: after
// ForgetMemories the unique words of a memory, of the version it
// superseded, and of their index entries are in neither the database file
// nor its WAL, while other memories are untouched.
func TestForgetRemovesBytes(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	at := time.UnixMilli(1_800_000_000_000)
	// Enough other memories that the index has several pages.
	var filler []MemoryOp
	for i := range 300 {
		filler = append(filler, MemoryOp{Kind: MemoryAdd, Input: MemoryInput{Type: MemoryFact,
			Content: fmt.Sprintf("Filler fact number %d about gardening and tomatoes", i)}})
	}
	if _, _, err := db.ApplyMemoryOps(ctx, "s", filler, at); err != nil {
		t.Fatal(err)
	}
	old, err := db.AddMemory(ctx, MemoryInput{Scope: "s", Type: MemoryFact, Topic: "locker code",
		Content: "The locker code is zorblatquux7731", At: at})
	if err != nil {
		t.Fatal(err)
	}
	chs, _, err := db.ApplyMemoryOps(ctx, "s", []MemoryOp{{Kind: MemorySupersede, IDs: []int64{old.ID},
		Input: MemoryInput{Type: MemoryFact, Topic: "locker code", Content: "The locker code is now quibblefrotz4412"}}}, at)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutEmbedding(ctx, "m", chs[0].Memory.Content, []float32{1, 2}); err != nil {
		t.Fatal(err)
	}
	if err := db.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	for _, marker := range []string{"zorblatquux7731", "quibblefrotz4412"} {
		if len(fileHas(t, db.Path(), marker)) == 0 {
			t.Fatalf("setup: %s not in the file before forget", marker)
		}
	}
	ids, err := db.ForgetMemories(ctx, "s", []int64{chs[0].Memory.ID}, at)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 2 {
		t.Errorf("forgot %v, want the memory and its earlier version", ids)
	}
	if ok, err := db.Compact(ctx); !ok || err != nil {
		t.Errorf("Compact = %v, %v; want a finished checkpoint", ok, err)
	}
	for _, marker := range []string{"zorblatquux7731", "quibblefrotz4412"} {
		if where := fileHas(t, db.Path(), marker); len(where) > 0 {
			t.Errorf("%s still in %v after forget", marker, where)
		}
	}
	if _, ok, _ := db.CachedEmbedding(ctx, "m", chs[0].Memory.Content); ok {
		t.Error("the embedding of a forgotten memory is still cached")
	}
	hits, err := db.SearchMemories(ctx, MemorySearch{Scope: "s", Query: "tomatoes", Limit: 500})
	if err != nil || len(hits) != 300 {
		t.Errorf("other memories after forget: %d hits, %v; want 300", len(hits), err)
	}
	if hits, _ := db.SearchMemories(ctx, MemorySearch{Scope: "s", Query: "locker code", History: true}); len(hits) != 0 {
		t.Errorf("forgotten memory still found: %+v", hits)
	}
}

func TestForgetScoped(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	m, err := db.AddMemory(ctx, MemoryInput{Scope: "alice", Type: MemoryFact, Content: "Alice's fact"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ForgetMemories(ctx, "bob", []int64{m.ID}, time.Now()); !errors.Is(err, ErrNotFound) {
		t.Errorf("forget from another scope = %v, want ErrNotFound", err)
	}
	if _, err := db.Memory(ctx, m.ID); err != nil {
		t.Errorf("memory gone after a refused forget: %v", err)
	}
	if _, err := db.ForgetMemories(ctx, "", []int64{m.ID, 999}, time.Now()); !errors.Is(err, ErrNotFound) {
		t.Errorf("forget with an unknown id = %v, want ErrNotFound", err)
	}
	if _, err := db.Memory(ctx, m.ID); err != nil {
		t.Errorf("a failed batch deleted a memory: %v", err)
	}
}
