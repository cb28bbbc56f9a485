package policy

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestHub is a fake Hugging Face Hub on 127.0.0.1 serving
// /<repo>/resolve/main/<file> from local directories. It is exported for
// the package's external tests.
type TestHub struct {
	srv   *httptest.Server
	repos map[string]string // repo → directory

	mu   sync.Mutex // guards hits and down
	hits map[string]int
	down bool
}

// NewTestHub serves repos (repo id → directory) until the test ends.
func NewTestHub(t *testing.T, repos map[string]string) *TestHub {
	h := &TestHub{repos: repos, hits: map[string]int{}}
	h.srv = httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *TestHub) serve(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.hits[r.URL.Path]++
	down := h.down
	h.mu.Unlock()
	if down {
		http.Error(w, "hub down", http.StatusServiceUnavailable)
		return
	}
	repo, file, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/resolve/main/")
	dir, known := h.repos[repo]
	if !ok || !known || r.Method != http.MethodGet || strings.Contains(file, "/") {
		http.NotFound(w, r)
		return
	}
	data, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		http.NotFound(w, r)
		return
	}
	w.Write(data)
}

// URL is the hub's endpoint (rl.hf_endpoint).
func (h *TestHub) URL() string { return h.srv.URL }

// Hits counts the requests for a path such as
// /Qwen/Qwen3-8B/resolve/main/tokenizer.json.
func (h *TestHub) Hits(path string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.hits[path]
}

// SetDown makes every request answer 503.
func (h *TestHub) SetDown(down bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.down = down
}
