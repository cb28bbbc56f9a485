package learner_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/app/learner"
	"github.com/metaclaw/metaclaw/app/learner/internal/learntest"
	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/proxy/learning"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
	"github.com/metaclaw/metaclaw/store/testutil"
)

type Msg = learntest.Msg

// brain plays judge and evolver on the fake upstream, telling them apart
// by their system prompts.
type brain struct {
	judgeScore  atomic.Int64 // the score every judge vote gives
	judgeCalls  atomic.Int64
	evolveCalls atomic.Int64
	evolverOps  atomic.Value // string: the "operations" JSON array
	asksCalls   atomic.Int64
	asksInCalls atomic.Int64
	duringAsks  atomic.Value // func(): called in each asks call before it answers
}

func (b *brain) reply(r *http.Request, body []byte) fakeupstream.Reply {
	p := learntest.PromptOf(body)
	switch {
	case strings.Contains(p.System, "process reward model"):
		b.judgeCalls.Add(1)
		return fakeupstream.TextReply(`{"score": ` + itoa(b.judgeScore.Load()) + `, "reason": "as scripted"}`)
	case strings.Contains(p.System, "example requests") && strings.Contains(p.User, "For each of these languages"):
		b.asksInCalls.Add(1)
		return fakeupstream.TextReply(`{"de": ["mein Build ist rot", "CI schlägt seit heute fehl", "warum bricht der Build ab"], "es": ["mi build está en rojo", "CI falla desde hoy", "por qué falla el build"]}`)
	case strings.Contains(p.System, "example requests"):
		b.asksCalls.Add(1)
		if f, ok := b.duringAsks.Load().(func()); ok {
			f()
		}
		return fakeupstream.TextReply(`{"asks": ["my build is red", "CI fails since this morning", "el build falla"]}`)
	case strings.Contains(p.System, "skill library"):
		b.evolveCalls.Add(1)
		ops, _ := b.evolverOps.Load().(string)
		return fakeupstream.TextReply(`{"operations": ` + ops + `}`)
	}
	return fakeupstream.ErrorReply(http.StatusBadRequest, "unexpected prompt")
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

type harness struct {
	db    *store.DB
	up    *fakeupstream.Server
	brain *brain
	l     *learner.Learner
	stop  func()
}

func newHarness(t *testing.T, edit func(*config.Config, *learner.Options)) *harness {
	t.Helper()
	db := learntest.OpenDB(t)
	up, base := learntest.StartFake(t)
	b := &brain{}
	b.judgeScore.Store(-1)
	b.evolverOps.Store(`[]`)
	up.SetDefault(fakeupstream.Reply{Func: b.reply})
	cfg := config.Config{
		LLM:    config.LLM{Provider: "custom", APIBase: base + "/v1", APIKey: "user-key", ModelID: "agent-model"},
		RL:     config.RL{PRMURL: "https://api.openai.com/v1", PRMModel: "gpt-5.2", PRMVotes: 3, EvolverModel: "gpt-5.2"},
		Skills: config.Skills{AutoEvolve: true},
	}
	opts := learner.Options{DB: db, Logger: slog.New(slog.DiscardHandler)}
	if edit != nil {
		edit(&cfg, &opts)
	}
	opts.Config = cfg
	h := &harness{db: db, up: up, brain: b, l: learner.New(opts)}
	return h
}

func (h *harness) serve(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.l.Serve(ctx) }()
	h.stop = func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve = %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("Serve did not return")
		}
	}
	t.Cleanup(func() {
		if h.stop != nil {
			h.stop()
		}
	})
}

// turn records a main (or side) turn and tells the learner.
func (h *harness) turn(t *testing.T, session, typ, user, answer string) store.Turn {
	t.Helper()
	if typ == "" {
		typ = store.TurnMain
	}
	tt := learntest.Record(t, h.db, store.Turn{SessionID: session, Type: typ,
		Request: learntest.OpenAIRequest(Msg{Role: "user", Text: user}), ResponseText: answer})[0]
	h.l.Notify(learning.Event{Kind: learning.TurnRecorded, SessionID: session, TurnID: tt.ID, TurnType: typ, Fresh: true, At: time.Now()})
	return tt
}

