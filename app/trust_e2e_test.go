package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
	"github.com/metaclaw/metaclaw/store/testutil"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// fakeBrain makes the fake upstream play agent, judge, evolver and memory
// extractor, counting the learner's calls by kind. Replies are set with
// atomics so a test can change them while the app runs.
type fakeBrain struct {
	judge, evolver, extract                            atomic.Value // string replies
	agent                                              atomic.Value // string
	judgeCalls, evolverCalls, extractCalls, agentCalls atomic.Int64
}

func newFakeBrain() *fakeBrain {
	b := &fakeBrain{}
	b.judge.Store(`{"score": 1, "reason": "fine"}`)
	b.evolver.Store(`{"operations": []}`)
	b.extract.Store(`{"memories": []}`)
	b.agent.Store("Done.")
	return b
}

// kind tells which part of MetaClaw sent a request to the fake.
func kind(body []byte) string {
	s := string(body)
	switch {
	case strings.Contains(s, "process reward model"):
		return "judge"
	case strings.Contains(s, "skill library of a person"):
		return "evolver"
	case strings.Contains(s, "memory") && strings.Contains(s, "extract"):
		return "extract"
	}
	return "agent"
}

func (b *fakeBrain) reply(_ *http.Request, body []byte) fakeupstream.Reply {
	switch kind(body) {
	case "judge":
		b.judgeCalls.Add(1)
		return fakeupstream.TextReply(b.judge.Load().(string))
	case "evolver":
		b.evolverCalls.Add(1)
		return fakeupstream.TextReply(b.evolver.Load().(string))
	case "extract":
		b.extractCalls.Add(1)
		return fakeupstream.TextReply(b.extract.Load().(string))
	}
	b.agentCalls.Add(1)
	return fakeupstream.TextReply(b.agent.Load().(string))
}

// startBrain starts a fake upstream played by a fakeBrain.
func startBrain(t testing.TB) (*fakeupstream.Server, string, *fakeBrain) {
	t.Helper()
	up := fakeupstream.New()
	base, err := up.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { up.Close() })
	b := newFakeBrain()
	up.SetDefault(fakeupstream.Reply{Func: b.reply})
	return up, base, b
}

// startAppWith starts the app in skills_only against upstream with extra
// settings on top of startApp's.
func startAppWith(t testing.TB, upstream string, extra map[string]string) (*App, string) {
	t.Helper()
	home := t.TempDir()
	db, err := store.Open(filepath.Join(home, "metaclaw.db"))
	if err != nil {
		t.Fatal(err)
	}
	set := map[string]string{
		"llm.provider": "custom", "llm.api_base": upstream + "/v1", "llm.api_key": "sk-test", "llm.model_id": "fake-model",
		"mode": "skills_only", "proxy.port": strconv.Itoa(freePort(t)), "proxy.model_mapping": "always",
		"web.port": strconv.Itoa(freePort(t)),
	}
	for k, v := range extra {
		set[k] = v
	}
	_, err = config.Save(context.Background(), db, set)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(Options{Home: home, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Stop() })
	return a, a.ProxyURL()
}

// agentClient is an OpenAI SDK client of the proxy; ask sends one user
// message in a session, ending it when done.
type agentClient struct {
	t testing.TB
	c openai.Client
}

func newAgent(t testing.TB, proxyURL string) *agentClient {
	return &agentClient{t: t, c: openai.NewClient(option.WithBaseURL(proxyURL+"/v1"), option.WithAPIKey("k"), option.WithMaxRetries(0))}
}

func (a *agentClient) ask(session string, done bool, msgs ...openai.ChatCompletionMessageParamUnion) error {
	a.t.Helper()
	opts := []option.RequestOption{option.WithHeader("X-Session-Id", session)}
	if done {
		opts = append(opts, option.WithHeader("X-Session-Done", "true"))
	}
	_, err := a.c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: "m", Messages: msgs}, opts...)
	return err
}

