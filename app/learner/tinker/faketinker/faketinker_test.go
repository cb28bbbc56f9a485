package faketinker_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/metaclaw/metaclaw/app/learner/tinker/faketinker"
)

// raw is a bare HTTP client for the fake, so these tests check the wire
// format without the tinker client.
type raw struct {
	t   *testing.T
	s   *faketinker.Server
	key string
}

func newRaw(t *testing.T, opts faketinker.Options) *raw {
	t.Helper()
	if opts.LongPoll == 0 {
		opts.LongPoll = 20 * time.Millisecond
	}
	s := faketinker.New(opts)
	t.Cleanup(s.Close)
	return &raw{t: t, s: s, key: s.APIKey()}
}

var keySeq atomic.Int64

// post sends body with an idempotency key and returns status and JSON.
func (r *raw) post(endpoint, idem string, body any) (int, map[string]any) {
	r.t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, r.s.URL()+"/api/v1/"+endpoint, bytes.NewReader(b))
	req.Header.Set("X-API-Key", r.key)
	req.Header.Set("Content-Type", "application/json")
	if idem == "" { // a fresh key; it also lets net/http retry on a stale pooled connection
		idem = fmt.Sprintf("auto-%d", keySeq.Add(1))
	}
	req.Header.Set("X-Idempotency-Key", idem)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatalf("post %s: %v", endpoint, err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// must posts and fails the test on a non-200 answer.
func (r *raw) must(endpoint, idem string, body any) map[string]any {
	r.t.Helper()
	st, out := r.post(endpoint, idem, body)
	if st != http.StatusOK {
		r.t.Fatalf("%s: status %d: %v", endpoint, st, out)
	}
	return out
}

// poll polls a future once.
func (r *raw) poll(id string) (int, map[string]any) {
	r.t.Helper()
	return r.post("retrieve_future", "", map[string]any{"request_id": id, "allow_metadata_only": false})
}

// result polls until the future is done.
func (r *raw) result(id string) map[string]any {
	r.t.Helper()
	for range 200 {
		st, out := r.poll(id)
		if st == http.StatusOK && out["type"] != "try_again" {
			return out
		}
		if st != http.StatusOK && st != http.StatusRequestTimeout {
			r.t.Fatalf("poll %s: status %d: %v", id, st, out)
		}
	}
	r.t.Fatalf("future %s never completed", id)
	return nil
}

// model opens a session and a model and returns the model id.
func (r *raw) model() string {
	r.t.Helper()
	sess := r.must("create_session", "", map[string]any{"type": "create_session", "tags": []string{"t"}, "sdk_version": "0.22.0"})
	out := r.must("create_model", "", map[string]any{"type": "create_model", "session_id": sess["session_id"], "model_seq_id": 0,
		"base_model": "Qwen/Qwen3-8B", "lora_config": map[string]any{"rank": 8, "train_mlp": true}})
	return r.result(out["request_id"].(string))["model_id"].(string)
}

func optim(model string, seq int, lr float64) map[string]any {
	return map[string]any{"type": "optim_step", "model_id": model, "seq_id": seq,
		"adam_params": map[string]any{"learning_rate": lr, "beta1": 0.9, "beta2": 0.95, "eps": 1e-8}}
}

func TestAuth(t *testing.T) {
	t.Parallel()
	r := newRaw(t, faketinker.Options{APIKey: "tml-right"})
	r.key = "tml-wrong"
	if st, _ := r.post("create_session", "", map[string]any{"type": "create_session"}); st != http.StatusUnauthorized {
		t.Fatalf("wrong key: status %d, want 401", st)
	}
	resp, err := http.Get(r.s.URL() + "/api/v1/healthz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("healthz without a key: %v %v", resp, err)
	}
	resp.Body.Close()
}

// TestOrderingEnforced shows that a request sent with a gap waits for its
// predecessor, and requests then run in seq_id order.
func TestOrderingEnforced(t *testing.T) {
	t.Parallel()
	r := newRaw(t, faketinker.Options{})
	m := r.model()
	second := r.must("optim_step", "", optim(m, 2, 0.2))["request_id"].(string)
	if st, out := r.poll(second); st != http.StatusOK || out["type"] != "try_again" {
		t.Fatalf("seq 2 before seq 1: got %d %v, want try_again", st, out)
	}
	if ms, _ := r.s.Model(m); ms.Steps != 0 || ms.NextSeqID != 1 {
		t.Fatalf("seq 2 ran early: %+v", ms)
	}
	first := r.must("optim_step", "", optim(m, 1, 0.1))["request_id"].(string)
	r.result(first)
	r.result(second)
	ms, _ := r.s.Model(m)
	var lrs []float64
	for _, a := range ms.Adam {
		lrs = append(lrs, a.LearningRate)
	}
	if diff := cmp.Diff([]float64{0.1, 0.2}, lrs); diff != "" || ms.Steps != 2 || ms.NextSeqID != 3 {
		t.Fatalf("execution order (-want +got):\n%s\nstate %+v", diff, ms)
	}
}

func TestDuplicateSeqIDs(t *testing.T) {
	t.Parallel()
	r := newRaw(t, faketinker.Options{})
	m := r.model()
	a := r.must("optim_step", "key-1", optim(m, 1, 0.1))["request_id"]
	if b := r.must("optim_step", "key-1", optim(m, 1, 0.1))["request_id"]; b != a {
		t.Errorf("same idempotency key: future %v, want %v", b, a)
	}
	if b := r.must("optim_step", "key-2", optim(m, 1, 0.1))["request_id"]; b != a {
		t.Errorf("same content, new key: future %v, want %v", b, a)
	}
	if st, out := r.post("optim_step", "key-3", optim(m, 1, 0.5)); st != http.StatusBadRequest {
		t.Errorf("different content under seq 1: status %d %v, want 400", st, out)
	}
	if st, _ := r.post("optim_step", "key-1", optim(m, 1, 0.5)); st != http.StatusBadRequest {
		t.Errorf("idempotency key reused for another body: status %d, want 400", st)
	}
	if r.s.Steps(m) != 1 {
		t.Errorf("steps = %d, want 1", r.s.Steps(m))
	}
}

func TestTryAgain408AndExpiry(t *testing.T) {
	t.Parallel()
	r := newRaw(t, faketinker.Options{})
	m := r.model()
	r.s.SetTryAgain(2, true)
	id := r.must("optim_step", "", optim(m, 1, 0.1))["request_id"].(string)
	for i := range 2 {
		if st, out := r.poll(id); st != http.StatusRequestTimeout || out["type"] != "try_again" {
			t.Fatalf("poll %d: %d %v, want 408 try_again", i, st, out)
		}
	}
	if out := r.result(id); out["metrics"] == nil {
		t.Fatalf("result: %v", out)
	}
	r.s.SetTryAgain(0, false)
	r.s.ExpireNext("optim_step", 1)
	body := optim(m, 2, 0.1)
	old := r.must("optim_step", "k1", body)["request_id"].(string)
	if st, _ := r.poll(old); st != http.StatusGone {
		t.Fatalf("expired future: status %d, want 410", st)
	}
	renewed := r.must("optim_step", "k2", body)["request_id"].(string)
	if renewed == old {
		t.Fatal("resubmission after 410 got the expired future again")
	}
	r.result(renewed)
	if r.s.Steps(m) != 2 {
		t.Fatalf("steps = %d, want 2 (the resubmission must not run twice)", r.s.Steps(m))
	}
}

func TestFaultsAndDown(t *testing.T) {
	t.Parallel()
	r := newRaw(t, faketinker.Options{})
	r.s.FailNext("create_session", 1, faketinker.RateLimited("2"))
	r.s.FailNext("create_session", 1, faketinker.EmptyBadRequest())
	body := map[string]any{"type": "create_session"}
	if st, _ := r.post("create_session", "", body); st != http.StatusTooManyRequests {
		t.Fatalf("first: %d, want 429", st)
	}
	if st, out := r.post("create_session", "", body); st != http.StatusBadRequest || out != nil {
		t.Fatalf("second: %d %v, want an empty 400", st, out)
	}
	r.must("create_session", "", body)
	_ = r.s.SetDown(faketinker.Down503)
	if st, _ := r.post("create_session", "", body); st != http.StatusServiceUnavailable {
		t.Fatalf("down 503: %d", st)
	}
	_ = r.s.SetDown(faketinker.DownRefuse)
	fresh := &http.Client{Transport: &http.Transport{}} // no pooled connection from before
	_, err := fresh.Get(r.s.URL() + "/api/v1/healthz")
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("down refuse: err %v, want connection refused", err)
	}
	if err := r.s.SetDown(faketinker.Up); err != nil {
		t.Fatal(err)
	}
	r.must("create_session", "", body)
}