func (h *harness) end(session string) {
	h.l.Notify(learning.Event{Kind: learning.SessionEnded, SessionID: session, Reason: "done", At: time.Now()})
}

func score(t *testing.T, db *store.DB, id int64) (store.Score, bool) {
	t.Helper()
	sc, err := db.TurnScore(context.Background(), id)
	if errors.Is(err, store.ErrNotFound) {
		return sc, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return sc, true
}

func TestScoresThenEvolves(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.brain.evolverOps.Store(`[{"op": "add", "name": "ask-before-deleting", "description": "When a request would delete files or data.",
		"category": "agentic", "body": "Confirm the exact files with the person before deleting anything.", "reason": "The agent deleted too much."}]`)
	h.serve(t)
	t1 := h.turn(t, "s1", "", "Clean up the build directory", "Deleted everything in the repo.")
	h.turn(t, "s1", store.TurnSide, "title", "Cleanup")
	t2 := h.turn(t, "s1", "", "You deleted my sources! Restore them.", "Restored from git.")
	testutil.Eventually(t, "the first turn's score", func() bool { _, ok := score(t, h.db, t1.ID); return ok })
	sc, _ := score(t, h.db, t1.ID)
	if sc.Score != -1 || sc.Evidence != "next_turn" || len(sc.Votes) != 3 || sc.JudgeModel != "agent-model" {
		t.Errorf("first score = %+v", sc)
	}
	h.end("s1")
	testutil.Eventually(t, "an evolution", func() bool { return h.l.Stats().Evolutions == 1 })
	sc2, ok := score(t, h.db, t2.ID)
	if !ok || sc2.Evidence != "session_end" {
		t.Errorf("last turn score = %+v, %v", sc2, ok)
	}
	ctx := context.Background()
	s, err := h.db.Skill(ctx, "ask-before-deleting")
	if err != nil || s.Source != "evolver" {
		t.Fatalf("evolved skill = %+v, %v", s, err)
	}
	if gen, _ := h.db.SkillGeneration(ctx); gen != 1 {
		t.Errorf("generation = %d", gen)
	}
	// The evolver ran after both turns were scored: it saw both as -1.
	var evolverPrompt string
	for _, r := range h.up.Requests() {
		if p := learntest.PromptOf(r.Body); strings.Contains(p.System, "skill library") {
			evolverPrompt = p.User
		}
	}
	if strings.Count(evolverPrompt, `score="-1"`) != 2 {
		t.Errorf("evolver prompt:\n%s", evolverPrompt)
	}
	if st := h.l.Stats(); st.Judged != 2 || st.JudgeFailed != 0 || st.Dropped != 0 || h.brain.judgeCalls.Load() != 6 {
		t.Errorf("stats = %+v, judge calls %d", st, h.brain.judgeCalls.Load())
	}
}

func TestPausedDoesNothing(t *testing.T) {
	t.Parallel()
	var paused atomic.Bool
	paused.Store(true)
	h := newHarness(t, func(c *config.Config, o *learner.Options) {
		c.Skills.EvolveEveryTurns = 1
		o.Paused = paused.Load
	})
	h.serve(t)
	t1 := h.turn(t, "s1", "", "one", "1")
	h.turn(t, "s1", "", "two", "2")
	h.end("s1")
	// Skipped: evolve after turn 1, judge + evolve after turn 2, judge + evolve at the end.
	testutil.Eventually(t, "skips", func() bool { return h.l.Stats().Skipped >= 5 })
	if n := len(h.up.Requests()); n != 0 {
		t.Errorf("%d requests while paused", n)
	}
	if _, ok := score(t, h.db, t1.ID); ok {
		t.Error("a turn was scored while paused")
	}
	if evos, _ := h.db.Evolutions(context.Background(), 5); len(evos) != 0 {
		t.Errorf("evolutions while paused: %+v", evos)
	}
	// Resuming does not replay what was skipped.
	paused.Store(false)
	t3 := h.turn(t, "s2", "", "three", "3")
	h.turn(t, "s2", "", "four", "4")
	testutil.Eventually(t, "a score after resuming", func() bool { _, ok := score(t, h.db, t3.ID); return ok })
	if _, ok := score(t, h.db, t1.ID); ok {
		t.Error("skipped work was replayed")
	}
}

func TestJudgeOffEvolvesWholeSession(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *config.Config, _ *learner.Options) { c.RL.PRMVotes = 0 })
	h.serve(t)
	h.turn(t, "s1", "", "first question", "a")
	h.turn(t, "s1", "", "second question", "b")
	h.end("s1")
	testutil.Eventually(t, "an empty evolution", func() bool { return h.l.Stats().EvolutionsEmpty == 1 })
	if n := h.brain.judgeCalls.Load(); n != 0 {
		t.Errorf("%d judge calls with the judge off", n)
	}
	body := learntest.Bodies(h.up)[0]
	if !strings.Contains(body, "first question") || !strings.Contains(body, "second question") {
		t.Errorf("evolver did not see the whole session: %s", body)
	}
}

