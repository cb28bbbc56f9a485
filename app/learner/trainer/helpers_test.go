package trainer_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/internal/learntest"
	"github.com/metaclaw/metaclaw/app/learner/judge"
	"github.com/metaclaw/metaclaw/app/learner/llm"
	"github.com/metaclaw/metaclaw/app/learner/tinker"
	"github.com/metaclaw/metaclaw/app/learner/tinker/faketinker"
	"github.com/metaclaw/metaclaw/app/learner/trainer"
	"github.com/metaclaw/metaclaw/idle"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

const (
	baseModel = "Qwen/Qwen3-8B"
	eos       = 7 // the codec's end-of-turn token
)

// codec is the test policy's tokenizer: a response reads "resp-<first
// token>", and token id n is the text " w<n>".
type codec struct{}

func (codec) DecodeResponse(tokens []int) (string, string, error) {
	if len(tokens) == 0 || tokens[0] == eos {
		return "", "", nil
	}
	return fmt.Sprintf("resp-%d", tokens[0]), "", nil
}
func (codec) StopTokens() []int       { return []int{eos} }
func (codec) TokenText(id int) string { return fmt.Sprintf(" w%d", id) }

// scorer is the judge model: it scores the response "resp-N" in the
// prompt with scores[N] (0 when absent) and fails for ids in fail.
type scorer struct {
	mu     sync.Mutex
	scores map[int]int
	fail   map[int]bool
	asked  []int
}

var respRE = regexp.MustCompile(`resp-(\d+)`)

func (s *scorer) Complete(_ context.Context, _, user string, _ llm.Options) (string, error) {
	m := respRE.FindStringSubmatch(user)
	if m == nil {
		return "", fmt.Errorf("no response in the prompt")
	}
	id, _ := strconv.Atoi(m[1])
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, id)
	if s.fail[id] {
		return "", fmt.Errorf("judge model down")
	}
	return fmt.Sprintf(`{"score": %d, "reason": "test"}`, s.scores[id]), nil
}

// windows is a training window the test opens and closes.
type windows struct {
	mu   sync.Mutex
	open bool
	subs []chan idle.Transition
}

func (w *windows) Subscribe() (<-chan idle.Transition, func()) {
	ch := make(chan idle.Transition, 1)
	w.mu.Lock()
	w.subs = append(w.subs, ch)
	w.mu.Unlock()
	return ch, func() {}
}

func (w *windows) Status() idle.Window {
	w.mu.Lock()
	defer w.mu.Unlock()
	return idle.Window{Open: w.open}
}

func (w *windows) set(open bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.open = open
	for _, ch := range w.subs {
		select {
		case <-ch:
		default:
		}
		ch <- idle.Transition{Opened: open, Window: idle.Window{Open: open}}
	}
}

// env is a database, a fake Tinker service on 127.0.0.1 (behind a hook
// that sees every request first), a judge and everything a trainer needs.
type env struct {
	t      *testing.T
	db     *store.DB
	fake   *faketinker.Server
	url    string
	judge  *scorer
	win    *windows
	cfg    config.Config
	paused func() bool

	mu        sync.Mutex
	hook      func(endpoint string) // called before the fake answers
	published []string
}

func newEnv(t *testing.T, mod func(*config.Config)) *env {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "metaclaw.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e := &env{t: t, db: db, judge: &scorer{scores: map[int]int{}, fail: map[int]bool{}}, win: &windows{},
		paused: func() bool { return false }}
	e.fake = faketinker.NewHandler(faketinker.Options{LongPoll: 20 * time.Millisecond})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		hook := e.hook
		e.mu.Unlock()
		if hook != nil {
			hook(strings.TrimPrefix(r.URL.Path, "/api/v1/"))
		}
		e.fake.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	e.url = srv.URL
	cfg := config.Defaults()
	cfg.Mode, cfg.RL.Model, cfg.RL.BatchSize, cfg.RL.LoRARank = config.ModeRL, baseModel, 2, 8
	if mod != nil {
		mod(&cfg)
	}
	e.cfg = cfg
	return e
}

func (e *env) setHook(h func(endpoint string)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.hook = h
}

func (e *env) Published() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.published...)
}

// client starts a Tinker client against the fake (its own session).
func (e *env) client() *tinker.Client {
	e.t.Helper()
	c, err := tinker.New(tinker.Options{BaseURL: e.url, APIKey: e.fake.APIKey(),
		Sleep: func(ctx context.Context, _ time.Duration) error { time.Sleep(time.Millisecond); return ctx.Err() }})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { c.Close() })
	return c
}

// trainer makes a trainer with a fresh client on the env's database.
func (e *env) trainer() *trainer.Trainer {
	return trainer.New(trainer.Options{DB: e.db, Client: e.client(), Config: e.cfg,
		Judge:   judge.New(judge.Options{Client: e.judge, Model: "judge", Votes: 1}),
		Codec:   codec{},
		Windows: e.win, Paused: func() bool { return e.paused() },
		Publish: func(p string) {
			e.mu.Lock()
			e.published = append(e.published, p)
			e.mu.Unlock()
		},
		Poll: 10 * time.Millisecond, RetryDelay: time.Hour})
}

// serve records a served turn and its sample, as the serving side does,
// and (score not nil) the judge's score of the turn, as the learner does.
func (e *env) serve(prompt, sampled []int, score *int) store.Sample {
	e.t.Helper()
	ctx := context.Background()
	turn := &store.Turn{SessionID: "s1", Request: learntest.OpenAIRequest(learntest.Msg{Role: "user", Text: "fix the bug"}),
		ResponseText: fmt.Sprintf("resp-%d", sampled[0]), CreatedAt: time.Now()}
	if err := e.db.RecordTurns(ctx, []*store.Turn{turn}); err != nil {
		e.t.Fatal(err)
	}
	gen, _ := e.db.SkillGeneration(ctx)
	s := &store.Sample{TurnID: turn.ID, SessionID: "s1", PromptTokens: prompt, SampledTokens: sampled,
		SampledLogprobs: logprobs(len(sampled)), BaseModel: baseModel, Checkpoint: baseModel, SkillGeneration: gen, Trainable: true}
	if err := e.db.InsertSample(ctx, s); err != nil {
		e.t.Fatal(err)
	}
	if score != nil {
		if err := e.db.PutScore(ctx, store.Score{TurnID: turn.ID, Score: *score, Votes: []int{*score}}); err != nil {
			e.t.Fatal(err)
		}
	}
	return *s
}

// logprobs are exact in float32.
func logprobs(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = -0.25 * float64(i+1)
	}
	return out
}

func ptr(v int) *int { return &v }

// sample reads a sample back.
func (e *env) sample(id int64) store.Sample {
	e.t.Helper()
	s, err := e.db.SampleByID(context.Background(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

// datumsOf returns the datums forward_backward received for a model.
func (e *env) datumsOf(modelID string) []faketinker.RecordedDatum {
	var out []faketinker.RecordedDatum
	for _, d := range e.fake.Datums() {
		if d.ModelID == modelID && d.Endpoint == "forward_backward" {
			out = append(out, d)
		}
	}
	return out
}
