package tinker_test

import (
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/metaclaw/metaclaw/app/learner/tinker"
	"github.com/metaclaw/metaclaw/app/learner/tinker/faketinker"
)

var prompt = []int{11, 12, 13, 14}

// reference samples prompt from a clean fake: the tokens every faulty run
// must still produce.
func reference(t *testing.T) tinker.SampleResult {
	t.Helper()
	e := newEnv(t, faketinker.Options{}, nil)
	ss, err := e.c.CreateSamplingSession(ctxT(t), baseModel, "")
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.c.Sample(ctxT(t), ss, prompt, tinker.DefaultSamplingParams(32), 2)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestSampleFaults injects faults into asample and retrieve_future and
// checks the client's answer: same result, the same seq_id on every
// resubmission, the waits it asked for, and a sequence without holes.
func TestSampleFaults(t *testing.T) {
	t.Parallel()
	want := reference(t)
	tests := []struct {
		name       string
		setup      func(e *env)
		wantSeqs   []int // seq_ids of the asample requests
		wantSleeps []time.Duration
		sameKey    bool // all asample requests share one idempotency key
		wantStatus int  // of the error, 0 = success
	}{
		{name: "clean", wantSeqs: []int{0}, sameKey: true},
		{name: "try_again polls", setup: func(e *env) { e.srv.SetTryAgain(3, false) }, wantSeqs: []int{0}, sameKey: true},
		{name: "408 polls", setup: func(e *env) { e.srv.SetTryAgain(3, true) }, wantSeqs: []int{0}, sameKey: true},
		{name: "410 resubmits", setup: func(e *env) { e.srv.ExpireNext("asample", 1) }, wantSeqs: []int{0, 0}},
		{name: "429 pauses 1 s", setup: func(e *env) { e.srv.FailNext("asample", 1, faketinker.RateLimited("0")) },
			wantSeqs: []int{0, 0}, wantSleeps: []time.Duration{time.Second}, sameKey: true},
		{name: "5xx on submit", setup: func(e *env) { e.srv.FailNext("asample", 2, faketinker.ServerError(500)) },
			wantSeqs: []int{0, 0, 0}, wantSleeps: []time.Duration{500 * time.Millisecond, time.Second}, sameKey: true},
		{name: "5xx polls re-poll at once", setup: func(e *env) { e.srv.FailNext("retrieve_future", 3, faketinker.ServerError(503)) },
			wantSeqs: []int{0}, sameKey: true},
		{name: "429 polls back off", setup: func(e *env) { e.srv.FailNext("retrieve_future", 2, faketinker.RateLimited("0")) },
			wantSeqs: []int{0}, wantSleeps: []time.Duration{time.Second, 2 * time.Second}, sameKey: true},
		{name: "402 polls pause", setup: func(e *env) { e.srv.FailNext("retrieve_future", 1, faketinker.Fault{Status: 402}) },
			wantSeqs: []int{0}, wantSleeps: []time.Duration{5 * time.Second}, sameKey: true},
		{name: "400 polls retried 3 times", setup: func(e *env) {
			e.srv.FailNext("retrieve_future", 3, faketinker.Fault{Status: 400, Body: `{"detail":"x"}`})
		}, wantSeqs: []int{0}, sameKey: true},
		{name: "a 4th 400 poll fails", setup: func(e *env) {
			e.srv.FailNext("retrieve_future", 4, faketinker.Fault{Status: 400, Body: `{"detail":"x"}`})
		}, wantSeqs: []int{0}, sameKey: true, wantStatus: 400},
		{name: "connection refused", setup: func(e *env) {
			_ = e.srv.SetDown(faketinker.DownRefuse)
			e.clk.onWait = func(time.Duration) { _ = e.srv.SetDown(faketinker.Up) }
		}, wantSeqs: []int{0}, wantSleeps: []time.Duration{500 * time.Millisecond}, sameKey: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, faketinker.Options{}, nil)
			ss, err := e.c.CreateSamplingSession(ctxT(t), baseModel, "")
			if err != nil {
				t.Fatal(err)
			}
			if tc.setup != nil {
				tc.setup(e)
			}
			res, err := e.c.Sample(ctxT(t), ss, prompt, tinker.DefaultSamplingParams(32), 2)
			checkSampleOutcome(t, e, res, err, want, tc.wantStatus)
			asamples := e.srv.RequestsTo("asample")
			if diff := cmp.Diff(tc.wantSeqs, seqIDs(asamples)); diff != "" {
				t.Errorf("asample seq_ids (-want +got):\n%s", diff)
			}
			checkAsampleHeaders(t, asamples, tc.sameKey)
			if diff := cmp.Diff(tc.wantSleeps, e.clk.Sleeps()); diff != "" {
				t.Errorf("sleeps (-want +got):\n%s", diff)
			}
			e.clk.onWait = nil
			next, err := e.c.Sample(ctxT(t), ss, prompt, tinker.DefaultSamplingParams(32), 1)
			if err != nil || next.SeqID != 1 {
				t.Errorf("next sample: seq %d, %v; want seq 1 (no hole)", next.SeqID, err)
			}
		})
	}
}

