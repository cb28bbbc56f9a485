package memory

import (
	"bytes"
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/metaclaw/metaclaw/proxy/learning"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/testutil"
)

// systemWithInjections is a system prompt as the proxy sends it upstream:
// the agent's own prompt plus injected skills and memories.
const systemWithInjections = "You are a coding agent.\n\n# Skills\nMetaClaw picked these skills.\n## verbose-logs\n" +
	"I prefer verbose logging in every service (SKILLTRAP).\n\n# Memory\n## Preferences\n- The user prefers dark mode (MEMTRAP)."

// preferenceModel answers like a model that extracts every "I prefer X"
// line of the new conversation as a preference on topic "preference".
func preferenceModel(user string) string {
	_, newPart, _ := strings.Cut(user, "New conversation:")
	var cands []Candidate
	for _, line := range strings.Split(newPart, "\n") {
		said, ok := strings.CutPrefix(line, "USER: ")
		if !ok {
			continue
		}
		for _, sentence := range strings.Split(said, ".") {
			if what, ok := strings.CutPrefix(strings.TrimSpace(sentence), "I prefer "); ok {
				cands = append(cands, Candidate{Type: "preference", Topic: "style " + strings.Fields(what)[0],
					Content: "The user prefers " + what + ".", Importance: 0.7})
			}
		}
	}
	return answerJSON(cands...)
}

func TestSessionEndExtractsWhatTheUserSaid(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	fm := newFakeModel(t, preferenceModel)
	clk := newClock()
	s := newService(t, Options{DB: db, Completer: fm.client, AutoExtract: true, Now: clk.Now})
	users := []string{
		"[Mon 2026-11-02 09:00 UTC] I prefer tabs for indentation. Please fix the linter.\n\nRuntime: agent=main | host=box",
		"I prefer short answers.",
	}
	turns := recordSession(t, db, "s1", "alice", systemWithInjections, clk.Now(), users, []string{"Done. I prefer spaces myself.", "OK."})
	if err := s.SessionEnded(context.Background(), "s1"); err != nil {
		t.Fatal(err)
	}
	got := currentContents(t, db, "alice")
	want := []string{"The user prefers short answers.", "The user prefers tabs for indentation."}
	if diff := cmp.Diff(want, got, sortStrings()); diff != "" {
		t.Errorf("memories (-want +got):\n%s", diff)
	}
	reqs := fm.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d extraction requests, want 1", len(reqs))
	}
	for _, bad := range []string{"SKILLTRAP", "MEMTRAP", "coding agent", "Runtime:", "[Mon 2026"} {
		if strings.Contains(reqs[0], bad) {
			t.Errorf("the extraction request contains %q:\n%s", bad, reqs[0])
		}
	}
	if !strings.Contains(reqs[0], "ASSISTANT: Done. I prefer spaces myself.") {
		t.Errorf("the assistant's answer is missing:\n%s", reqs[0])
	}
	ms, _ := db.Memories(context.Background(), store.MemoryFilter{Scope: "alice"})
	if m := ms[0]; m.SessionID != "s1" || m.Source != SourceModel || !cmp.Equal(m.TurnIDs, []int64{turns[0].ID, turns[1].ID}) || !m.CreatedAt.Equal(clk.Now()) {
		t.Errorf("provenance = %+v", m)
	}
	// Nothing is read twice.
	if err := s.SessionEnded(context.Background(), "s1"); err != nil || len(fm.requests()) != 1 {
		t.Errorf("second session end: %v, %d requests", err, len(fm.requests()))
	}
}

func TestAnthropicTurnsAndToolResults(t *testing.T) {
	t.Parallel()
	body := []byte(`{"model":"claude","system":[{"type":"text","text":"SKILLTRAP system"}],"messages":[
		{"role":"user","content":"I prefer pnpm."},
		{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"read","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"I prefer TOOLTRAP"},{"type":"text","text":"I prefer Vitest for tests."}]}]}`)
	ex := ExchangeOf(store.Turn{ID: 9, Request: body, ResponseText: "ok"})
	if ex.User != "I prefer Vitest for tests." || ex.Assistant != "ok" || ex.TurnID != 9 {
		t.Errorf("exchange = %+v", ex)
	}
}

