package skills

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/metaclaw/metaclaw/app/learner/llm"
	"github.com/metaclaw/metaclaw/assets"
	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
)

func TestEmbeddingAndHybridRetrieval(t *testing.T) {
	t.Parallel()
	up := fakeupstream.New()
	base, err := up.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	up.SetEmbeddingDim(4096) // the fake hashes words into dimensions: fewer collisions
	db := openDB(t)
	ctx := context.Background()
	if _, err := InstallStarter(ctx, db, assets.Skills()); err != nil {
		t.Fatal(err)
	}
	emb := NewEmbedder(db, base+"/v1", "k", "fake-embed")
	for _, mode := range []string{ModeEmbedding, ModeHybrid} {
		opts := Options{Mode: mode, TopK: 3, Candidates: 10, GeneralTopK: 1, MaxTokens: 1500, MinBM25: DefaultMinBM25, MinCosine: 0.2}
		r := NewRetriever(db, opts, emb)
		sel, err := r.Select(ctx, []Message{{Role: "user", Text: "write a git commit message for my change"}})
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if len(sel.Skills) == 0 || !strings.Contains(strings.Join(sel.IDs, " "), "commit") {
			t.Errorf("%s: selected %v", mode, sel.IDs)
		}
		if sel.Tokens > 1500 {
			t.Errorf("%s: %d tokens over budget", mode, sel.Tokens)
		}
	}
	calls := len(up.Requests())
	r := NewRetriever(db, Options{Mode: ModeEmbedding, TopK: 3, Candidates: 10, MinCosine: 0.2}, emb)
	if _, err := r.Select(ctx, []Message{{Role: "user", Text: "write a git commit message for my change"}}); err != nil {
		t.Fatal(err)
	}
	if got := len(up.Requests()); got != calls {
		t.Errorf("cached vectors were fetched again: %d new calls", got-calls)
	}
	// Hybrid survives an embeddings outage by falling back to keywords.
	up.Close()
	r = NewRetriever(db, Options{Mode: ModeHybrid, TopK: 3, Candidates: 10, MinBM25: DefaultMinBM25, MinCosine: 0.2}, NewEmbedder(db, base+"/v1", "k", "other-model"))
	sel, err := r.Select(ctx, []Message{{Role: "user", Text: "my pytest test fails"}})
	if err != nil || len(sel.Skills) == 0 {
		t.Errorf("hybrid with embeddings down: %v, %v", sel.IDs, err)
	}
}

func TestBudgetAndLimits(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	ctx := context.Background()
	InstallStarter(ctx, db, assets.Skills())
	q := []Message{{Role: "user", Text: "debug the failing pytest test, then write the commit message, review the code and upgrade dependencies"}}
	r := NewRetriever(db, Options{Mode: ModeKeyword, TopK: 6, Candidates: 10, GeneralTopK: 2, MaxTokens: 400, MinBM25: DefaultMinBM25}, nil)
	sel, _ := r.Select(ctx, q)
	if sel.Tokens > 400 || len(sel.Skills) == 0 {
		t.Errorf("budget 400: %d tokens, %d skills", sel.Tokens, len(sel.Skills))
	}
	r = NewRetriever(db, Options{Mode: ModeKeyword, TopK: 2, Candidates: 10, GeneralTopK: 0, MinBM25: DefaultMinBM25}, nil)
	sel, _ = r.Select(ctx, q)
	if len(sel.Skills) > 2 {
		t.Errorf("top_k 2 gave %d skills", len(sel.Skills))
	}
	for _, s := range sel.Skills {
		if s.Category == "general" {
			t.Errorf("general_top_k 0 let %s in", s.Name)
		}
	}
	if !strings.HasPrefix(sel.Text, "# Skills") || !strings.Contains(sel.Text, "## "+sel.Skills[0].Name) {
		t.Errorf("rendered text:\n%s", sel.Text)
	}
}

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
