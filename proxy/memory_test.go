package proxy_test

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
	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// fakeMemory records what the memory endpoints asked for.
type fakeMemory struct {
	mu     sync.Mutex
	calls  []string
	ingest proxy.MemoryIngest
}

func (f *fakeMemory) log(format string, args ...any) {
	f.mu.Lock()
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
	f.mu.Unlock()
}

func (f *fakeMemory) SearchMemories(_ context.Context, scope, query string, limit int) ([]proxy.MemoryHit, error) {
	f.log("search %s %q %d", scope, query, limit)
	m := store.Memory{ID: 7, Scope: scope, Type: store.MemoryPreference, Content: "Prefers tea.", Importance: 0.5,
		CreatedAt: time.Unix(0, 0), UpdatedAt: time.Unix(0, 0)}
	return []proxy.MemoryHit{{Memory: m, Relevance: 0.81234, Score: 0.7}}, nil
}

func (f *fakeMemory) AddMemory(_ context.Context, in store.MemoryInput) (proxy.MemoryChange, error) {
	f.log("add %s %s %q pinned=%v source=%s", in.Scope, in.Type, in.Content, in.Pinned, in.Source)
	if in.Content == "" {
		return proxy.MemoryChange{}, fmt.Errorf("%w: content is empty", proxy.ErrInvalidMemory)
	}
	return proxy.MemoryChange{Outcome: "added", Memory: store.Memory{ID: 8, Scope: in.Scope, Type: in.Type, Content: in.Content}}, nil
}

func (f *fakeMemory) ForgetMemory(_ context.Context, scope string, id int64) ([]int64, error) {
	f.log("forget %s %d", scope, id)
	if id == 404 {
		return nil, fmt.Errorf("memory 404: %w", store.ErrNotFound)
	}
	return []int64{id, 3}, nil
}

func (f *fakeMemory) IngestMemories(_ context.Context, req proxy.MemoryIngest) (proxy.MemoryIngestResult, error) {
	f.mu.Lock()
	f.ingest = req
	f.mu.Unlock()
	return proxy.MemoryIngestResult{Extractor: "model", Turns: len(req.Turns), Added: []int64{9}}, nil
}

func withMemory(m proxy.MemoryService) envOption {
	return func(_ *config.Config, o *proxy.Options) { o.Memory = m }
}

// do sends a request to the proxy and decodes a JSON answer.
func (e *env) do(method, path, body string, headers ...string) (int, map[string]any) {
	e.t.Helper()
	req, _ := http.NewRequest(method, e.url+path, strings.NewReader(body))
	for i := 0; i+1 < len(headers); i += 2 {
		if strings.EqualFold(headers[i], "Host") {
			req.Host = headers[i+1]
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out map[string]any
	json.Unmarshal(b, &out)
	return resp.StatusCode, out
}

func TestMemoryEndpoints(t *testing.T) {
	t.Parallel()
	fm := &fakeMemory{}
	e := newEnv(t, withMemory(fm), withConfig(func(c *config.Config) { must(t, c.Set("memory.scope", "home")) }))
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
		{"forget", "DELETE", "/v1/memory/5", "", []string{"X-Memory-Scope", "s3"}, 200, "forget s3 5",
			func(t *testing.T, out map[string]any) {
				if diff := cmp.Diff([]any{5.0, 3.0}, out["deleted"]); diff != "" {
					t.Error(diff)
				}
			}},
		{"forget unknown", "DELETE", "/v1/memory/404", "", nil, 404, "forget home 404", nil},
		{"forget bad id", "DELETE", "/v1/memory/abc", "", nil, 400, "", nil},
		{"browser page refused", "GET", "/v1/memory/search?q=tea", "", []string{"Origin", "https://evil.example"}, 403, "", nil},
		{"rebinding host refused", "GET", "/v1/memory/search?q=tea", "", []string{"Host", "evil.example:30000"}, 403, "", nil},
		{"localhost allowed", "GET", "/v1/memory/search?q=tea", "", []string{"Host", "localhost:30000"}, 200, `search home "tea" 10`, nil},
	}
	for _, tt := range tests {
		fm.mu.Lock()
		fm.calls = nil
		fm.mu.Unlock()
		status, out := e.do(tt.method, tt.path, tt.body, tt.headers...)
		if status != tt.status {
			t.Errorf("%s: status %d, want %d (%v)", tt.name, status, tt.status, out)
		}
		if status >= 400 && out["error"] == nil {
			t.Errorf("%s: error not in the OpenAI shape: %v", tt.name, out)
		}
		fm.mu.Lock()
		calls := fm.calls
		fm.mu.Unlock()
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
	fm := &fakeMemory{}
	e := newEnv(t, withMemory(fm))
	status, out := e.do("POST", "/v1/memory/ingest", `{"turns":[{"user":"I like tea","assistant":"Noted"}]}`,
		"Content-Type", "application/json", "X-Memory-Scope", "s")
	if status != 200 || out["extractor"] != "model" || out["turns"] != 1.0 {
		t.Fatalf("ingest = %d %v", status, out)
	}
	want := proxy.MemoryIngest{Scope: "s", Turns: []proxy.MemoryTurn{{User: "I like tea", Assistant: "Noted"}}}
	if diff := cmp.Diff(want, fm.ingest); diff != "" {
		t.Error(diff)
	}
	// An empty body is the reference's "every buffered session" (none here).
	status, out = e.do("POST", "/v1/memory/ingest", `{}`, "Content-Type", "application/json")
	if status != 200 || out["added"] != 0.0 || out["buffered_turns"] != 0.0 {
		t.Errorf("empty ingest = %d %v, want 200 with nothing added", status, out)
	}
}

func TestMemoryEndpointsAuthAndOff(t *testing.T) {
	t.Parallel()
	fm := &fakeMemory{}
	e := newEnv(t, withMemory(fm), withConfig(func(c *config.Config) { must(t, c.Set("proxy.api_key", "proxy-secret-123")) }))
	if status, _ := e.do("GET", "/v1/memory/search?q=tea", ""); status != 401 {
		t.Errorf("without the key = %d, want 401", status)
	}
	// With a key, host names are allowed (the key is the protection).
	if status, _ := e.do("GET", "/v1/memory/search?q=tea", "", "Authorization", "Bearer proxy-secret-123", "Host", "box.lan:30000"); status != 200 {
		t.Errorf("with the key = %d, want 200", status)
	}
	off := newEnv(t)
	if status, out := off.do("GET", "/v1/memory/search?q=tea", ""); status != 404 || out["error"] == nil {
		t.Errorf("memory off = %d %v, want 404", status, out)
	}
}
