package proxy_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/proxy/learning"
	"github.com/metaclaw/metaclaw/store/config"
)

// fakeMemory is a memory API the proxy mounts: every route records the
// call with the scope the proxy gave; /fail answers an HTTPError.
type fakeMemory struct {
	mu    sync.Mutex
	calls []string
}

var _ proxy.MemoryAPI = (*fakeMemory)(nil)

func (f *fakeMemory) Routes(g fiber.Router, scope func(*fiber.Ctx) string) {
	g.Get("/fail", func(c *fiber.Ctx) error {
		f.log("fail")
		return learning.Errorf(http.StatusBadRequest, "invalid_request", "asked wrong")
	})
	g.All("/*", func(c *fiber.Ctx) error {
		f.log("%s %s %s bounded=%v", c.Method(), c.Path(), scope(c), c.UserContext().Done() != nil)
		return c.JSON(fiber.Map{"ok": true})
	})
}

func (f *fakeMemory) log(format string, args ...any) {
	f.mu.Lock()
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
	f.mu.Unlock()
}

func withMemory(m proxy.MemoryAPI) envOption {
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

// TestMemoryMount: the proxy mounts the memory API under /v1/memory behind
// its guards, gives it the scope of the identity headers (else
// memory.scope) and a context the server ends (not Background), and writes its HTTPErrors in the
// OpenAI error shape. The endpoints themselves are tested in memapi.
func TestMemoryMount(t *testing.T) {
	t.Parallel()
	fm := &fakeMemory{}
	e := newEnv(t, withMemory(fm), withConfig(func(c *config.Config) { must(t, c.Set("memory.scope", "home")) }))
	js := []string{"Content-Type", "application/json"}
	tests := []struct {
		name, method, path, body string
		headers                  []string
		status                   int
		call                     string // what the API was asked, "" for nothing
	}{
		{"default scope", "GET", "/v1/memory/search?q=tea", "", nil, 200, "GET /v1/memory/search home bounded=true"},
		{"scope from headers", "GET", "/v1/memory/search?q=tea", "", []string{"X-User-Id", "u1", "X-Workspace-Id", "w"}, 200,
			"GET /v1/memory/search user:u1/workspace:w bounded=true"},
		{"scope header", "DELETE", "/v1/memory/5", "", []string{"X-Memory-Scope", "s3"}, 200, "DELETE /v1/memory/5 s3 bounded=true"},
		{"post json", "POST", "/v1/memory", `{"content":"x"}`, js, 200, "POST /v1/memory home bounded=true"},
		{"post needs json", "POST", "/v1/memory", `content=x`, []string{"Content-Type", "application/x-www-form-urlencoded"}, 415, ""},
		{"api error", "GET", "/v1/memory/fail", "", nil, 400, "fail"},
		{"browser page refused", "GET", "/v1/memory/search?q=tea", "", []string{"Origin", "https://evil.example"}, 403, ""},
		{"rebinding host refused", "GET", "/v1/memory/search?q=tea", "", []string{"Host", "evil.example:30000"}, 403, ""},
		{"localhost allowed", "GET", "/v1/memory/search?q=tea", "", []string{"Host", "localhost:30000"}, 200, "GET /v1/memory/search home bounded=true"},
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
			t.Errorf("%s: API calls %q, want %q", tt.name, calls, tt.call)
		}
	}
	if _, out := e.do("GET", "/v1/memory/fail", ""); out["error"].(map[string]any)["code"] != "invalid_request" {
		t.Errorf("the API's error code was not kept: %v", out)
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
