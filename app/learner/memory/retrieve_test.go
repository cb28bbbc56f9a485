package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/metaclaw/metaclaw/store"
)

type recallSet struct {
	Memories []struct {
		Key, Type, Topic, Content string
	}
	Queries []struct {
		Query string
		Want  []string
	}
}

func loadRecall(tb testing.TB) recallSet {
	tb.Helper()
	b, err := os.ReadFile("testdata/recall.json")
	if err != nil {
		tb.Fatal(err)
	}
	var rs recallSet
	if err := json.Unmarshal(b, &rs); err != nil {
		tb.Fatal(err)
	}
	return rs
}

// TestRecall calibrates retrieval on a labelled set: each query should
// inject the memories it needs, and queries that need none should get
// (almost) nothing.
func TestRecall(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	rs := loadRecall(t)
	keyOf := map[string]string{}
	for _, m := range rs.Memories {
		got := seed(t, db, "u", store.MemoryInput{Type: m.Type, Topic: m.Topic, Content: m.Content})[0]
		keyOf[got.Content] = m.Key
	}
	r := NewRetriever(db, RetrieveOptions{MaxUnits: 6, MaxTokens: 800}, nil, nil, nil)
	found, wanted, extra := 0, 0, 0
	for _, q := range rs.Queries {
		sel, err := r.Select(context.Background(), "u", []Message{{Role: "user", Text: q.Query}})
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, m := range sel.Memories {
			keys = append(keys, keyOf[m.Content])
		}
		for _, w := range q.Want {
			wanted++
			if hasText(keys, w) {
				found++
			} else {
				t.Logf("missed %q for %q (got %v)", w, q.Query, keys)
			}
		}
		extra += len(keys) - countIn(keys, q.Want)
	}
	recall := float64(found) / float64(wanted)
	t.Logf("recall %.2f (%d/%d), %d memories injected that were not asked for, over %d queries", recall, found, wanted, extra, len(rs.Queries))
	if recall < 0.9 {
		t.Errorf("recall %.2f, want ≥ 0.9", recall)
	}
	if perQuery := float64(extra) / float64(len(rs.Queries)); perQuery > 0.6 {
		t.Errorf("%.2f unrequested memories per query, want ≤ 0.6", perQuery)
	}
}

func countIn(keys, want []string) int {
	n := 0
	for _, k := range keys {
		for _, w := range want {
			if k == w {
				n++
			}
		}
	}
	return n
}