// TestJudgeFreeTextAndNoOpEvolution: a judge that answers as the
// reference's does ("Score: -1", last one counting) or with \boxed{1} is
// read, and an evolver that proposes an update identical to the current
// skill, session after session, leaves the skill generation where it was
// and is logged as empty.
func TestJudgeFreeTextAndNoOpEvolution(t *testing.T) {
	_, base, b := startBrain(t)
	a, url := startAppWith(t, base, nil)
	db := a.DB()
	ctx := context.Background()
	cur, err := db.Skill(ctx, "concise-answers")
	if err != nil {
		t.Fatal(err)
	}
	same, _ := json.Marshal(map[string]any{"operations": []map[string]any{{"op": "update", "name": cur.Name,
		"description": cur.Description, "category": cur.Category, "tags": cur.Tags, "body": cur.Body, "reason": "sharpen it"}}})
	b.evolver.Store(string(same))
	agent := newAgent(t, url)
	judgeAnswers := []string{"I first thought Score: 1, but the person had to repeat the request.\nScore: -1", `The reply was wrong. \boxed{-1}`}
	for i := range 8 {
		b.judge.Store(judgeAnswers[i%2])
		s := fmt.Sprintf("s%d", i)
		if err := agent.ask(s, true, openai.UserMessage("give me a short answer: what is 2+2?")); err != nil {
			t.Fatal(err)
		}
		testutil.Eventually(t, "evolution of "+s, func() bool {
			evos, _ := db.Evolutions(ctx, 1)
			return len(evos) > 0 && evos[0].SessionID == s
		})
		turns, _ := db.SessionTurns(ctx, s)
		sc, err := db.TurnScore(ctx, turns[0].ID)
		if err != nil || sc.Score != -1 || sc.Failed != 0 {
			t.Errorf("session %s: score %+v, %v; want -1 with no failed vote (judge said %q)", s, sc, err, judgeAnswers[i%2])
		}
	}
	if gen, _ := db.SkillGeneration(ctx); gen != 0 {
		t.Errorf("skill generation %d after 8 identical proposals, want 0", gen)
	}
	if s, _ := db.Skill(ctx, cur.Name); s.Version != cur.Version {
		t.Errorf("%s at version %d, want %d", cur.Name, s.Version, cur.Version)
	}
	evos, _ := db.Evolutions(ctx, 20)
	for _, e := range evos {
		if e.Status != "empty" || e.Generation != 0 || e.Error == "" {
			t.Errorf("evolution %d: %s at generation %d (%q); want empty at generation 0 with the reason", e.ID, e.Status, e.Generation, e.Error)
		}
	}
}

// TestDailyBudgetPausesLearning: past learning.max_calls_per_day learning
// makes no more calls that day and says so; the proxy keeps serving.
func TestDailyBudgetPausesLearning(t *testing.T) {
	_, base, b := startBrain(t)
	a, url := startAppWith(t, base, map[string]string{"learning.max_calls_per_day": "2"})
	agent := newAgent(t, url)
	turns := agentSession(t, agent, "budget", 8, 1)
	testutil.Eventually(t, "the budget reached", func() bool { return a.Status().Learning.Budget.Reached })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := a.learn.Learner.Settle(ctx, "budget"); err != nil {
		t.Fatal(err)
	}
	if n := b.judgeCalls.Load() + b.evolverCalls.Load() + b.extractCalls.Load(); n != 2 {
		t.Errorf("%d learner calls with a budget of 2 (judge %d, evolver %d, extraction %d)", n,
			b.judgeCalls.Load(), b.evolverCalls.Load(), b.extractCalls.Load())
	}
	if b.agentCalls.Load() != int64(turns) {
		t.Errorf("the proxy served %d of %d turns", b.agentCalls.Load(), turns)
	}
	att := strings.Join(a.Status().Attention, "\n")
	if !strings.Contains(att, "learning paused for today: learning.max_calls_per_day (2) reached") {
		t.Errorf("attention %q", att)
	}
	for _, h := range a.Status().Learning.Components {
		if h.NeedsAttention() {
			t.Errorf("a refused call counted as a failure of %s: %+v", h.Component, h)
		}
	}
}
