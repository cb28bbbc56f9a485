package memapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/metaclaw/metaclaw/app/learner/memory"
	"github.com/metaclaw/metaclaw/app/learner/memory/memapi"
	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// fakeService records what the endpoints asked the memory service for.
type fakeService struct {
	mu     sync.Mutex
	calls  []string
	ingest ingestCall
}

type ingestCall struct {
	Scope, Session string
	Exchanges      []memory.Exchange
}

var _ memapi.Service = (*fakeService)(nil)

func (f *fakeService) log(format string, args ...any) {
	f.mu.Lock()
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
	f.mu.Unlock()
}

func (f *fakeService) Search(_ context.Context, scope, query string, limit int) ([]memory.Scored, error) {
	f.log("search %s %q %d", scope, query, limit)
	m := store.Memory{ID: 7, Scope: scope, Type: store.MemoryPreference, Content: "Prefers tea.", Importance: 0.5,
		CreatedAt: time.Unix(0, 0), UpdatedAt: time.Unix(0, 0)}
	return []memory.Scored{{Memory: m, Relevance: 0.81234, Score: 0.7}}, nil
}

func (f *fakeService) Add(_ context.Context, in store.MemoryInput) (memory.Change, error) {
	f.log("add %s %s %q pinned=%v source=%s", in.Scope, in.Type, in.Content, in.Pinned, in.Source)
	if in.Content == "" {
		return memory.Change{}, fmt.Errorf("%w: content is empty", memory.ErrInvalid)
	}
	return memory.Change{Outcome: "added", Memory: store.Memory{ID: 8, Scope: in.Scope, Type: in.Type, Content: in.Content}}, nil
}

func (f *fakeService) Forget(_ context.Context, scope string, ids []int64) ([]int64, error) {
	f.log("forget %s %v", scope, ids)
	if ids[0] == 404 {
		return nil, fmt.Errorf("memory 404: %w", store.ErrNotFound)
	}
	return []int64{ids[0], 3}, nil
}

func (f *fakeService) ExtractSession(_ context.Context, session string) (memory.Report, error) {
	f.log("extract session %s", session)
	return memory.Report{Extractor: "model"}, nil
}

func (f *fakeService) IngestExchanges(_ context.Context, scope, session string, exs []memory.Exchange) (memory.Report, error) {
	f.mu.Lock()
	f.ingest = ingestCall{Scope: scope, Session: session, Exchanges: exs}
	f.mu.Unlock()
	return memory.Report{Extractor: "model", Turns: len(exs), Added: []int64{9}}, nil
}

// startProxy serves the API from a real proxy on 127.0.0.1, which mounts
// it behind its guards.
func startProxy(t *testing.T, api *memapi.API, set map[string]string) string {
	t.Helper()
	cfg := config.Defaults()
	for k, v := range set {
		if err := cfg.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	srv := proxy.New(proxy.Options{Config: cfg, Memory: api})
	if err := srv.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, time.Second) }()
	t.Cleanup(func() { cancel(); <-done })
	return "http://" + srv.Addr()
}