func TestEvolvesEveryNTurns(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *config.Config, _ *learner.Options) { c.Skills.EvolveEveryTurns = 2 })
	h.brain.judgeScore.Store(0)
	h.serve(t)
	h.turn(t, "s1", "", "one", "1")
	h.turn(t, "s1", "", "two", "2")
	testutil.Eventually(t, "an evolution after two turns", func() bool { return h.l.Stats().EvolutionsEmpty == 1 })
	h.turn(t, "s1", "", "three", "3")
	h.turn(t, "s1", "", "four", "4")
	testutil.Eventually(t, "an evolution after four turns", func() bool { return h.l.Stats().EvolutionsEmpty == 2 })
}

func TestAutoEvolveOff(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *config.Config, _ *learner.Options) { c.Skills.AutoEvolve = false })
	h.serve(t)
	t1 := h.turn(t, "s1", "", "one", "1")
	h.end("s1")
	testutil.Eventually(t, "the session-end score", func() bool { _, ok := score(t, h.db, t1.ID); return ok })
	h.stop()
	h.stop = nil
	if n := h.brain.evolveCalls.Load(); n != 0 {
		t.Errorf("%d evolver calls with auto_evolve off", n)
	}
}

func TestFailedJudgingStoresNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.up.SetDefault(fakeupstream.TextReply("no idea"))
	h.serve(t)
	t1 := h.turn(t, "s1", "", "one", "1")
	h.turn(t, "s1", "", "two", "2")
	testutil.Eventually(t, "a failed judgement", func() bool { return h.l.Stats().JudgeFailed == 1 })
	if _, ok := score(t, h.db, t1.ID); ok {
		t.Error("a score was stored though every vote failed")
	}
}

func TestQueueFullDrops(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(_ *config.Config, o *learner.Options) { o.QueueSize = 2 })
	for i := range 5 {
		h.l.Notify(learning.Event{Kind: learning.TurnRecorded, SessionID: "s", TurnID: int64(i + 1), TurnType: "main"})
	}
	if d := h.l.Stats().Dropped; d != 3 {
		t.Errorf("Dropped = %d, want 3", d)
	}
}

func TestServeReturnsWithWorkInFlight(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(_ *config.Config, o *learner.Options) { o.DrainTimeout = 100 * time.Millisecond })
	h.up.SetDefault(fakeupstream.Reply{Hang: true})
	h.serve(t)
	h.turn(t, "s1", "", "one", "1")
	h.turn(t, "s1", "", "two", "2")
	testutil.Eventually(t, "a judge call in flight", func() bool { return len(h.up.Requests()) > 0 })
	h.stop() // fails the test if Serve does not return
	h.stop = nil
	// A stopped learner may serve again.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := h.l.Serve(ctx); err != nil {
		t.Errorf("second Serve = %v", err)
	}
}

func TestServeTwice(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.serve(t)
	h.turn(t, "s1", "", "one", "1")
	h.turn(t, "s1", "", "two", "2")
	testutil.Eventually(t, "a judgement", func() bool { return h.l.Stats().Judged == 1 }) // Serve is running
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := h.l.Serve(ctx); !errors.Is(err, learner.ErrServing) {
		t.Errorf("second Serve = %v, want ErrServing", err)
	}
}