func TestSelectScopesPinsAndHistory(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx := context.Background()
	s := newService(t, Options{DB: db, Retrieval: RetrieveOptions{MaxUnits: 6, MaxTokens: 800}})
	seed(t, db, "bob", store.MemoryInput{Type: store.MemoryPreference, Topic: "editor theme", Content: "Bob likes a solarized editor theme."})
	seed(t, db, "alice", store.MemoryInput{Type: store.MemoryFact, Topic: "name", Content: "The user's name is Alice."})
	dark := seed(t, db, "alice", store.MemoryInput{Type: store.MemoryPreference, Topic: "editor theme", Content: "The user likes a dark editor theme."})[0]
	if _, err := s.SetPinned(ctx, dark.ID-1, true); err != nil { // pin the name
		t.Fatal(err)
	}
	if _, err := s.Add(ctx, store.MemoryInput{Scope: "alice", Type: "preference", Topic: "Editor themes", Content: "The user switched to a light editor theme."}); err != nil {
		t.Fatal(err)
	}
	sel, err := s.Select(ctx, "alice", []Message{{Role: "system", Text: "You are helpful. dark solarized"}, {Role: "user", Text: "Set up my editor theme please"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"The user's name is Alice.", "The user switched to a light editor theme."}
	if diff := cmp.Diff(want, contents(sel.Memories)); diff != "" {
		t.Errorf("selected (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(sel.Text, "# Memory\n") || strings.Index(sel.Text, "## Pinned") > strings.Index(sel.Text, "## Preferences") {
		t.Errorf("text:\n%s", sel.Text)
	}
	if len(sel.IDs) != 2 || !strings.HasPrefix(sel.IDs[0], "memory:") {
		t.Errorf("ids = %v", sel.IDs)
	}
	// The other scope sees only its own.
	sel, _ = s.Select(ctx, "bob", []Message{{Role: "user", Text: "Set up my editor theme please"}})
	if diff := cmp.Diff([]string{"Bob likes a solarized editor theme."}, contents(sel.Memories)); diff != "" {
		t.Errorf("bob (-want +got):\n%s", diff)
	}
	// An unrelated request gets only the pinned memory.
	sel, _ = s.Select(ctx, "alice", []Message{{Role: "user", Text: "What is the capital of Peru?"}})
	if diff := cmp.Diff([]string{"The user's name is Alice."}, contents(sel.Memories)); diff != "" {
		t.Errorf("unrelated (-want +got):\n%s", diff)
	}
}

func TestSelectLimits(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	for i := range 20 {
		seed(t, db, "s", store.MemoryInput{Type: store.MemoryFact, Content: strings.Repeat("kubernetes cluster detail ", 1+i%4) + string(rune('a'+i))})
	}
	tests := []struct {
		name            string
		units, tokens   int
		wantN, maxToken int
	}{
		{"units", 3, 0, 3, 1 << 30},
		{"tokens", 20, 60, -1, 60},
		{"off", 0, 800, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := NewRetriever(db, RetrieveOptions{MaxUnits: tt.units, MaxTokens: tt.tokens}, nil, nil, nil)
			sel, err := r.Select(context.Background(), "s", []Message{{Role: "user", Text: "kubernetes cluster"}})
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantN >= 0 && len(sel.Memories) != tt.wantN || tt.wantN < 0 && len(sel.Memories) == 0 {
				t.Errorf("%d memories, want %d", len(sel.Memories), tt.wantN)
			}
			if sel.Tokens > tt.maxToken || EstimateTokens(sel.Text) != sel.Tokens {
				t.Errorf("tokens %d (text %d), budget %d", sel.Tokens, EstimateTokens(sel.Text), tt.maxToken)
			}
		})
	}
}

func TestRenderGroups(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	ms := []Scored{
		{Memory: store.Memory{Type: store.MemoryEpisode, Content: "Fixed the build.", ValidFrom: at}},
		{Memory: store.Memory{Type: store.MemoryProjectState, Content: "Launch is on May 3.", ValidFrom: at}},
		{Memory: store.Memory{Type: store.MemoryPreference, Content: "Short\nanswers.", ValidFrom: at}},
		{Memory: store.Memory{Type: store.MemoryFact, Content: "Name is Ada.", Pinned: true, ValidFrom: at}},
	}
	want := header + "\n## Pinned\n- Name is Ada.\n\n## Preferences\n- Short answers.\n\n## Project state\n- Launch is on May 3. (as of 2026-03-01)\n\n## Earlier sessions\n- 2026-03-01: Fixed the build.\n"
	if diff := cmp.Diff(want, Render(ms)); diff != "" {
		t.Error(diff)
	}
	if Render(nil) != "" {
		t.Error("Render(nil) is not empty")
	}
}

// TestOutsideChangesReachTheIndex checks that a change made behind the
// service's back (the CLI, another process) is seen after a check.
func TestOutsideChangesReachTheIndex(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx := context.Background()
	r := NewRetriever(db, RetrieveOptions{MaxUnits: 6}, nil, nil, nil)
	r.checkEvery = 0
	query := []Message{{Role: "user", Text: "which database do we use"}}
	if sel, _ := r.Select(ctx, "s", query); len(sel.Memories) != 0 {
		t.Fatalf("empty scope gave %v", contents(sel.Memories))
	}
	seed(t, db, "s", store.MemoryInput{Type: store.MemoryFact, Content: "The team uses the Postgres database."})
	selectOnce(t, r, "s", query, "an outside change never reached the index")
}

// selectOnce selects for msgs until one memory is chosen (the index is
// rebuilt in the background), failing with why after 5 s.
func selectOnce(t *testing.T, r *Retriever, scope string, msgs []Message, why string) Selection {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		sel, err := r.Select(context.Background(), scope, msgs)
		if err != nil {
			t.Fatal(err)
		}
		if len(sel.Memories) == 1 {
			return sel
		}
		if time.Now().After(deadline) {
			t.Fatal(why)
		}
	}
}

func TestIndexIncrementalMatchesRebuild(t *testing.T) {
	t.Parallel()
	var ms []store.Memory
	for i := range 600 {
		ms = append(ms, store.Memory{ID: int64(i + 1), Type: store.MemoryFact, Topic: "topic " + string(rune('a'+i%7)),
			Content: strings.Repeat("alpha beta ", i%5) + "gamma delta " + string(rune('a'+i%26))})
	}
	inc := newScopeIndex("s", nil, 0)
	for _, m := range ms {
		inc.add(m)
	}
	var kept []store.Memory
	for _, m := range ms {
		if m.ID%3 == 0 {
			inc.remove(m.ID)
		} else {
			kept = append(kept, m)
		}
	}
	inc.ix.Compact() // deletions count in the statistics until a compaction
	fresh := newScopeIndex("s", kept, 0)
	for _, q := range []string{"alpha", "gamma delta b", "topic c beta"} {
		a, b := inc.search(queryOf(q), 10), fresh.search(queryOf(q), 10)
		if len(a) != len(b) {
			t.Fatalf("%q: %d vs %d hits", q, len(a), len(b))
		}
		for i := range a {
			if a[i].e.id != b[i].e.id || a[i].score-b[i].score > 1e-9 || b[i].score-a[i].score > 1e-9 {
				t.Errorf("%q hit %d: incremental %d (%.4f), rebuilt %d (%.4f)", q, i, a[i].e.id, a[i].score, b[i].e.id, b[i].score)
			}
		}
	}
}

// countingEmbedder embeds every text as the same unit vector and counts the
// query embeddings (calls of one text).
type countingEmbedder struct{ queries atomic.Int64 }

func (e *countingEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 1 {
		e.queries.Add(1)
	}
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, 0}
	}
	return out, nil
}