func TestSecretsAreRedactedBeforeTheModel(t *testing.T) {
	t.Parallel()
	ex := CleanExchanges([]Exchange{{User: "my key is sk-abcdefghijklmnopqrstuvwx, I prefer Go"}})
	if strings.Contains(ex[0].User, "sk-abcdefghijklmnopqrstuvwx") {
		t.Errorf("secret kept: %q", ex[0].User)
	}
}

func TestRulesWhenTheModelFailsThenModelPass(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx := context.Background()
	fm := newFakeModel(t, preferenceModel)
	fm.setFail(true)
	clk := newClock()
	s := newService(t, Options{DB: db, Completer: fm.client, AutoExtract: true, Now: clk.Now, RetryAfter: time.Minute})
	recordSession(t, db, "s1", "alice", "sys", clk.Now(), []string{"My name is Ada Lovelace. I prefer tabs."}, []string{"Hi Ada."})
	rep, err := s.ExtractSession(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Extractor != SourceRules || !rep.Queued || len(rep.Added) != 2 {
		t.Errorf("report = %+v; want rules, queued, 2 added", rep)
	}
	if n, _ := db.CountPendingMemoryTurns(ctx); n != 1 {
		t.Errorf("%d turns queued, want 1", n)
	}
	// Not due yet.
	fm.setFail(false)
	if err := s.RetryQueued(ctx); err != nil || len(fm.requests()) != 3 { // 3 = the failed attempt and its 2 retries
		t.Fatalf("early retry: %v, %d requests", err, len(fm.requests()))
	}
	clk.Add(2 * time.Minute)
	if err := s.RetryQueued(ctx); err != nil {
		t.Fatal(err)
	}
	got := currentContents(t, db, "alice")
	if diff := cmp.Diff([]string{"The user prefers tabs."}, got); diff != "" {
		t.Errorf("after the model pass (-want +got):\n%s", diff)
	}
	if n, _ := db.CountPendingMemoryTurns(ctx); n != 0 {
		t.Errorf("%d turns still queued", n)
	}
}

func TestModelPassGivesUp(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx := context.Background()
	fm := newFakeModel(t, preferenceModel)
	fm.setFail(true)
	clk := newClock()
	s := newService(t, Options{DB: db, Completer: fm.client, Now: clk.Now, RetryAfter: time.Minute, MaxAttempts: 2})
	recordSession(t, db, "s1", "u", "sys", clk.Now(), []string{"I prefer tabs."}, []string{"ok"})
	if _, err := s.ExtractSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		clk.Add(24 * time.Hour)
		if err := s.RetryQueued(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := db.CountPendingMemoryTurns(ctx); n != 0 {
		t.Errorf("%d turns queued after giving up", n)
	}
	if got := currentContents(t, db, "u"); len(got) != 1 {
		t.Errorf("the rule memory should stay: %v", got)
	}
}

func TestFlushEveryAndContext(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx := context.Background()
	fm := newFakeModel(t, preferenceModel)
	clk := newClock()
	s := newService(t, Options{DB: db, Completer: fm.client, AutoExtract: true, FlushEvery: 2, Now: clk.Now})
	users := []string{"I prefer Go.", "I prefer Postgres.", "I prefer Fridays off."}
	answers := []string{"a1", "a2", "a3"}
	recordSession(t, db, "s", "u", "sys", clk.Now(), users[:1], answers[:1])
	if err := s.TurnRecorded(ctx, "s", true); err != nil || len(fm.requests()) != 0 {
		t.Fatalf("one turn flushed: %v, %d requests", err, len(fm.requests()))
	}
	// The proxy records each turn with the whole history.
	db.RecordTurns(ctx, []*store.Turn{{SessionID: "s", Request: chatRequest("sys", []string{users[0], answers[0]}, users[1]), ResponseText: answers[1]}})
	if err := s.TurnRecorded(ctx, "s", false); err != nil || len(fm.requests()) != 0 {
		t.Fatalf("a tool-loop turn counted: %v, %d requests", err, len(fm.requests()))
	}
	if err := s.TurnRecorded(ctx, "s", true); err != nil || len(fm.requests()) != 1 {
		t.Fatalf("two turns: %v, %d requests", err, len(fm.requests()))
	}
	db.RecordTurns(ctx, []*store.Turn{{SessionID: "s", Request: chatRequest("sys", []string{users[0], answers[0], users[1], answers[1]}, users[2]), ResponseText: answers[2]}})
	if err := s.SessionEnded(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	reqs := fm.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	earlier, newPart, _ := strings.Cut(reqs[1], "New conversation:")
	if !strings.Contains(earlier, "USER: I prefer Postgres.") || strings.Contains(newPart, "Postgres") || !strings.Contains(newPart, "Fridays") {
		t.Errorf("second request should extract turn 3 with turn 2 as context:\n%s", reqs[1])
	}
	if got := currentContents(t, db, "u"); len(got) != 3 {
		t.Errorf("memories = %v", got)
	}
}

func TestPausedThenCatchUp(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx := context.Background()
	fm := newFakeModel(t, preferenceModel)
	clk := newClock()
	var paused atomic.Bool
	paused.Store(true)
	s := newService(t, Options{DB: db, Completer: fm.client, AutoExtract: true, Now: clk.Now, Paused: paused.Load})
	s.markSince(ctx)
	recordSession(t, db, "s", "u", "sys", clk.Now(), []string{"I prefer tea."}, []string{"ok"})
	db.EndSession(ctx, "s", "done", clk.Now())
	if err := s.SessionEnded(ctx, "s"); err != nil || len(fm.requests()) != 0 {
		t.Fatalf("paused extraction ran: %v, %d requests", err, len(fm.requests()))
	}
	paused.Store(false)
	if err := s.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	if got := currentContents(t, db, "u"); !cmp.Equal(got, []string{"The user prefers tea."}) {
		t.Errorf("after catch-up: %v", got)
	}
}

func TestDecay(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx := context.Background()
	clk := newClock()
	s := newService(t, Options{DB: db, Now: clk.Now})
	old := clk.Now().Add(-200 * 24 * time.Hour)
	seed(t, db, "u",
		store.MemoryInput{Type: store.MemoryEpisode, Content: "Old unused episode.", Importance: 0.5, At: old},
		store.MemoryInput{Type: store.MemoryEpisode, Content: "Old pinned episode.", Importance: 0.5, At: old, Pinned: true},
		store.MemoryInput{Type: store.MemoryFact, Content: "Old fact.", Importance: 0.5, At: old},
		store.MemoryInput{Type: store.MemoryEpisode, Content: "Recent episode.", Importance: 0.5, At: clk.Now().Add(-24 * time.Hour)})
	n, err := s.Decay(ctx)
	if err != nil || n != 1 {
		t.Fatalf("Decay = %d, %v; want 1", n, err)
	}
	want := []string{"Old pinned episode.", "Old fact.", "Recent episode."}
	if diff := cmp.Diff(want, currentContents(t, db, "u"), sortStrings()); diff != "" {
		t.Error(diff)
	}
}

func TestServeHandlesEventsAndForget(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	fm := newFakeModel(t, preferenceModel)
	s := newService(t, Options{DB: db, Completer: fm.client, AutoExtract: true, Retrieval: RetrieveOptions{MaxUnits: 6}, Tick: 10 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	recordSession(t, db, "s", "u", "sys", time.Now(), []string{"I prefer porridge for breakfast."}, []string{"ok"})
	s.Notify(learning.Event{Kind: learning.SessionEnded, SessionID: "s"})
	breakfast := []Message{{Role: "user", Text: "what do I eat for breakfast"}}
	testutil.Eventually(t, "the porridge memory selected", func() bool {
		sel, _ := s.Select(context.Background(), "u", breakfast)
		return len(sel.Memories) == 1
	})
	ch, err := s.Add(context.Background(), store.MemoryInput{Scope: "u", Type: "fact", Content: "The bike lock code is zebracornflakes."})
	if err != nil {
		t.Fatal(err)
	}
	lock := []Message{{Role: "user", Text: "what's my bike lock code"}}
	if sel, _ := s.Select(context.Background(), "u", lock); len(sel.Memories) != 1 {
		t.Fatalf("added memory not selected: %v", contents(sel.Memories))
	}
	if _, err := s.Forget(context.Background(), "u", []int64{ch.Memory.ID}); err != nil {
		t.Fatal(err)
	}
	if sel, _ := s.Select(context.Background(), "u", lock); len(sel.Memories) != 0 {
		t.Errorf("a forgotten memory is still selected: %v", contents(sel.Memories))
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got, _ := readFile(db.Path()); bytes.Contains(got, []byte("zebracornflakes")) {
		t.Error("the forgotten memory is still in the database file after Serve compacted it")
	}
}

func TestExportImport(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src := openDB(t)
	a := newService(t, Options{DB: src})
	a.Add(ctx, store.MemoryInput{Scope: "u", Type: "preference", Topic: "editor", Content: "Uses Helix.", Pinned: true})
	a.Add(ctx, store.MemoryInput{Scope: "u", Type: "preference", Topic: "editor", Content: "Uses Zed now."})
	a.Add(ctx, store.MemoryInput{Scope: "u", Type: "fact", Content: "Has a cat."})
	var buf bytes.Buffer
	if n, err := Export(ctx, src, &buf, "u", true, time.Now()); err != nil || n != 3 {
		t.Fatalf("Export = %d, %v", n, err)
	}
	dst := openDB(t)
	b := newService(t, Options{DB: dst})
	b.Add(ctx, store.MemoryInput{Scope: "v", Type: "fact", Content: "Has a cat."})
	rep, err := b.Import(ctx, bytes.NewReader(buf.Bytes()), "v")
	if err != nil {
		t.Fatal(err)
	}
	if rep != (ImportReport{Added: 1, Duplicates: 1, History: 1}) {
		t.Errorf("report = %+v", rep)
	}
	again, _ := b.Import(ctx, bytes.NewReader(buf.Bytes()), "v")
	if again.Added != 0 {
		t.Errorf("second import added %d", again.Added)
	}
	ms, _ := dst.Memories(ctx, store.MemoryFilter{Scope: "v"})
	if len(ms) != 2 || !ms[0].Pinned || ms[0].Content != "Uses Zed now." || ms[0].Source != SourceImport {
		t.Errorf("imported = %+v", ms)
	}
}

func TestEchoesAreNotRestatements(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx := context.Background()
	// A model that returns what it was shown, and one real restatement.
	fm := newFakeModel(t, func(string) string {
		return answerJSON(Candidate{Type: "fact", Topic: "pet", Content: "The user has a cat named Miso."},
			Candidate{Type: "fact", Topic: "pet", Content: "User has a cat named Miso"})
	})
	s := newService(t, Options{DB: db, Completer: fm.client, AutoExtract: true, Retrieval: RetrieveOptions{MaxUnits: 6}})
	m := seed(t, db, "u", store.MemoryInput{Type: store.MemoryFact, Topic: "pet", Content: "The user has a cat named Miso."})[0]
	recordSession(t, db, "s", "u", "sys", time.Now(), []string{"My cat Miso says hi"}, []string{"Hi Miso!"})
	if _, err := s.ExtractSession(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fm.requests()[0], "The user has a cat named Miso.") {
		t.Fatalf("the known memory was not shown to the model:\n%s", fm.requests()[0])
	}
	got, _ := db.Memory(ctx, m.ID)
	if !got.Current() || got.Reinforced != 2 {
		t.Errorf("memory after an echo and a restatement: reinforced %d, current %v (want 2, true)", got.Reinforced, got.Current())
	}
}
