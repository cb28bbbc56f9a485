package retrieval

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/metaclaw/metaclaw/app/learner/llm"
	"github.com/metaclaw/metaclaw/store"
)

// embedServer answers /v1/embeddings: first with the statuses in fail, then
// with the vectors of vecs in reverse index order. It records the bodies.
func embedServer(t *testing.T, vecs [][]float64, fail ...int) (*httptest.Server, func() []*http.Request, func() [][]byte) {
	t.Helper()
	var mu sync.Mutex
	var reqs []*http.Request
	var bodies [][]byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		n := len(reqs)
		reqs, bodies = append(reqs, r.Clone(context.Background())), append(bodies, b)
		mu.Unlock()
		if n < len(fail) {
			w.Header().Set("Retry-After-Ms", "10")
			w.WriteHeader(fail[n])
			io.WriteString(w, `{"error":{"message":"try later, key-embed-secret"}}`)
			return
		}
		var data []map[string]any
		for i := len(vecs) - 1; i >= 0; i-- {
			data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": vecs[i]})
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "model": "e", "data": data})
	}))
	t.Cleanup(srv.Close)
	get := func() []*http.Request { mu.Lock(); defer mu.Unlock(); return append([]*http.Request(nil), reqs...) }
	getBodies := func() [][]byte { mu.Lock(); defer mu.Unlock(); return append([][]byte(nil), bodies...) }
	return srv, get, getBodies
}

func TestEmbedderWire(t *testing.T) {
	t.Parallel()
	srv, reqs, bodies := embedServer(t, [][]float64{{3, 4}, {0, 2}}, http.StatusServiceUnavailable)
	emb := NewEmbedder(openDB(t), srv.URL+"/v1/", "key-embed-secret", "text-embedding-3-small")
	got, err := emb.Embed(context.Background(), []string{"alpha", "beta"})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float32{{0.6, 0.8}, {0, 1}} // unit length, in input order
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b float32) bool { return math.Abs(float64(a-b)) < 1e-6 })); diff != "" {
		t.Errorf("vectors (-want +got):\n%s", diff)
	}
	rs := reqs()
	if len(rs) != 2 {
		t.Fatalf("%d requests, want 2 (one retry after 503)", len(rs))
	}
	r := rs[1]
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" || r.Header.Get("Authorization") != "Bearer key-embed-secret" ||
		r.Header.Get("Content-Type") != "application/json" {
		t.Errorf("request %s %s %v", r.Method, r.URL.Path, r.Header)
	}
	var body map[string]any
	if err := json.Unmarshal(bodies()[1], &body); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"model": "text-embedding-3-small", "input": []any{"alpha", "beta"}}, body); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
	if _, err := emb.Embed(context.Background(), []string{"beta"}); err != nil || len(reqs()) != 2 {
		t.Errorf("cached vector fetched again: %v, %d requests", err, len(reqs()))
	}
}

func TestEmbedderErrors(t *testing.T) {
	t.Parallel()
	srv, reqs, _ := embedServer(t, nil, http.StatusUnauthorized)
	_, err := NewEmbedder(openDB(t), srv.URL+"/v1", "key-embed-secret", "e").Embed(context.Background(), []string{"a"})
	if llm.StatusOf(err) != http.StatusUnauthorized || strings.Contains(err.Error(), "key-embed-secret") ||
		!strings.HasPrefix(err.Error(), "embeddings: http 401") {
		t.Errorf("err = %v", err)
	}
	if len(reqs()) != 1 {
		t.Errorf("401 retried: %d requests", len(reqs()))
	}
	srv, _, _ = embedServer(t, [][]float64{{1}})
	_, err = NewEmbedder(openDB(t), srv.URL+"/v1", "k", "e").Embed(context.Background(), []string{"a", "b"})
	if err == nil || !strings.Contains(err.Error(), "asked for 2 vectors, got 1") {
		t.Errorf("short answer: err = %v", err)
	}
}

func openDB(t testing.TB) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "metaclaw.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
