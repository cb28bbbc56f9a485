package app

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/app/learner"
	"github.com/metaclaw/metaclaw/app/learner/memory"
	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
	"github.com/metaclaw/metaclaw/store/testutil"
)

// script is testdata/memory_conversation.json.
type script struct {
	TrapSkill struct {
		Name, Description, Body string
		Tags                    []string
	} `json:"trap_skill"`
	Traps    []statement
	Sessions []struct {
		ID, User, API string
		Day           int
		Turns         []struct {
			User, Assistant string
			Extract         *extracted
			Expect, Absent  []string
		}
	}
}

type statement struct {
	Say     string
	Extract *extracted
}

type extracted struct {
	Type, Topic, Content string
	Importance           float64
}

func loadScript(t *testing.T) script {
	t.Helper()
	b, err := os.ReadFile("testdata/memory_conversation.json")
	if err != nil {
		t.Fatal(err)
	}
	var sc script
	if err := json.Unmarshal(b, &sc); err != nil {
		t.Fatal(err)
	}
	return sc
}

// statements are every annotated line: what people said and the traps.
func (sc script) statements() []statement {
	out := append([]statement{}, sc.Traps...)
	for _, s := range sc.Sessions {
		for _, tu := range s.Turns {
			if tu.Extract != nil {
				out = append(out, statement{Say: tu.User, Extract: tu.Extract})
			}
		}
	}
	return out
}

// fakeWorld is the fake upstream: the agents' model, and a gullible
// extraction model.
type fakeWorld struct {
	sc          script
	mu          sync.Mutex
	agent       map[string]string // last user text → system prompt the upstream got
	agentBodies []string
	extractions []string
}

func (w *fakeWorld) reply(_ *http.Request, body []byte) fakeupstream.Reply {
	system, last := chatParts(body)
	w.mu.Lock()
	defer w.mu.Unlock()
	if strings.HasPrefix(system, strings.SplitN(memory.SystemPrompt, "\n", 2)[0]) {
		w.extractions = append(w.extractions, last)
		return fakeupstream.Reply{Text: w.extract(last)}
	}
	w.agent[last] = system
	w.agentBodies = append(w.agentBodies, string(body))
	for _, s := range w.sc.Sessions {
		for _, tu := range s.Turns {
			if strings.Contains(last, tu.User) {
				return fakeupstream.Reply{Text: tu.Assistant}
			}
		}
	}
	return fakeupstream.Reply{Text: "OK."}
}

// extract answers an extraction request like a gullible model: every
// annotated line in the new part of the excerpt becomes its memory.
func (w *fakeWorld) extract(prompt string) string {
	_, newPart, _ := strings.Cut(prompt, "New conversation:")
	type item struct {
		Type       string  `json:"type"`
		Topic      string  `json:"topic"`
		Content    string  `json:"content"`
		Importance float64 `json:"importance"`
	}
	items := []item{}
	for _, st := range w.sc.statements() {
		if strings.Contains(newPart, st.Say) {
			items = append(items, item{st.Extract.Type, st.Extract.Topic, st.Extract.Content, st.Extract.Importance})
		}
	}
	b, _ := json.Marshal(map[string]any{"memories": items})
	return string(b)
}

// chatParts returns the system prompt and the last user message of an
// OpenAI chat request.
func chatParts(body []byte) (system, last string) {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(body, &req)
	for _, m := range req.Messages {
		text := textOf(m.Content)
		switch m.Role {
		case "system", "developer":
			system += text
		case "user":
			last = text
		}
	}
	return system, last
}

func textOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct{ Text string }
	json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// memoryWorld runs the proxy, the skills and memory injectors and the
// memory service as Start wires them, with a test clock.
type memoryWorld struct {
	t     *testing.T
	a     *App
	fake  *fakeWorld
	clock *testClock
	url   string
	stop  func()
}

type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *testClock) Set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

