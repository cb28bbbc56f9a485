package policy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/policy"
	"github.com/metaclaw/metaclaw/app/learner/policy/tokenizer"
	"github.com/metaclaw/metaclaw/app/learner/tinker"
	"github.com/metaclaw/metaclaw/app/learner/tinker/faketinker"
	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/proxy/learning"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
	"github.com/metaclaw/metaclaw/store/testutil"
)

// The app asserts this too; it is repeated here so the package's tests
// fail first when the interface drifts.
var _ proxy.Policy = (*policy.Server)(nil)

const baseModel = "Qwen/Qwen3-8B"

// env is the real proxy in rl mode with a policy Server behind it, the
// policy talking to a fake Tinker service and a fake Hugging Face Hub, and
// llm.* a fake upstream, all over HTTP on 127.0.0.1, with a real store.
type env struct {
	t       *testing.T
	fake    *faketinker.Server
	hub     *policy.TestHub
	up      *fakeupstream.Server
	db      *store.DB
	dataDir string
	cfg     config.Config
	wire    *wireLog
	pol     *policy.Server
	url     string // proxy base, with /v1
}

type envOpts struct {
	dataDir string          // reuse a data directory (default: a new one)
	hub     *policy.TestHub // reuse a hub (default: a new one)
	noKey   bool
	notWait bool // do not wait for the policy to be ready
	// tokenizerID is what the fake's get_info reports (default: the base
	// model).
	tokenizerID string
	// beforeStart runs before the policy starts.
	beforeStart func(e *env)
	// kimi serves Kimi K2.5 (testdata/tiny-kimi) instead of Qwen.
	kimi bool
}

// kimiModel is the seeds' default rl.model.
const kimiModel = "moonshotai/Kimi-K2.5"

func newEnv(t *testing.T, o envOpts) *env {
	t.Helper()
	e := &env{t: t, dataDir: o.dataDir, hub: o.hub, wire: &wireLog{}}
	model, stops := baseModel, map[string]int{"<|im_end|>": imEnd(t)}
	if o.kimi {
		model, stops = kimiModel, map[string]int{"<|im_end|>": kimiToken(t, "<|im_end|>")}
	}
	e.fake = faketinker.New(faketinker.Options{StopStringTokens: stops, TokenizerID: o.tokenizerID})
	t.Cleanup(e.fake.Close)
	if e.hub == nil {
		e.hub = policy.NewTestHub(t, map[string]string{baseModel: "testdata/tiny-qwen", kimiModel: "testdata/tiny-kimi"})
	}
	if e.dataDir == "" {
		e.dataDir = t.TempDir()
	}
	var err error
	e.db, err = store.Open(filepath.Join(t.TempDir(), "metaclaw.db"))
	must(t, err)
	t.Cleanup(func() { e.db.Close() })
	e.up = fakeupstream.New()
	upURL, err := e.up.Start()
	must(t, err)
	t.Cleanup(func() { e.up.Close() })
	e.cfg = config.Defaults()
	for k, v := range map[string]string{"mode": "rl", "llm.provider": "custom", "llm.api_base": upURL + "/v1",
		"llm.api_key": "sk-upstream", "llm.model_id": "fake-model", "rl.model": model,
		"rl.base_url": e.fake.URL(), "rl.hf_endpoint": e.hub.URL(), "rl.max_tokens": "256"} {
		must(t, e.cfg.Set(k, v))
	}
	if !o.noKey {
		must(t, e.cfg.Set("rl.api_key", e.fake.APIKey()))
	}
	if o.beforeStart != nil {
		o.beforeStart(e)
	}
	e.startPolicy()
	if !o.notWait {
		e.waitReady()
	}
	return e
}

// startPolicy makes and serves the policy, as the app does.
func (e *env) startPolicy() {
	pol, err := policy.New(policy.Options{RL: e.cfg.RL, DataDir: e.dataDir, DB: e.db,
		TinkerHTTPClient: &http.Client{Transport: e.wire}, HeartbeatInterval: 50 * time.Millisecond,
		PollInterval: 20 * time.Millisecond, RetryInterval: 20 * time.Millisecond, Logger: testLogger(e.t)})
	must(e.t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- pol.Serve(ctx) }()
	e.t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			e.t.Errorf("Serve: %v", err)
		}
	})
	e.pol = pol
}

// startProxy starts the real proxy with the policy.
func (e *env) startProxy(injectors ...learning.Injector) {
	srv := proxy.New(proxy.Options{Config: e.cfg, Recorder: e.db, Policy: e.pol, Injectors: injectors})
	must(e.t, srv.Listen("127.0.0.1:0"))
	e.url = "http://" + srv.Addr() + "/v1"
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { srv.Serve(ctx, 5*time.Second); close(done) }()
	e.t.Cleanup(func() { cancel(); <-done })
}

