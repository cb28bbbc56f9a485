package proxy_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/proxy/learning"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// env is a proxy in front of a fake upstream, with a real store.
type env struct {
	t     *testing.T
	cfg   config.Config // as the proxy started
	up    *fakeupstream.Server
	upURL string
	srv   *proxy.Server
	url   string // proxy base, no /v1
	db    *store.DB
	stop  func()
}

type envOption func(*config.Config, *proxy.Options)

func withConfig(f func(*config.Config)) envOption {
	return func(c *config.Config, _ *proxy.Options) { f(c) }
}

func withInjector(inj learning.Injector) envOption {
	return func(_ *config.Config, o *proxy.Options) { o.Injectors = append(o.Injectors, inj) }
}

func newEnv(t *testing.T, opts ...envOption) *env {
	t.Helper()
	e := &env{t: t, up: fakeupstream.New()}
	var err error
	if e.upURL, err = e.up.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.up.Close() })
	if e.db, err = store.Open(filepath.Join(t.TempDir(), "metaclaw.db")); err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults()
	must(t, cfg.Set("llm.provider", "custom"))
	must(t, cfg.Set("llm.api_base", e.upURL+"/v1"))
	must(t, cfg.Set("llm.api_key", "sk-upstream-secret-key"))
	must(t, cfg.Set("llm.model_id", "fake-model"))
	must(t, cfg.Set("proxy.model_mapping", "always"))
	po := proxy.Options{Recorder: e.db}
	for _, o := range opts {
		o(&cfg, &po)
	}
	po.Config = cfg
	e.cfg = cfg
	e.start(po)
	return e
}

func (e *env) start(po proxy.Options) {
	e.srv = proxy.New(po)
	if err := e.srv.Listen("127.0.0.1:0"); err != nil {
		e.t.Fatal(err)
	}
	e.url = "http://" + e.srv.Addr()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { e.srv.Serve(ctx, 5*time.Second); close(done) }()
	var once sync.Once
	e.stop = func() { once.Do(func() { cancel(); <-done; e.db.Close() }) }
	e.t.Cleanup(e.stop)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// post sends a raw request to the proxy.
func (e *env) post(path, body string, headers ...string) (int, []byte, http.Header) {
	e.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.url+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b, resp.Header
}

// upstreamBodies returns the JSON bodies the fake upstream received on path.
func (e *env) upstreamBodies(path string) []map[string]any {
	var out []map[string]any
	for _, r := range e.up.Requests() {
		if r.Path != path {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(r.Body, &m); err != nil {
			e.t.Fatalf("upstream got invalid JSON: %v\n%s", err, r.Body)
		}
		out = append(out, m)
	}
	return out
}

// turns waits until n turns are recorded and returns every turn.
func (e *env) turns(n int) []store.Turn {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var all []store.Turn
		sessions, err := e.db.RecentSessions(context.Background(), 1000)
		must(e.t, err)
		for _, s := range sessions {
			ts, err := e.db.SessionTurns(context.Background(), s.ID)
			must(e.t, err)
			all = append(all, ts...)
		}
		if len(all) >= n {
			return all
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("only %d of %d turns recorded; stats %+v", len(all), n, e.srv.Stats())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// staticInjector injects fixed text and ids.
type staticInjector struct {
	text string
	ids  []string
	mu   sync.Mutex
	reqs []learning.InjectRequest
}

func (s *staticInjector) Name() string { return "static" }

func (s *staticInjector) Inject(_ context.Context, r learning.InjectRequest) (learning.Injection, error) {
	s.mu.Lock()
	s.reqs = append(s.reqs, r)
	s.mu.Unlock()
	return learning.Injection{Text: s.text, IDs: s.ids}, nil
}

// config0 returns the configuration the proxy started with.
func config0(e *env) config.Config { return e.cfg }

// raw sends a request to the proxy with exactly the headers given (a
// "Host" pair sets the Host header) and returns the answer.
func (e *env) raw(method, path, body string, headers ...string) (int, []byte, http.Header) {
	e.t.Helper()
	req, err := http.NewRequest(method, e.url+path, strings.NewReader(body))
	must(e.t, err)
	if body == "" {
		req.Body, req.ContentLength = nil, 0
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if strings.EqualFold(headers[i], "Host") {
			req.Host = headers[i+1]
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	must(e.t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b, resp.Header
}
