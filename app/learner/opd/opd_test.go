package opd_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/metaclaw/metaclaw/app/learner/opd"
)

func f(v float64) *float64 { return &v }

// vocab is the test tokenizer's text of a token id.
func vocab(id int) string { return fmt.Sprintf(" w%d", id) }

func TestAlign(t *testing.T) {
	t.Parallel()
	seq := []int{10, 11, 12}
	nan := math.NaN()
	tests := []struct {
		name    string
		echo    opd.Echo
		want    []float64
		wantErr string
	}{
		{"texts match", opd.Echo{Tokens: []string{" w10", " w11", " w12"}, TokenLogprobs: []*float64{nil, f(-1), f(-2)}},
			[]float64{nan, -1, -2}, ""},
		{"one generated token after", opd.Echo{Tokens: []string{" w10", " w11", " w12", " x"}, TokenLogprobs: []*float64{nil, f(-1), f(-2), f(-3)}},
			[]float64{nan, -1, -2}, ""},
		{"token ids match", opd.Echo{Tokens: []string{"token_id:10", "token_id:11", "token_id:12"}, TokenLogprobs: []*float64{nil, f(-1), f(-2)}},
			[]float64{nan, -1, -2}, ""},
		{"no tokens named", opd.Echo{TokenLogprobs: []*float64{nil, f(-1), f(-2)}}, []float64{nan, -1, -2}, ""},
		{"split character not compared", opd.Echo{Tokens: []string{" w10", "\xe2\x80", " w12"}, TokenLogprobs: []*float64{nil, f(-1), f(-2)}},
			[]float64{nan, -1, -2}, ""},
		{"other tokenizer", opd.Echo{Tokens: []string{" w10", " hello", " w12"}, TokenLogprobs: []*float64{nil, f(-1), f(-2)}},
			nil, `token 1: policy token 11 is " w11", teacher token is " hello"`},
		{"other ids", opd.Echo{Tokens: []string{"token_id:10", "token_id:99", "token_id:12"}, TokenLogprobs: []*float64{nil, f(-1), f(-2)}},
			nil, "token 1: policy sent id 11, teacher read id 99"},
		{"re-tokenised: too many", opd.Echo{TokenLogprobs: []*float64{nil, f(-1), f(-2), f(-3), f(-4)}}, nil, "5 log-probs for 3 tokens"},
		{"too few", opd.Echo{TokenLogprobs: []*float64{nil, f(-1)}}, nil, "2 log-probs for 3 tokens"},
		{"tokens and logprobs differ", opd.Echo{Tokens: []string{" w10"}, TokenLogprobs: []*float64{nil, f(-1), f(-2)}}, nil, "1 tokens but 3 log-probs"},
		{"missing logprob", opd.Echo{TokenLogprobs: []*float64{nil, nil, f(-2)}}, nil, "no usable log-prob for token 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := opd.Align(seq, tt.echo, vocab)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Align error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateNaNs()); diff != "" {
				t.Errorf("Align (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPenalize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                  string
		adv, student, teacher []float64
		coef                  float64
		want                  []float64
	}{
		{"teacher agrees", []float64{0.5, 0.5}, []float64{-1, -2}, []float64{-1, -2}, 1, []float64{0.5, 0.5}},
		// student −1 vs teacher −3: the student over-rates the token by 2 nats → −0.5×2.
		{"student over-confident", []float64{1, 1}, []float64{-1, -0.5}, []float64{-3, -0.5}, 0.5, []float64{0, 1}},
		// teacher likes the token more than the student: the advantage rises.
		{"teacher prefers it", []float64{0, -1}, []float64{-4, -2}, []float64{-1, -1}, 1, []float64{3, 0}},
		{"coefficient zero", []float64{0.25}, []float64{-9}, []float64{-1}, 0, []float64{0.25}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := opd.Penalize(tt.adv, tt.student, tt.teacher, tt.coef)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("Penalize (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := opd.Penalize([]float64{1}, []float64{-1, -2}, []float64{-1}, 1); err == nil {
		t.Error("lengths differ: no error")
	}
	if _, err := opd.Penalize([]float64{1}, []float64{-1}, []float64{math.NaN()}, 1); err == nil {
		t.Error("NaN teacher log-prob: no error")
	}
}

// fakeTeacher is an OpenAI-compatible /v1/completions server that echoes
// token-id prompts with deterministic log-probs (−0.1 × id), naming each
// token by text through vocab unless misread maps it to another text.
type fakeTeacher struct {
	srv      *httptest.Server
	calls    atomic.Int32
	failures atomic.Int32 // answer 503 this many times first
	misread  map[int]string
	lastBody atomic.Value
}

func startTeacher(t *testing.T, misread map[int]string) *fakeTeacher {
	t.Helper()
	ft := &fakeTeacher{misread: misread}
	ft.srv = httptest.NewServer(http.HandlerFunc(ft.serve))
	t.Cleanup(ft.srv.Close)
	return ft
}

func (ft *fakeTeacher) serve(w http.ResponseWriter, r *http.Request) {
	ft.calls.Add(1)
	if r.URL.Path != "/v1/completions" || r.Header.Get("Authorization") != "Bearer sk-teacher" {
		http.Error(w, `{"error":{"message":"bad path or key"}}`, http.StatusNotFound)
		return
	}
	if ft.failures.Add(-1) >= 0 {
		http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusServiceUnavailable)
		return
	}
	var req struct {
		Prompt []int `json:"prompt"`
		Echo   bool  `json:"echo"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || !req.Echo {
		http.Error(w, `{"error":{"message":"want echo and a token-id prompt"}}`, http.StatusBadRequest)
		return
	}
	ft.lastBody.Store(req.Prompt)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "text_completion",
		"choices": []any{map[string]any{"index": 0, "text": "", "logprobs": ft.echo(req.Prompt)}}})
}

func (ft *fakeTeacher) echo(prompt []int) map[string]any {
	toks := make([]string, 0, len(prompt)+1)
	lps := make([]*float64, 0, len(prompt)+1)
	for i, id := range prompt {
		text := vocab(id)
		if m, ok := ft.misread[id]; ok {
			text = m
		}
		toks = append(toks, text)
		if i == 0 {
			lps = append(lps, nil)
		} else {
			lps = append(lps, f(-0.1*float64(id)))
		}
	}
	toks, lps = append(toks, " gen"), append(lps, f(-0.7)) // the one generated token
	return map[string]any{"tokens": toks, "token_logprobs": lps}
}

func newTeacher(t *testing.T, ft *fakeTeacher) *opd.Teacher {
	t.Helper()
	tc, err := opd.New(opd.Options{BaseURL: ft.srv.URL + "/v1/", Model: "teacher", APIKey: "sk-teacher", TokenText: vocab,
		Sleep: func(context.Context, time.Duration) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	return tc
}

func TestTeacherLogprobs(t *testing.T) {
	t.Parallel()
	ft := startTeacher(t, nil)
	ft.failures.Store(1)
	got, err := newTeacher(t, ft).Logprobs(context.Background(), []int{3, 5, 7})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]float64{math.NaN(), -0.5, -0.7}, got, cmpopts.EquateNaNs(), cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("Logprobs (-want +got):\n%s", diff)
	}
	if n := ft.calls.Load(); n != 2 {
		t.Errorf("teacher called %d times, want 2 (a 503, then the answer)", n)
	}
}

func TestTeacherWithOtherTokenizerIsRefused(t *testing.T) {
	t.Parallel()
	ft := startTeacher(t, map[int]string{5: "ĠHello"})
	_, err := newTeacher(t, ft).Logprobs(context.Background(), []int{3, 5, 7})
	if !errors.Is(err, opd.ErrMisaligned) || !strings.Contains(err.Error(), `token 1: policy token 5 is " w5", teacher token is "ĠHello"`) {
		t.Fatalf("misaligned teacher: %v; want ErrMisaligned naming token 1", err)
	}
}

func TestTeacherErrors(t *testing.T) {
	t.Parallel()
	ft := startTeacher(t, nil)
	ft.failures.Store(10)
	if _, err := newTeacher(t, ft).Logprobs(context.Background(), []int{1, 2}); err == nil || !strings.Contains(err.Error(), "http 503") {
		t.Errorf("teacher down: %v, want an http 503 error", err)
	}
	if n := ft.calls.Load(); n != opd.DefaultAttempts {
		t.Errorf("teacher called %d times, want %d attempts", n, opd.DefaultAttempts)
	}
	if _, err := opd.New(opd.Options{Model: "m"}); err == nil {
		t.Error("no URL: no error")
	}
	if _, err := opd.New(opd.Options{BaseURL: "http://x/v1"}); err == nil {
		t.Error("no model: no error")
	}
}

// FuzzAlign feeds Align arbitrary teacher answers: it must never panic, and
// what it accepts has one log-prob per token.
func FuzzAlign(f *testing.F) {
	f.Add([]byte(`{"tokens":[" w1"," w2"],"token_logprobs":[null,-0.5]}`), 2)
	f.Add([]byte(`{"tokens":["token_id:1","token_id:9"],"token_logprobs":[null,-1,-2]}`), 2)
	f.Add([]byte(`{"token_logprobs":[null,1e309]}`), 2)
	f.Fuzz(func(t *testing.T, answer []byte, n int) {
		var echo opd.Echo
		if json.Unmarshal(answer, &echo) != nil || n < 0 || n > 64 {
			return
		}
		seq := make([]int, n)
		for i := range seq {
			seq[i] = i + 1
		}
		got, err := opd.Align(seq, echo, vocab)
		if err == nil && len(got) != n {
			t.Fatalf("Align accepted %d log-probs for %d tokens", len(got), n)
		}
	})
}