func (e *env) waitReady() {
	e.t.Helper()
	testutil.Eventually(e.t, "the policy to be ready", func() bool { ok, _ := e.pol.Ready(); return ok })
}

// testLogger logs warnings to the test's log (shown with -v or on
// failure).
func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

var (
	tokOnce sync.Once
	tok     *tokenizer.Tokenizer
	tokErr  error
)

// fixtureTokenizer is the tiny Qwen-style tokenizer the fake hub serves.
func fixtureTokenizer(t *testing.T) *tokenizer.Tokenizer {
	t.Helper()
	tokOnce.Do(func() { tok, tokErr = tokenizer.LoadFile("testdata/tiny-qwen/tokenizer.json") })
	must(t, tokErr)
	return tok
}

var (
	kimiOnce sync.Once
	kimiTok  *tokenizer.Tokenizer
	kimiErr  error
)

// kimiTokenizer is the tiny Kimi K2.5-style tokenizer the fake hub serves.
func kimiTokenizer(t *testing.T) *tokenizer.Tokenizer {
	t.Helper()
	kimiOnce.Do(func() { kimiTok, kimiErr = tokenizer.LoadTiktokenDir("testdata/tiny-kimi") })
	must(t, kimiErr)
	return kimiTok
}

func kimiToken(t *testing.T, text string) int {
	t.Helper()
	id, ok := kimiTokenizer(t).TokenID(text)
	if !ok {
		t.Fatalf("no %s in tiny-kimi", text)
	}
	return id
}

func imEnd(t *testing.T) int {
	id, ok := fixtureTokenizer(t).TokenID("<|im_end|>")
	if !ok {
		t.Fatal("no <|im_end|> in the fixture")
	}
	return id
}

// reply scripts the fake sampler to answer text (then <|im_end|>).
func (e *env) reply(text string) []int {
	toks := append(fixtureTokenizer(e.t).Encode(text), imEnd(e.t))
	e.fake.SetResponder(func(faketinker.SampleRequest) [][]int { return [][]int{toks} })
	return toks
}

// lastSample is the fake's latest served sample.
func (e *env) lastSample() faketinker.SampleRecord {
	e.t.Helper()
	s := e.fake.Samples()
	if len(s) == 0 {
		e.t.Fatal("the fake sampled nothing")
	}
	return s[len(s)-1]
}

// turns waits until the session has n turns and returns them.
func (e *env) turns(session string, n int) []store.Turn {
	e.t.Helper()
	var ts []store.Turn
	testutil.Eventually(e.t, "turns of "+session, func() bool {
		var err error
		ts, err = e.db.SessionTurns(context.Background(), session)
		must(e.t, err)
		return len(ts) >= n
	})
	return ts
}

// chatRequestsToLLM counts the chat requests llm.* received.
func (e *env) chatRequestsToLLM() int {
	n := 0
	for _, r := range e.up.Requests() {
		if strings.HasSuffix(r.Path, "/chat/completions") {
			n++
		}
	}
	return n
}

// newCheckpoint trains nothing but saves sampler weights on the fake, as
// the trainer would, and returns their path.
func (e *env) newCheckpoint(name string) string {
	e.t.Helper()
	ctx := context.Background()
	c, err := tinker.New(tinker.Options{BaseURL: e.fake.URL(), APIKey: e.fake.APIKey()})
	must(e.t, err)
	defer c.Close()
	must(e.t, c.Start(ctx))
	m, err := c.CreateModel(ctx, baseModel, tinker.LoRAConfig{Rank: 8})
	must(e.t, err)
	path, err := c.SaveWeightsForSampler(ctx, m, name)
	must(e.t, err)
	return path
}

// wireLog records the asample results the Tinker service sent, as JSON.
type wireLog struct {
	mu      sync.Mutex // guards results
	results []sampleWire
}

type sampleWire struct {
	Sequences []struct {
		Tokens   []int     `json:"tokens"`
		Logprobs []float64 `json:"logprobs"`
	} `json:"sequences"`
}

func (w *wireLog) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil || !strings.HasSuffix(r.URL.Path, "/retrieve_future") {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var sw sampleWire
	if json.Unmarshal(body, &sw) == nil && len(sw.Sequences) > 0 {
		w.mu.Lock()
		w.results = append(w.results, sw)
		w.mu.Unlock()
	}
	return resp, nil
}

func (w *wireLog) last() sampleWire {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.results) == 0 {
		return sampleWire{}
	}
	return w.results[len(w.results)-1]
}

// staticInjector puts fixed text in the system prompt, as the skills
// injector does.
type staticInjector struct{ text string }

func (s staticInjector) Name() string { return "static" }

func (s staticInjector) Inject(context.Context, learning.InjectRequest) (learning.Injection, error) {
	return learning.Injection{Text: s.text, IDs: []string{"skill-1"}}, nil
}