func checkSampleOutcome(t *testing.T, e *env, res tinker.SampleResult, err error, want tinker.SampleResult, status int) {
	t.Helper()
	if status != 0 {
		if statusOf(err) != status {
			t.Fatalf("error %v, want status %d", err, status)
		}
		return
	}
	if err != nil {
		t.Fatalf("sample: %v", err)
	}
	if diff := cmp.Diff(want, res, cmp.Comparer(func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) })); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	if n := len(e.srv.Samples()); n != 1 {
		t.Errorf("the fake served %d samples, want 1 (no double execution)", n)
	}
}

func checkAsampleHeaders(t *testing.T, reqs []faketinker.Request, sameKey bool) {
	t.Helper()
	keys := map[string]bool{}
	for _, r := range reqs {
		keys[r.IdempotencyKey] = true
		if !r.Backpressure {
			t.Errorf("asample without X-Tinker-Sampling-Backpressure: 1")
		}
	}
	if sameKey && len(keys) != 1 {
		t.Errorf("%d idempotency keys across %d asample requests, want 1", len(keys), len(reqs))
	}
}

// TestPollHeaders checks the X-Tinker-* headers of the polls.
func TestPollHeaders(t *testing.T) {
	t.Parallel()
	e := newEnv(t, faketinker.Options{TryAgainPolls: 2}, nil)
	ss, err := e.c.CreateSamplingSession(ctxT(t), baseModel, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Sample(ctxT(t), ss, prompt, tinker.DefaultSamplingParams(8), 1); err != nil {
		t.Fatal(err)
	}
	var iters []string
	for i, r := range e.srv.RequestsTo("retrieve_future") {
		iters = append(iters, r.Iteration)
		if r.RequestType != "Sample" {
			t.Errorf("poll %d: request type %q", i, r.RequestType)
		}
		if (r.RoundtripTime != "") != (i == 0) {
			t.Errorf("poll %d: roundtrip header %q (only the first poll carries it)", i, r.RoundtripTime)
		}
	}
	if diff := cmp.Diff([]string{"0", "1", "2"}, iters); diff != "" {
		t.Errorf("iterations (-want +got):\n%s", diff)
	}
}

func TestBigPromptPausesFiveSeconds(t *testing.T) {
	t.Parallel()
	e := newEnv(t, faketinker.Options{}, nil)
	ss, err := e.c.CreateSamplingSession(ctxT(t), baseModel, "")
	if err != nil {
		t.Fatal(err)
	}
	big := make([]int, 30000)
	for i := range big {
		big[i] = 100000 + i
	}
	e.srv.FailNext("asample", 1, faketinker.RateLimited("0"))
	if _, err := e.c.Sample(ctxT(t), ss, big, tinker.DefaultSamplingParams(4), 1); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]time.Duration{5 * time.Second}, e.clk.Sleeps()); diff != "" {
		t.Errorf("sleeps (-want +got):\n%s", diff)
	}
}

// TestConcurrentSampling runs many samples at once: each gets its own
// seq_id, and no more than sample_max_concurrent_requests are in flight.
func TestConcurrentSampling(t *testing.T) {
	t.Parallel()
	e := newEnv(t, faketinker.Options{SampleDelay: 15 * time.Millisecond,
		Flags: map[string]any{"sample_max_concurrent_requests": 3}}, nil)
	ss, err := e.c.CreateSamplingSession(ctxT(t), baseModel, "")
	if err != nil {
		t.Fatal(err)
	}
	const n = 12
	var mu sync.Mutex
	var got []int
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			res, err := e.c.Sample(ctxT(t), ss, []int{i + 1}, tinker.DefaultSamplingParams(8), 1)
			if err != nil {
				t.Errorf("sample %d: %v", i, err)
				return
			}
			mu.Lock()
			got = append(got, res.SeqID)
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.Sort(got)
	want := make([]int, n)
	for i := range want {
		want[i] = i
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("seq ids (-want +got):\n%s", diff)
	}
	if m := e.srv.MaxSamplesInFlight(); m < 1 || m > 3 {
		t.Errorf("max samples in flight = %d, want 1..3", m)
	}
}

// TestSamplingParamsOnTheWire checks what the sampler receives and the
// prompt logprobs.
func TestSamplingParamsOnTheWire(t *testing.T) {
	t.Parallel()
	e := newEnv(t, faketinker.Options{}, nil)
	ss, err := e.c.CreateSamplingSession(ctxT(t), baseModel, "")
	if err != nil {
		t.Fatal(err)
	}
	seed := int64(42)
	p := tinker.SamplingParams{MaxTokens: 5, Seed: &seed, StopTokens: []int{151645}, Temperature: 0.7, PromptLogprobs: true}
	res, err := e.c.Sample(ctxT(t), ss, prompt, p, 1)
	if err != nil {
		t.Fatal(err)
	}
	got := e.srv.Samples()[0].SampleRequest
	want := faketinker.SampleRequest{SamplingSessionID: ss.ID, SeqID: 0, BaseModel: baseModel, Prompt: prompt,
		NumSamples: 1, MaxTokens: 5, StopTokens: []int{151645}, Seed: &seed, Temperature: 0.7, PromptLogprobs: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
	seq := res.Sequences[0]
	if len(seq.Tokens) == 0 || len(seq.Tokens) > 5 || len(seq.Logprobs) != len(seq.Tokens) {
		t.Errorf("sequence %+v", seq)
	}
	if len(res.PromptLogprobs) != len(prompt) || !math.IsNaN(res.PromptLogprobs[0]) || res.PromptLogprobs[1] >= 0 {
		t.Errorf("prompt logprobs %v", res.PromptLogprobs)
	}
}