// do sends a request and decodes a JSON answer.
func do(t *testing.T, base, method, path, body string, headers ...string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
	for i := 0; i+1 < len(headers); i += 2 {
		if strings.EqualFold(headers[i], "Host") {
			req.Host = headers[i+1]
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out map[string]any
	json.Unmarshal(b, &out)
	return resp.StatusCode, out
}

func TestMemoryEndpoints(t *testing.T) {
	t.Parallel()
	fs := &fakeService{}
	base := startProxy(t, memapi.New(memapi.Options{Service: fs}), map[string]string{"memory.scope": "home"})
	js := []string{"Content-Type", "application/json"}
	tests := []struct {
		name, method, path, body string
		headers                  []string
		status                   int
		call                     string // what the service was asked, "" for nothing
		check                    func(t *testing.T, out map[string]any)
	}{
		{"search default scope", "GET", "/v1/memory/search?q=tea+please&limit=3", "", nil, 200, `search home "tea please" 3`,
			func(t *testing.T, out map[string]any) {
				data := out["data"].([]any)[0].(map[string]any)
				if data["content"] != "Prefers tea." || data["relevance"] != 0.812 || out["scope"] != "home" {
					t.Errorf("body = %v", out)
				}
			}},
		{"search scope from headers", "GET", "/v1/memory/search?q=tea", "", []string{"X-User-Id", "u1", "X-Workspace-Id", "w"}, 200,
			`search user:u1/workspace:w "tea" 10`, nil},
		{"search scope parameter wins", "GET", "/v1/memory/search?q=tea&scope=s9", "", []string{"X-Memory-Scope", "h"}, 200, `search s9 "tea" 10`, nil},
		{"search needs q", "GET", "/v1/memory/search", "", nil, 400, "", nil},
		{"search bad limit", "GET", "/v1/memory/search?q=x&limit=1000", "", nil, 400, "", nil},
		{"add", "POST", "/v1/memory", `{"content":"Likes tea","type":"preference","pinned":true}`, js, 201,
			`add home preference "Likes tea" pinned=true source=api`,
			func(t *testing.T, out map[string]any) {
				if out["outcome"] != "added" || out["memory"].(map[string]any)["id"] != 8.0 {
					t.Errorf("body = %v", out)
				}
			}},
		{"add defaults to fact", "POST", "/v1/memory", `{"content":"Has a cat","scope":"s2"}`, js, 201, `add s2 fact "Has a cat" pinned=false source=api`, nil},
		{"add invalid", "POST", "/v1/memory", `{"content":""}`, js, 400, `add home fact "" pinned=false source=api`, nil},
		{"add needs json", "POST", "/v1/memory", `content=x`, []string{"Content-Type", "application/x-www-form-urlencoded"}, 415, "", nil},
		{"add bad json", "POST", "/v1/memory", `{`, js, 400, "", nil},
		{"forget", "DELETE", "/v1/memory/5", "", []string{"X-Memory-Scope", "s3"}, 200, "forget s3 [5]",
			func(t *testing.T, out map[string]any) {
				if diff := cmp.Diff([]any{5.0, 3.0}, out["deleted"]); diff != "" {
					t.Error(diff)
				}
			}},
		{"forget unknown", "DELETE", "/v1/memory/404", "", nil, 404, "forget home [404]", nil},
		{"forget bad id", "DELETE", "/v1/memory/abc", "", nil, 400, "", nil},
		{"stats without a reader", "GET", "/v1/memory/stats", "", nil, 404, "", nil},
		{"browser page refused", "GET", "/v1/memory/search?q=tea", "", []string{"Origin", "https://evil.example"}, 403, "", nil},
		{"rebinding host refused", "GET", "/v1/memory/search?q=tea", "", []string{"Host", "evil.example:30000"}, 403, "", nil},
		{"localhost allowed", "GET", "/v1/memory/search?q=tea", "", []string{"Host", "localhost:30000"}, 200, `search home "tea" 10`, nil},
	}
	for _, tt := range tests {
		fs.mu.Lock()
		fs.calls = nil
		fs.mu.Unlock()
		status, out := do(t, base, tt.method, tt.path, tt.body, tt.headers...)
		if status != tt.status {
			t.Errorf("%s: status %d, want %d (%v)", tt.name, status, tt.status, out)
		}
		if status >= 400 && out["error"] == nil {
			t.Errorf("%s: error not in the OpenAI shape: %v", tt.name, out)
		}
		fs.mu.Lock()
		calls := fs.calls
		fs.mu.Unlock()
		if tt.call == "" && len(calls) > 0 || tt.call != "" && (len(calls) != 1 || calls[0] != tt.call) {
			t.Errorf("%s: service calls %q, want %q", tt.name, calls, tt.call)
		}
		if tt.check != nil && status == tt.status {
			tt.check(t, out)
		}
	}
}

func TestMemoryIngestEndpoint(t *testing.T) {
	t.Parallel()
	fs := &fakeService{}
	base := startProxy(t, memapi.New(memapi.Options{Service: fs}), nil)
	status, out := do(t, base, "POST", "/v1/memory/ingest", `{"turns":[{"user":"I like tea","assistant":"Noted"}]}`,
		"Content-Type", "application/json", "X-Memory-Scope", "s")
	if status != 200 || out["extractor"] != "model" || out["turns"] != 1.0 {
		t.Fatalf("ingest = %d %v", status, out)
	}
	want := ingestCall{Scope: "s", Exchanges: []memory.Exchange{{User: "I like tea", Assistant: "Noted"}}}
	if diff := cmp.Diff(want, fs.ingest); diff != "" {
		t.Error(diff)
	}
	// An empty body is the reference's "every buffered session" (none here).
	status, out = do(t, base, "POST", "/v1/memory/ingest", `{}`, "Content-Type", "application/json")
	if status != 200 || out["added"] != 0.0 || out["buffered_turns"] != 0.0 {
		t.Errorf("empty ingest = %d %v, want 200 with nothing added", status, out)
	}
}
