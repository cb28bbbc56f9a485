package tinker_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/metaclaw/metaclaw/app/learner/tinker"
	"github.com/metaclaw/metaclaw/app/learner/tinker/faketinker"
	"github.com/metaclaw/metaclaw/store/testutil"
)

// rlData builds n RL datums of different lengths.
func rlData(t *testing.T, n int) []tinker.Datum {
	t.Helper()
	var out []tinker.Datum
	for i := range n {
		p := []int{100 + i, 101, 102}
		s := []int{200 + i, 201 + i}
		d, err := tinker.RLDatum(p[:2+i%2], s, []float64{-0.5, -0.25}, []float64{float64(i) - 1, float64(i) - 1})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
	return out
}

// fwdbwd runs ForwardBackward on a fresh model of a fresh service with
// the given flags, for reference results.
func fwdbwd(t *testing.T, flags map[string]any, data []tinker.Datum) tinker.FwdBwdResult {
	t.Helper()
	e := newEnv(t, faketinker.Options{Flags: flags}, nil)
	m, err := e.c.CreateModel(ctxT(t), baseModel, tinker.LoRAConfig{Rank: 8})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.c.ForwardBackward(ctxT(t), m, data, tinker.LossImportanceSampling, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestTrainingCycle runs create_model → chunked forward_backward →
// optim_step → save_weights_for_sampler → sample from it → save_weights →
// load_weights into a new model.
func TestTrainingCycle(t *testing.T) {
	t.Parallel()
	data := rlData(t, 5)
	e := newEnv(t, faketinker.Options{TokenizerID: "Qwen/Qwen3-8B:rev-1", Flags: map[string]any{"fwdbwd_max_chunk_len": 2}}, nil)
	ctx := ctxT(t)
	m, err := e.c.CreateModel(ctx, baseModel, tinker.LoRAConfig{Rank: 8})
	if err != nil || m.LastSeqID() != 0 {
		t.Fatalf("create model: %+v, %v", m, err)
	}
	res, err := e.c.ForwardBackward(ctx, m, data, tinker.LossImportanceSampling, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{2, 3, 1}, seqIDs(e.srv.RequestsTo("forward_backward"))); diff != "" {
		t.Errorf("chunk submission order (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{1, 2, 3}, res.SeqIDs); diff != "" {
		t.Errorf("chunk seq ids (-want +got):\n%s", diff)
	}
	whole := fwdbwd(t, nil, data)
	if diff := cmp.Diff(whole, res, cmpopts.EquateApprox(0, 1e-9), cmpopts.IgnoreFields(tinker.FwdBwdResult{}, "SeqIDs")); diff != "" {
		t.Errorf("chunked result differs from one request (-whole +chunked):\n%s", diff)
	}
	checkRecordedDatums(t, e.srv.Datums(), data)
	checkOptimSaveSample(t, e, m)
}

// checkRecordedDatums compares what the service received, field by field.
func checkRecordedDatums(t *testing.T, got []faketinker.RecordedDatum, want []tinker.Datum) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("service got %d datums, want %d", len(got), len(want))
	}
	for i, d := range want {
		if diff := cmp.Diff(d.ModelInput.Tokens(), got[i].ModelInput); diff != "" {
			t.Errorf("datum %d model_input (-want +got):\n%s", i, diff)
		}
		for name, td := range d.LossFnInputs {
			g := got[i].Inputs[name]
			if diff := cmp.Diff(faketinker.Tensor{Data: td.Data, DType: td.DType, Shape: td.Shape}, g); diff != "" {
				t.Errorf("datum %d %s (-want +got):\n%s", i, name, diff)
			}
		}
		if len(got[i].Inputs) != len(d.LossFnInputs) || got[i].LossFn != tinker.LossImportanceSampling {
			t.Errorf("datum %d: inputs %v, loss %q", i, got[i].Inputs, got[i].LossFn)
		}
	}
}

func checkOptimSaveSample(t *testing.T, e *env, m tinker.Model) {
	t.Helper()
	ctx := ctxT(t)
	adam := tinker.DefaultAdamParams()
	adam.LearningRate = 2e-5
	if _, err := e.c.OptimStep(ctx, m, adam); err != nil {
		t.Fatal(err)
	}
	if st, _ := e.srv.Model(m.ID); st.Steps != 1 || st.Adam[0].LearningRate != 2e-5 || st.Adam[0].Eps != 1e-12 {
		t.Fatalf("after optim_step: %+v", st)
	}
	sp, err := e.c.SaveWeightsForSampler(ctx, m, "step-1")
	if err != nil || sp != "tinker://"+m.ID+"/sampler_weights/step-1" {
		t.Fatalf("save for sampler: %q, %v", sp, err)
	}
	ss, err := e.c.CreateSamplingSession(ctx, baseModel, sp)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Sample(ctx, ss, []int{1, 2}, tinker.DefaultSamplingParams(8), 1); err != nil {
		t.Fatal(err)
	}
	if got := e.srv.Samples()[0].ModelPath; got != sp {
		t.Errorf("sample served by %q, want %q", got, sp)
	}
	checkSaveLoad(t, e, m)
}

func checkSaveLoad(t *testing.T, e *env, m tinker.Model) {
	t.Helper()
	ctx := ctxT(t)
	wp, err := e.c.SaveWeights(ctx, m, "ckpt-1")
	if err != nil || wp != "tinker://"+m.ID+"/weights/ckpt-1" {
		t.Fatalf("save weights: %q, %v", wp, err)
	}
	info, err := e.c.WeightsInfo(ctx, wp)
	if err != nil || info.BaseModel != baseModel || info.LoRARank != 8 || !info.IsLoRA {
		t.Errorf("weights info: %+v, %v", info, err)
	}
	m2, err := e.c.CreateModel(ctx, baseModel, tinker.LoRAConfig{Rank: 8})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.c.LoadWeights(ctx, m2, wp, true); err != nil {
		t.Fatal(err)
	}
	if st, _ := e.srv.Model(m2.ID); st.LoadedFrom != wp || st.Steps != 1 {
		t.Errorf("after load: %+v", st)
	}
	if m.LastSeqID() != 6 || m2.LastSeqID() != 1 {
		t.Errorf("last seq ids %d and %d, want 6 and 1", m.LastSeqID(), m2.LastSeqID())
	}
	gi, err := e.c.GetInfo(ctx, m.ID)
	if err != nil || gi.TokenizerID != "Qwen/Qwen3-8B" || gi.LoRARank != 8 || gi.ModelName != baseModel {
		t.Errorf("get info: %+v, %v", gi, err)
	}
	fwd, err := e.c.Forward(ctx, m2, rlData(t, 1), tinker.LossImportanceSampling, nil)
	if err != nil || len(fwd.Outputs) != 1 || fwd.SeqIDs[0] != 2 {
		t.Errorf("forward: %+v, %v", fwd, err)
	}
	if st, _ := e.srv.Model(m2.ID); st.PendingGrads != 0 {
		t.Errorf("forward accumulated gradients: %+v", st)
	}
}

func TestChunkByBytes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, faketinker.Options{Flags: map[string]any{"fwdbwd_max_chunk_bytes_count": 10}}, nil)
	m, err := e.c.CreateModel(ctxT(t), baseModel, tinker.LoRAConfig{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.c.ForwardBackward(ctxT(t), m, rlData(t, 3), tinker.LossPPO, map[string]float64{"clip_low_threshold": 0.9})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{2, 3, 1}, seqIDs(e.srv.RequestsTo("forward_backward"))); diff != "" || len(res.Outputs) != 3 {
		t.Errorf("one datum per chunk (-want +got):\n%s", diff)
	}
	if d := e.srv.Datums(); d[0].LossFnConfig["clip_low_threshold"] != 0.9 {
		t.Errorf("loss_fn_config = %v", d[0].LossFnConfig)
	}
}

// TestFailedFutureLeavesNoHole: a request the service accepts and then
// fails is reported with its category; the sequence goes on.
func TestFailedFutureLeavesNoHole(t *testing.T) {
	t.Parallel()
	e := newEnv(t, faketinker.Options{}, nil)
	m, err := e.c.CreateModel(ctxT(t), baseModel, tinker.LoRAConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.SaveWeights(ctxT(t), m, "a"); err != nil {
		t.Fatal(err)
	}
	_, err = e.c.SaveWeights(ctxT(t), m, "a")
	var fe *tinker.FutureError
	if !errors.As(err, &fe) || fe.Category != "user" || fe.RequestType != "SaveWeights" {
		t.Fatalf("second save under the same name: %v, want a user FutureError", err)
	}
	if _, err := e.c.ForwardBackward(ctxT(t), m, rlData(t, 1), "no_such_loss", nil); !errors.As(err, &fe) {
		t.Fatalf("unknown loss: %v, want a FutureError", err)
	}
	if _, err := e.c.OptimStep(ctxT(t), m, tinker.DefaultAdamParams()); err != nil {
		t.Fatalf("optim step after failures: %v", err)
	}
	if e.srv.Steps(m.ID) != 1 {
		t.Errorf("steps = %d", e.srv.Steps(m.ID))
	}
}

// TestSequenceBroken: a submission that cannot be delivered breaks the
// model's sequence, and later calls fail fast without reaching the service.
func TestSequenceBroken(t *testing.T) {
	t.Parallel()
	e := newEnv(t, faketinker.Options{}, func(o *tinker.Options) { o.MaxRetries = 1; o.SubmitBudget = 2 * time.Second })
	m, err := e.c.CreateModel(ctxT(t), baseModel, tinker.LoRAConfig{})
	if err != nil {
		t.Fatal(err)
	}
	_ = e.srv.SetDown(faketinker.DownRefuse)
	_, err = e.c.OptimStep(ctxT(t), m, tinker.DefaultAdamParams())
	var ce *tinker.ConnError
	if !errors.Is(err, tinker.ErrSequenceBroken) || !errors.As(err, &ce) || !tinker.IsFatal(err) {
		t.Fatalf("optim step while down: %v, want ErrSequenceBroken wrapping a ConnError", err)
	}
	_ = e.srv.SetDown(faketinker.Up)
	if _, err := e.c.OptimStep(ctxT(t), m, tinker.DefaultAdamParams()); !errors.Is(err, tinker.ErrSequenceBroken) {
		t.Fatalf("next call: %v, want ErrSequenceBroken", err)
	}
	if n := len(e.srv.RequestsTo("optim_step")); n != 0 {
		t.Errorf("a broken sequence still sent %d requests", n)
	}
	m2, err := e.c.CreateModel(ctxT(t), baseModel, tinker.LoRAConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.OptimStep(ctxT(t), m2, tinker.DefaultAdamParams()); err != nil {
		t.Fatalf("a new model works: %v", err)
	}
}

// TestCancellationLeavesNoHole: cancelling while the submission is being
// retried still delivers it; cancelling while polling just stops waiting.
func TestCancellationLeavesNoHole(t *testing.T) {
	t.Parallel()
	e := newEnv(t, faketinker.Options{}, nil)
	m, err := e.c.CreateModel(ctxT(t), baseModel, tinker.LoRAConfig{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	e.srv.FailNext("optim_step", 1, faketinker.ServerError(500))
	e.clk.onWait = func(time.Duration) { cancel() }
	if _, err := e.c.OptimStep(ctx, m, tinker.DefaultAdamParams()); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled during submission: %v, want context.Canceled", err)
	}
	e.clk.onWait = nil
	e.srv.SetTryAgain(1_000_000, false)
	ctx2, cancel2 := context.WithCancel(context.Background())
	go func() {
		testutil.Eventually(t, "polls", func() bool { return len(e.srv.RequestsTo("retrieve_future")) > 5 })
		cancel2()
	}()
	if _, err := e.c.OptimStep(ctx2, m, tinker.DefaultAdamParams()); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled while polling: %v, want context.Canceled", err)
	}
	e.srv.SetTryAgain(0, false)
	if _, err := e.c.OptimStep(ctxT(t), m, tinker.DefaultAdamParams()); err != nil {
		t.Fatalf("third step: %v", err)
	}
	if st, _ := e.srv.Model(m.ID); st.Steps != 3 || st.NextSeqID != 4 {
		t.Errorf("model %+v, want 3 steps and no hole", st)
	}
}

func TestCreateModelResubmitsAfterExpiry(t *testing.T) {
	t.Parallel()
	e := newEnv(t, faketinker.Options{}, nil)
	e.srv.ExpireNext("create_model", 1)
	m, err := e.c.CreateModel(ctxT(t), baseModel, tinker.LoRAConfig{Rank: 4})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(e.srv.RequestsTo("create_model")); n != 2 {
		t.Errorf("create_model requests: %d, want 2", n)
	}
	if _, found := e.srv.Model(m.ID); !found {
		t.Errorf("model %q unknown", m.ID)
	}
}
