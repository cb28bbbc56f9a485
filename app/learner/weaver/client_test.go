package weaver_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/metaclaw/metaclaw/app/learner/tinker"
	"github.com/metaclaw/metaclaw/app/learner/weaver"
	"github.com/metaclaw/metaclaw/app/learner/weaver/fakeweaver"
	"github.com/metaclaw/metaclaw/store/testutil"
)

func newClient(t *testing.T, fake *fakeweaver.Server, key string) *weaver.Client {
	t.Helper()
	c, err := weaver.New(weaver.Options{BaseURL: fake.URL(), APIKey: key, PollInterval: time.Millisecond,
		HeartbeatInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func started(t *testing.T, opts fakeweaver.Options) (*fakeweaver.Server, *weaver.Client) {
	t.Helper()
	fake := fakeweaver.New(opts)
	t.Cleanup(fake.Close)
	c := newClient(t, fake, fake.APIKey())
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return fake, c
}

// TestTrainingRoundTrip runs one RL step the way the trainer does and
// serves the result, checking what the fake service received.
func TestTrainingRoundTrip(t *testing.T) {
	t.Parallel()
	fake, c := started(t, fakeweaver.Options{PendingPolls: 3})
	ctx := context.Background()
	m, err := c.CreateModel(ctx, "Qwen/Qwen3-8B", tinker.LoRAConfig{Rank: 8})
	if err != nil {
		t.Fatal(err)
	}
	d, err := tinker.RLDatum([]int{11, 12, 13}, []int{21, 22}, []float64{-0.5, -0.25}, []float64{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	fb, err := c.ForwardBackward(ctx, m, []tinker.Datum{d}, tinker.LossPPO, map[string]float64{"clip_low_threshold": 0.8})
	if err != nil {
		t.Fatal(err)
	}
	if len(fb.Outputs) != 1 || len(fb.Outputs[0]["logprobs"].Data) != 4 || fb.Metrics["loss:sum"] <= 0 {
		t.Fatalf("forward_backward = %+v", fb)
	}
	got := fake.Datums()
	want := []fakeweaver.RecordedDatum{{ModelID: m.ID, SeqID: 1, LossFn: "ppo", LossFnConfig: map[string]float64{"clip_low_threshold": 0.8},
		ModelInput: []int{11, 12, 13, 21}, Inputs: map[string][]float64{"target_tokens": {12, 13, 21, 22},
			"logprobs": {0, 0, -0.5, -0.25}, "advantages": {0, 0, 1, 1}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("datums the service received (-want +got):\n%s", diff)
	}
	if _, err := c.OptimStep(ctx, m, tinker.DefaultAdamParams()); err != nil || fake.Steps(m.ID) != 1 {
		t.Fatalf("optim_step: %v, steps %d", err, fake.Steps(m.ID))
	}
	sampler, err := c.SaveWeightsForSampler(ctx, m, "step-000001")
	if err != nil || sampler != "weaver://"+m.ID+"/sampler/step-000001" {
		t.Fatalf("sampler weights %q, %v", sampler, err)
	}
	state, err := c.SaveWeights(ctx, m, "step-000001")
	if err != nil || state != "weaver://"+m.ID+"/checkpoints/step-000001" {
		t.Fatalf("state %q, %v", state, err)
	}
	ss, err := c.CreateSamplingSession(ctx, m.BaseModel, sampler) // behind a sync operation
	if err != nil {
		t.Fatal(err)
	}
	seed := int64(7)
	p := tinker.DefaultSamplingParams(16)
	p.StopTokens, p.Seed = []int{151645}, &seed
	res, err := c.Sample(ctx, ss, []int{11, 12}, p, 2)
	if err != nil || len(res.Sequences) != 2 || len(res.Sequences[0].Tokens) != len(res.Sequences[0].Logprobs) {
		t.Fatalf("sample %+v, %v", res, err)
	}
	sr := fake.Samples()[0]
	wantParams := map[string]any{"temperature": "1", "top_p": "1", "top_k": "-1", "max_tokens": "16", "seed": "7"}
	gotParams := map[string]any{}
	for k, v := range sr.Params {
		gotParams[k] = jsonText(v)
	}
	if sr.ModelPath != sampler || sr.NumSamples != 2 || !cmp.Equal(sr.Prompt, []int{11, 12}) || !cmp.Equal(wantParams, gotParams) {
		t.Errorf("sample request %+v params %v (stop tokens are not sent: Weaver's stop takes strings)", sr, gotParams)
	}
	m2, err := c.CreateModel(ctx, "Qwen/Qwen3-8B", tinker.LoRAConfig{Rank: 8})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.LoadWeights(ctx, m2, state, true); err != nil || fake.Steps(m2.ID) != 1 {
		t.Fatalf("load: %v, steps %d", err, fake.Steps(m2.ID))
	}
	info, err := c.GetInfo(ctx, m.ID)
	if err != nil || info.TokenizerID != "Qwen/Qwen3-8B" || info.ModelName != "Qwen/Qwen3-8B" {
		t.Errorf("get_info %+v, %v", info, err)
	}
}

func jsonText(v any) string {
	if s, ok := v.(interface{ String() string }); ok {
		return s.String()
	}
	return "?"
}

func TestErrors(t *testing.T) {
	t.Parallel()
	fake := fakeweaver.New(fakeweaver.Options{})
	t.Cleanup(fake.Close)
	ctx := context.Background()

	bad := newClient(t, fake, "sk-wrong-key")
	err := bad.Start(ctx)
	var ae *tinker.APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusUnauthorized || !strings.Contains(err.Error(), "weaver: create_session: http 401") ||
		!strings.Contains(err.Error(), "check rl.api_key") || strings.Contains(err.Error(), "sk-wrong-key") {
		t.Errorf("wrong key: %v", err)
	}

	c := newClient(t, fake, fake.APIKey())
	if _, err := c.CreateModel(ctx, "m", tinker.LoRAConfig{}); !errors.Is(err, tinker.ErrNotStarted) {
		t.Errorf("before Start: %v", err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	m, err := c.CreateModel(ctx, "Qwen/Qwen3-8B", tinker.LoRAConfig{Rank: 4})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := tinker.RLDatum([]int{1, 2}, []int{3}, []float64{-1}, []float64{1})

	fake.FailNextOperation("forward-backward-passes", 1)
	_, err = c.ForwardBackward(ctx, m, []tinker.Datum{d}, tinker.LossImportanceSampling, nil)
	var oe *weaver.OperationError
	if !errors.As(err, &oe) || oe.Code != "trainer_failed" || errors.Is(err, tinker.ErrSequenceBroken) {
		t.Errorf("failed operation: %v", err)
	}

	fake.FailNext("operations", 2, http.StatusBadGateway) // polls are retried
	if _, err := c.ForwardBackward(ctx, m, []tinker.Datum{d}, tinker.LossImportanceSampling, nil); err != nil {
		t.Errorf("transient poll failures: %v", err)
	}

	fake.FailNext("forward-backward-passes", 1, http.StatusServiceUnavailable)
	_, err = c.ForwardBackward(ctx, m, []tinker.Datum{d}, tinker.LossImportanceSampling, nil)
	if !errors.Is(err, tinker.ErrSequenceBroken) {
		t.Errorf("a 503 on an operation may have taken its seq_id: %v", err)
	}

	fake.FailNext("samples", 1, http.StatusServiceUnavailable)
	ss, err := c.CreateSamplingSession(ctx, "Qwen/Qwen3-8B", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Sample(ctx, ss, []int{1}, tinker.DefaultSamplingParams(4), 1); err == nil || errors.Is(err, tinker.ErrSequenceBroken) {
		t.Errorf("samples carry no seq_id, so a failed one breaks nothing: %v", err)
	}
	if _, err := c.CreateSamplingSession(ctx, "Qwen/Qwen3-8B", "tinker://x/y"); err == nil {
		t.Error("a tinker:// path was accepted")
	}
	if err := c.LoadWeights(ctx, m, "weaver://nothing/checkpoints/x", false); !errors.As(err, &ae) || ae.Status != http.StatusBadRequest {
		t.Errorf("load of an unknown path: %v", err)
	}
	bad.Close()
	if _, err := weaver.New(weaver.Options{APIKey: " "}); err == nil {
		t.Error("no key accepted")
	}
}

func TestHeartbeat(t *testing.T) {
	t.Parallel()
	fake, c := started(t, fakeweaver.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Serve(ctx) }()
	testutil.Eventually(t, "three heartbeats", func() bool { return fake.Heartbeats(c.SessionID()) >= 3 })
	if hb := c.Heartbeat(); !hb.Healthy || hb.Failures != 0 || hb.SessionID == "" {
		t.Errorf("heartbeat %+v", hb)
	}
	fake.SetDown(true)
	testutil.Eventually(t, "a failing heartbeat recorded", func() bool { return c.Heartbeat().Failures > 0 })
	if err := c.Heartbeat().LastError; err == nil || !strings.Contains(err.Error(), "http 503") {
		t.Errorf("last error %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