// TestEmptyScopeSkipsTheQuery: a scope without memories answers at once,
// without embedding the query (a call to the embeddings endpoint on every
// turn of a person who has no memories yet); once it has one, it is
// searched.
func TestEmptyScopeSkipsTheQuery(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx := context.Background()
	emb := &countingEmbedder{}
	r := NewRetriever(db, RetrieveOptions{Mode: ModeHybrid, MaxUnits: 4, MaxTokens: 800}, emb, nil, nil)
	t.Cleanup(r.Close)
	r.checkEvery = 0
	msgs := []Message{{Role: "user", Text: "Set up my editor theme please"}}
	sel, err := r.Select(ctx, "carol", msgs)
	if err != nil || len(sel.Memories) != 0 || sel.Query == "" || emb.queries.Load() != 0 {
		t.Fatalf("empty scope: %+v, %v; %d query embeddings", sel, err, emb.queries.Load())
	}
	seed(t, db, "carol", store.MemoryInput{Type: store.MemoryPreference, Topic: "editor theme", Content: "The user likes a dark editor theme."})
	selectOnce(t, r, "carol", msgs, "the new memory never reached the index")
	if emb.queries.Load() == 0 {
		t.Error("the query of a scope with memories was not embedded")
	}
}

// failingEmbedder answers the queries and refuses batches (the memories').
type failingEmbedder struct{}

func (failingEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	if len(texts) > 1 {
		return nil, errors.New("503 from the embeddings endpoint")
	}
	return [][]float32{{1, 0}}, nil
}

// TestWarmFillsEveryVector: Warm returns once the scope's index holds a
// vector for every memory, and says so when the endpoint fails instead of
// waiting for ever.
func TestWarmFillsEveryVector(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx := context.Background()
	for i := range 300 { // more than one fill batch
		seed(t, db, "dana", store.MemoryInput{Type: store.MemoryFact, Topic: fmt.Sprintf("fact %d", i), Content: fmt.Sprintf("Fact number %d about the garden.", i)})
	}
	r := NewRetriever(db, RetrieveOptions{Mode: ModeHybrid, MaxUnits: 4, MaxTokens: 800}, &countingEmbedder{}, nil, nil)
	t.Cleanup(r.Close)
	if err := r.Warm(ctx, "dana"); err != nil {
		t.Fatal(err)
	}
	ix, err := r.index(ctx, "dana")
	if err != nil {
		t.Fatal(err)
	}
	if ids, _ := ix.missingVectors(1000); len(ids) != 0 {
		t.Errorf("%d memories without a vector after Warm", len(ids))
	}
	bad := NewRetriever(db, RetrieveOptions{Mode: ModeHybrid, MaxUnits: 4, MaxTokens: 800}, failingEmbedder{}, nil, nil)
	t.Cleanup(bad.Close)
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := bad.Warm(wctx, "dana"); err == nil || wctx.Err() != nil {
		t.Errorf("Warm with a failing endpoint: %v (context %v)", err, wctx.Err())
	}
	kw := NewRetriever(db, RetrieveOptions{Mode: ModeKeyword, MaxUnits: 4, MaxTokens: 800}, failingEmbedder{}, nil, nil)
	t.Cleanup(kw.Close)
	if err := kw.Warm(ctx, "dana"); err != nil {
		t.Errorf("Warm in keyword mode: %v", err)
	}
}

// pointingEmbedder points the query and the hiking memory one way and
// every other text the other: similarity 1 for the memory that shares no
// word with the question, 0 for the one that answers it.
type pointingEmbedder struct{}

func (pointingEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = []float32{0, 1}
		if strings.Contains(t, "hiking") || strings.HasPrefix(t, "What did I plant") {
			out[i] = []float32{1, 0}
		}
	}
	return out, nil
}

// TestHybridKeepsTheKeywordEvidence: in hybrid mode a memory is admitted
// by its words and ordered with the similarity; a similar memory that
// shares no word with the question is not injected, and one that answers
// it in words is, however dissimilar its vector.
func TestHybridKeepsTheKeywordEvidence(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx := context.Background()
	seed(t, db, "erin", store.MemoryInput{Type: store.MemoryFact, Topic: "garden", Content: "The user planted tomatoes in the garden in May."})
	seed(t, db, "erin", store.MemoryInput{Type: store.MemoryPreference, Topic: "weekends", Content: "The user enjoys hiking on weekends."})
	r := NewRetriever(db, RetrieveOptions{Mode: ModeHybrid, MaxUnits: 4, MaxTokens: 800}, pointingEmbedder{}, nil, nil)
	t.Cleanup(r.Close)
	if err := r.Warm(ctx, "erin"); err != nil {
		t.Fatal(err)
	}
	sel, err := r.Select(ctx, "erin", []Message{{Role: "user", Text: "What did I plant in the garden?"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range sel.Memories {
		got = append(got, m.Content)
	}
	if len(got) != 1 || !strings.Contains(got[0], "tomatoes") {
		t.Errorf("hybrid injected %q, want only the garden memory", got)
	}
}
