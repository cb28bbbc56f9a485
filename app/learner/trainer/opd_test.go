package trainer_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/metaclaw/metaclaw/app/learner/opd"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// startTeacher is an OpenAI-compatible /v1/completions teacher that echoes
// token-id prompts: token n reads " w<n>" (the policy's text, unless
// renamed) and has log-prob −n/1000; one generated token follows.
func startTeacher(t *testing.T, renamed map[int]string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model  string `json:"model"`
			Prompt []int  `json:"prompt"`
			Echo   bool   `json:"echo"`
		}
		if r.URL.Path != "/v1/completions" || r.Header.Get("Authorization") != "Bearer sk-teach" ||
			json.NewDecoder(r.Body).Decode(&req) != nil || !req.Echo || req.Model != "teacher-32b" {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		var toks []string
		var lps []*float64
		for i, id := range req.Prompt {
			text := fmt.Sprintf(" w%d", id)
			if r, ok := renamed[id]; ok {
				text = r
			}
			toks = append(toks, text)
			lp := -float64(id) / 1000
			if i == 0 {
				lps = append(lps, nil)
			} else {
				lps = append(lps, &lp)
			}
		}
		gen := -0.5
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"text": "",
			"logprobs": map[string]any{"tokens": append(toks, " x"), "token_logprobs": append(lps, &gen)}}}})
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

func opdEnv(t *testing.T, renamed map[int]string) *env {
	teacher := startTeacher(t, renamed)
	return newEnv(t, func(c *config.Config) {
		c.RL.GroupSize, c.RL.AdvantageStd = 1, true
		c.OPD = config.OPD{Enabled: true, TeacherURL: teacher, TeacherModel: "teacher-32b", TeacherAPIKey: "sk-teach", KLPenaltyCoef: 0.5}
	})
}

func TestOPDChangesAdvantages(t *testing.T) {
	t.Parallel()
	e := opdEnv(t, nil)
	// Batch-normalised rewards 1 and -1: advantages +1 and -1.
	good := e.serve([]int{1, 2}, []int{300, 400, eos}, ptr(1))
	bad := e.serve([]int{1, 3}, []int{500, eos}, ptr(-1))
	if _, err := e.trainer().TrainStep(context.Background()); err != nil {
		t.Fatal(err)
	}
	run := runOf(t, e)
	ds := e.datumsOf(run.ModelID)
	if len(ds) != 2 {
		t.Fatalf("%d datums, want 2", len(ds))
	}
	for _, tc := range []struct {
		s   store.Sample
		adv float64
	}{{good, 1}, {bad, -1}} {
		// Each sampled token: adv − 0.5 × (student − teacher), the
		// teacher's log-prob of token n being −n/1000.
		want := make([]float64, len(tc.s.SampledTokens))
		for j, tok := range tc.s.SampledTokens {
			want[j] = tc.adv - 0.5*(tc.s.SampledLogprobs[j]-(-float64(tok)/1000))
		}
		var found bool
		for _, d := range ds {
			if d.ModelInput[1] == tc.s.PromptTokens[1] {
				found = true
				checkDatum(t, d, tc.s, want)
			}
		}
		if !found {
			t.Errorf("no datum for sample %d", tc.s.ID)
		}
	}
}

func TestOPDRefusesAMisalignedTeacher(t *testing.T) {
	t.Parallel()
	e := opdEnv(t, map[int]string{400: "Ġfoo"}) // the teacher's tokenizer reads token 400 otherwise
	a := e.serve([]int{1, 2}, []int{300, 400, eos}, ptr(1))
	b := e.serve([]int{1, 3}, []int{500, eos}, ptr(-1))
	st, err := e.trainer().TrainStep(context.Background())
	if !errors.Is(err, opd.ErrMisaligned) || !strings.Contains(err.Error(), `policy token 400 is " w400", teacher token is "Ġfoo"`) {
		t.Fatalf("TrainStep with a misaligned teacher = %v; want ErrMisaligned naming token 400", err)
	}
	if n := len(e.fake.RequestsTo("forward_backward")); n != 0 {
		t.Errorf("%d forward_backward sent with a misaligned teacher", n)
	}
	for _, s := range []store.Sample{a, b} {
		if got := e.sample(s.ID); got.Status != store.SampleWaiting {
			t.Errorf("sample %d is %s, want still waiting", s.ID, got.Status)
		}
	}
	rec, _ := e.db.StepByID(context.Background(), st.ID)
	if rec.Status != store.StepFailed || !strings.Contains(rec.Error, "teacher token") {
		t.Errorf("recorded step = %s %q; want failed with the teacher's mismatch", rec.Status, rec.Error)
	}
}
