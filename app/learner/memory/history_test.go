package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/store"
)

func importFile(t *testing.T, s *Service, scope string, ms ...ExportedMemory) ImportReport {
	t.Helper()
	data, err := json.Marshal(ExportFile{Version: ExportVersion, Exported: time.Now(), Memories: ms})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := s.Import(context.Background(), bytes.NewReader(data), scope)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestImportKeepsEveryMemory: a memory on a topic the scope already has is
// imported beside it, not skipped; only word-for-word repeats are not
// added again.
func TestImportKeepsEveryMemory(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ck := newClock()
	s := newService(t, Options{DB: db, Now: ck.Now, Retrieval: RetrieveOptions{MaxUnits: 6}})
	ctx := context.Background()
	if _, err := s.Add(ctx, store.MemoryInput{Scope: "u", Type: store.MemoryPreference, Topic: "editor theme", Content: "Prefers dark mode"}); err != nil {
		t.Fatal(err)
	}
	old := ck.Now().AddDate(0, -3, 0)
	in := ExportedMemory{Scope: "u", Type: store.MemoryPreference, Topic: "editor theme", Content: "Used the Solarized light theme in 2025",
		Importance: 0.6, Confidence: 0.9, ValidFrom: old, CreatedAt: old, UpdatedAt: old}
	rep := importFile(t, s, "", in)
	if rep.Added != 1 || rep.SameTopic != 1 || rep.Duplicates != 0 {
		t.Errorf("first import: %+v", rep)
	}
	cur := currentContents(t, db, "u")
	if !hasText(cur, "dark mode") || !hasText(cur, "Solarized") {
		t.Errorf("current memories: %v", cur)
	}
	if rep := importFile(t, s, "", in); rep.Added != 0 || rep.Duplicates != 1 {
		t.Errorf("second import: %+v", rep)
	}
}

// TestImportedEpisodesAgeFromImport: an episode imported from months ago
// keeps its date but is not ended by the next decay pass; it fades from
// the import on, like any unused episode.
func TestImportedEpisodesAgeFromImport(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ck := newClock()
	s := newService(t, Options{DB: db, Now: ck.Now, Retrieval: RetrieveOptions{MaxUnits: 6, HalfLife: 30 * 24 * time.Hour}})
	said := ck.Now().AddDate(-1, 0, 0)
	importFile(t, s, "u", ExportedMemory{Scope: "u", Type: store.MemoryEpisode, Content: "Planned the move to Lisbon",
		Importance: 0.5, Confidence: 0.9, ValidFrom: said, CreatedAt: said, UpdatedAt: said})
	ck.Add(time.Minute)
	if n, err := s.Decay(context.Background()); err != nil || n != 0 {
		t.Fatalf("decay a minute after the import ended %d episodes (%v)", n, err)
	}
	ms, err := db.Memories(context.Background(), store.MemoryFilter{Scope: "u"})
	if err != nil || len(ms) != 1 || !ms[0].ValidFrom.Equal(said) {
		t.Fatalf("imported episode: %+v, %v", ms, err)
	}
	ck.Add(5 * 30 * 24 * time.Hour) // five half-lives unused
	if n, err := s.Decay(context.Background()); err != nil || n != 1 {
		t.Errorf("decay after five half-lives ended %d episodes (%v), want 1", n, err)
	}
}

func TestReadWhen(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	day := func(m time.Month, d int) time.Time { return time.Date(2026, m, d, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		q        string
		from, to time.Time
		order    int
		dates    bool
	}{
		{q: "What's my dog's name?"},
		{q: "When did we adopt the dog?", dates: true},
		{q: "what did I do last week with the dog", from: day(11, 14), to: day(11, 29), dates: true},
		{q: "what happened yesterday", from: day(11, 27), to: day(11, 28)},
		{q: "what did I plant two weeks ago", from: day(11, 11), to: day(11, 18), dates: true},
		{q: "what happened in October at the bakery", from: day(10, 1), to: day(11, 1)},
		{q: "the cake due on 24 October", from: day(10, 23), to: day(10, 26)},
		{q: "what did I do in December", from: time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC), to: day(1, 1).AddDate(0, 0, 0)},
		{q: "where do I live now", order: 1},
		{q: "what was my first car", order: -1, dates: true},
	}
	for _, tt := range tests {
		t.Run(tt.q, func(t *testing.T) {
			w := readWhen(tt.q, now)
			if !w.from.Equal(tt.from) || !w.to.Equal(tt.to) || w.order != tt.order || w.dates != tt.dates {
				t.Errorf("readWhen = %v..%v order %d dates %v; want %v..%v order %d dates %v",
					w.from, w.to, w.order, w.dates, tt.from, tt.to, tt.order, tt.dates)
			}
		})
	}
}

// TestTimeAndMultiFactRetrieval: a question naming a period prefers what
// was said then and shows dates; a question needing two facts gets both
// even when one fact has many near-repeats.
func TestTimeAndMultiFactRetrieval(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ck := newClock()
	s := newService(t, Options{DB: db, Now: ck.Now, Retrieval: RetrieveOptions{MaxUnits: 2}})
	ctx := context.Background()
	at := func(days int) time.Time { return ck.Now().AddDate(0, 0, -days) }
	var ms []ExportedMemory
	for i, c := range []struct {
		text string
		days int
	}{
		{"Planted garlic in the garden", 60},
		{"Planted tulips in the garden", 5},
		{"Our dog Biscuit is a beagle", 40},
		{"Biscuit the dog loves the beach", 30},
		{"Biscuit the dog hates the rain", 20},
		{"The flat in Alfama costs 1650 euros a month", 25},
	} {
		ms = append(ms, ExportedMemory{Scope: "u", Type: store.MemoryFact, Content: c.text, Importance: 0.5, Confidence: 0.9,
			ValidFrom: at(c.days), ID: int64(i)})
	}
	importFile(t, s, "u", ms...)
	ask := func(q string) Selection {
		sel, err := s.Select(ctx, "u", []Message{{Role: "user", Text: q}})
		if err != nil {
			t.Fatal(err)
		}
		return sel
	}
	if sel := ask("what did I plant in the garden last week?"); len(sel.Memories) == 0 || !strings.Contains(sel.Memories[0].Content, "tulips") ||
		!strings.Contains(sel.Text, "(said "+at(5).Format("2006-01-02")+")") {
		t.Errorf("last week: %v\n%s", contents(sel.Memories), sel.Text)
	}
	sel := ask("what is my dog Biscuit's breed, and how much is the flat?")
	got := contents(sel.Memories)
	if !hasText(got, "beagle") || !hasText(got, "1650") {
		t.Errorf("two facts: got %v", got)
	}
}