func newMemoryWorld(t *testing.T, sc script) *memoryWorld {
	t.Helper()
	w := &memoryWorld{t: t, fake: &fakeWorld{sc: sc, agent: map[string]string{}},
		clock: &testClock{t: time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)}}
	up := fakeupstream.New()
	base, err := up.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { up.Close() })
	up.SetDefault(fakeupstream.Reply{Func: w.fake.reply})
	db, err := store.Open(filepath.Join(t.TempDir(), "metaclaw.db"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults()
	for k, v := range map[string]string{"llm.provider": "custom", "llm.api_base": base + "/v1", "llm.api_key": "sk-fake-upstream-key",
		"llm.model_id": "fake-model", "proxy.model_mapping": "always", "proxy.inject_timeout_ms": "2000"} {
		if err := cfg.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	w.a = &App{log: slog.New(slog.DiscardHandler), db: db, done: make(chan struct{}), cfg: cfg}
	w.a.pause = learner.NewPause(db)
	w.start(cfg)
	return w
}

// start mirrors App.Start: learner.Build's injectors and memory API for
// the proxy, the event pump and the memory service (not the judge).
func (w *memoryWorld) start(cfg config.Config) {
	a, ctx := w.a, context.Background()
	if _, _, err := a.db.PutSkill(ctx, store.SkillInput{Name: w.fake.sc.TrapSkill.Name, Description: w.fake.sc.TrapSkill.Description,
		Tags: w.fake.sc.TrapSkill.Tags, Body: w.fake.sc.TrapSkill.Body, Source: "test"}); err != nil {
		w.t.Fatal(err)
	}
	a.learn = learner.Build(ctx, learner.Deps{DB: a.db, Config: cfg, Logger: a.log, Paused: a.Paused, Now: w.clock.Now})
	a.proxy = proxy.New(proxy.Options{Config: cfg, Recorder: a.db, Injectors: a.learn.Injectors,
		Memory: a.learn.MemoryAPI, Now: w.clock.Now})
	if err := a.proxy.Listen("127.0.0.1:0"); err != nil {
		w.t.Fatal(err)
	}
	w.url = "http://" + a.proxy.Addr()
	ctx, a.cancel = context.WithCancel(ctx)
	a.goService(ctx, "proxy", func(ctx context.Context) error { return a.proxy.Serve(ctx, time.Second) })
	a.goService(ctx, "memory", a.learn.Memory.Serve)
	a.goService(ctx, "events", func(ctx context.Context) error { return a.learn.Consume(ctx, a.proxy.Events()) })
	w.stop = func() { a.cancel(); a.wg.Wait(); a.db.Close() }
	w.t.Cleanup(w.stop)
}

// post sends one turn of a session through the proxy.
func (w *memoryWorld) post(api, session, user string, history []string, text string, done bool) {
	w.t.Helper()
	system := "You are " + strings.ToUpper(user[:1]) + user[1:] + "'s coding agent."
	var path string
	var body map[string]any
	msgs := []map[string]any{}
	for i, h := range history {
		msgs = append(msgs, map[string]any{"role": map[bool]string{true: "user", false: "assistant"}[i%2 == 0], "content": h})
	}
	msgs = append(msgs, map[string]any{"role": "user", "content": text})
	if api == "anthropic" {
		path, body = "/v1/messages", map[string]any{"model": "claude-test", "max_tokens": 256, "system": system, "messages": msgs}
	} else {
		msgs = append([]map[string]any{{"role": "system", "content": system}}, msgs...)
		path, body = "/v1/chat/completions", map[string]any{"model": "gpt-test", "messages": msgs}
	}
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, w.url+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Session-Id", session)
	req.Header.Set("X-User-Id", user)
	if api == "anthropic" {
		req.Header.Set("Anthropic-Version", "2023-06-01")
	}
	if done {
		req.Header.Set("X-Session-Done", "true")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		w.t.Fatalf("%s turn %q: %d %s", session, text, resp.StatusCode, out)
	}
}

// waitExtracted waits until memory extraction has read a session's turns.
func (w *memoryWorld) waitExtracted(session string, turns int) {
	w.t.Helper()
	testutil.Eventually(w.t, "session "+session+": extraction to run", func() bool {
		n, err := w.a.db.MemoryProgress(context.Background(), session)
		if err != nil {
			w.t.Fatal(err)
		}
		return n >= turns
	})
}

// TestMemoryConversation runs the scripted multi-session conversation
// through the proxy against the fake upstream and checks what the upstream
// received: the current preference is injected days later, the superseded
// one is not, the other person's memories never appear, and injected skill
// text (or memory text, or a system prompt) never became a memory.
func TestMemoryConversation(t *testing.T) {
	t.Parallel()
	sc := loadScript(t)
	w := newMemoryWorld(t, sc)
	start := w.clock.Now()
	for _, s := range sc.Sessions {
		w.clock.Set(start.Add(time.Duration(s.Day) * 24 * time.Hour))
		var history []string
		for i, tu := range s.Turns {
			w.post(s.API, s.ID, s.User, history, tu.User, i == len(s.Turns)-1)
			history = append(history, tu.User, tu.Assistant)
		}
		w.waitExtracted(s.ID, len(s.Turns))
	}
	w.checkUpstream(sc)
	w.checkMemories()
	w.checkSearchEndpoint()
}

func (w *memoryWorld) checkUpstream(sc script) {
	t := w.t
	w.fake.mu.Lock()
	defer w.fake.mu.Unlock()
	for _, s := range sc.Sessions {
		for _, tu := range s.Turns {
			system, ok := w.fake.agent[tu.User]
			if !ok {
				t.Fatalf("the upstream never got %q", tu.User)
			}
			for _, want := range tu.Expect {
				if !strings.Contains(system, want) {
					t.Errorf("%s: %q was not injected; system prompt:\n%s", s.ID, want, system)
				}
			}
			for _, bad := range tu.Absent {
				if strings.Contains(system, bad) {
					t.Errorf("%s: %q was injected; system prompt:\n%s", s.ID, bad, system)
				}
			}
			w.checkNoLeak(s.User, system)
		}
	}
	armed := false
	for _, b := range w.fake.agentBodies {
		armed = armed || strings.Contains(b, "SKILLTRAP")
	}
	if !armed {
		t.Error("the trap skill was never injected: the test proves nothing about skill text")
	}
	if len(w.fake.extractions) < 3 {
		t.Errorf("%d extraction requests, want one per session that stated something", len(w.fake.extractions))
	}
	for _, x := range w.fake.extractions {
		for _, bad := range []string{"SKILLTRAP", "What MetaClaw remembers", "coding agent"} {
			if strings.Contains(x, bad) {
				t.Errorf("an extraction request contains %q:\n%s", bad, x)
			}
		}
	}
}

// checkNoLeak fails when one person's prompt holds the other's memories.
func (w *memoryWorld) checkNoLeak(user, system string) {
	foreign := map[string][]string{
		"alice": {"solarized theme in the editor"},
		"bob":   {"light mode in the editor", "dark mode in the editor", "4-space indentation"},
	}[user]
	for _, f := range foreign {
		if strings.Contains(system, f) {
			w.t.Errorf("%s's prompt holds another scope's memory %q", user, f)
		}
	}
}

func (w *memoryWorld) checkMemories() {
	t, ctx := w.t, context.Background()
	all, err := w.a.db.Memories(ctx, store.MemoryFilter{History: true})
	if err != nil {
		t.Fatal(err)
	}
	var light, dark store.Memory
	for _, m := range all {
		if strings.Contains(m.Content, "TRAP") {
			t.Errorf("a trap became a memory: %+v", m)
		}
		switch {
		case strings.Contains(m.Content, "light mode"):
			light = m
		case strings.Contains(m.Content, "dark mode"):
			dark = m
		}
		if m.Scope != "user:alice" && m.Scope != "user:bob" {
			t.Errorf("memory in scope %q", m.Scope)
		}
	}
	if !light.Current() || light.Scope != "user:alice" || dark.Current() || dark.SupersededBy != light.ID {
		t.Errorf("supersession: light %+v, dark %+v", light, dark)
	}
	turns, _ := w.a.db.SessionTurns(ctx, "alice-3")
	if len(turns) != 1 || !strings.Contains(turns[0].Injected, "memory:"+itoa(light.ID)) {
		t.Errorf("alice-3's turn does not record the injected memory %d: %+v", light.ID, turns)
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

func (w *memoryWorld) checkSearchEndpoint() {
	req, _ := http.NewRequest(http.MethodGet, w.url+"/v1/memory/search?q=editor+theme", nil)
	req.Header.Set("X-User-Id", "alice")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Data []struct{ Content string }
	}
	json.NewDecoder(resp.Body).Decode(&out)
	if len(out.Data) == 0 || !strings.Contains(out.Data[0].Content, "light mode") {
		w.t.Errorf("search for alice = %+v", out.Data)
	}
	for _, d := range out.Data {
		if strings.Contains(d.Content, "solarized") || strings.Contains(d.Content, "dark mode") {
			w.t.Errorf("search for alice returned %q", d.Content)
		}
	}
}
