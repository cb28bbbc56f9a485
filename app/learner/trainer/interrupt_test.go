package trainer_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/metaclaw/metaclaw/app/learner/tinker/faketinker"
	"github.com/metaclaw/metaclaw/app/learner/trainer"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
	"github.com/metaclaw/metaclaw/store/testutil"
)

// serveN records n served samples with alternating turn scores.
func serveN(e *env, n, first int) []store.Sample {
	var out []store.Sample
	for i := range n {
		score := 1 - 2*(i%2)
		out = append(out, e.serve([]int{first + i, 11, 12}, []int{first + 100 + i, eos}, ptr(score)))
	}
	return out
}

func statuses(e *env, ss []store.Sample) map[string]int {
	out := map[string]int{}
	for _, s := range ss {
		out[e.sample(s.ID).Status]++
	}
	return out
}

func countSteps(e *env, status string) int {
	steps, _ := e.db.Steps(context.Background(), 0, 100)
	n := 0
	for _, st := range steps {
		if st.Status == status {
			n++
		}
	}
	return n
}

func TestWindowClosesMidBatch(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *config.Config) { c.Mode, c.RL.GroupSize, c.RL.BatchSize = config.ModeMadmax, 1, 2 })
	samples := serveN(e, 6, 1000)
	var once sync.Once
	e.setHook(func(ep string) {
		if ep == "optim_step" {
			once.Do(func() { e.win.set(false) }) // the person comes back mid-step
		}
	})
	e.win.set(true)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- e.trainer().Serve(ctx) }()
	defer func() { cancel(); <-done }()

	// The step in flight finishes, the state is saved, the rest waits.
	testutil.Eventually(t, "the state saved after the window closed", func() bool {
		_, err := e.db.LatestCheckpoint(context.Background(), store.CheckpointState, baseModel)
		return err == nil
	})
	if got := statuses(e, samples); got[store.SampleTrained] != 2 || got[store.SampleWaiting] != 4 {
		t.Fatalf("after the window closed: %v; want 2 trained (the step in flight) and 4 waiting", got)
	}
	if n := countSteps(e, store.StepDone); n != 1 {
		t.Fatalf("%d steps done while the window was open, want 1", n)
	}
	st, _ := e.db.StepByID(context.Background(), e.sample(samples[0].ID).StepID)
	if st.StatePath == "" {
		t.Errorf("step 1 has no state path; the window's close should have saved it")
	}

	// The next window continues with the same model.
	e.win.set(true)
	testutil.Eventually(t, "every sample trained in the next window", func() bool { return statuses(e, samples)[store.SampleTrained] == 6 })
	runs, _ := e.db.Runs(context.Background(), 10)
	if len(runs) != 1 || countSteps(e, store.StepDone) != 3 || len(e.Published()) != 3 {
		t.Errorf("%d runs, %d steps, %d published; want 1 run, 3 steps, 3 checkpoints", len(runs), countSteps(e, store.StepDone), len(e.Published()))
	}
}

func TestPausedTrainsNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *config.Config) { c.RL.GroupSize = 1 })
	var mu sync.Mutex
	paused := true
	e.paused = func() bool { mu.Lock(); defer mu.Unlock(); return paused }
	samples := serveN(e, 2, 1000)
	tr := e.trainer()
	if _, err := tr.TrainStep(context.Background()); !errors.Is(err, trainer.ErrPaused) {
		t.Errorf("TrainStep while paused = %v, want ErrPaused", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- tr.Serve(ctx) }()
	defer func() { cancel(); <-done }()
	tr.Kick()
	tr.Kick()
	if got := statuses(e, samples); got[store.SampleWaiting] != 2 || len(e.fake.RequestsTo("forward_backward")) != 0 {
		t.Fatalf("paused: %v, %d forward_backward; want everything waiting", got, len(e.fake.RequestsTo("forward_backward")))
	}
	mu.Lock()
	paused = false
	mu.Unlock()
	testutil.Eventually(t, "training after resume", func() bool { return statuses(e, samples)[store.SampleTrained] == 2 })
}

// TestKilledMidStep kills the trainer's process (it stops answering, as a
// killed one does, and records nothing more) at two points of a step, and
// starts a new trainer on the same database and service.
func TestKilledMidStep(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		killAt string
		every  int // rl.checkpoint_every
	}{
		{"optim_step", 1},                // after forward_backward
		{"save_weights_for_sampler", 1},  // after optim_step, before the samples are marked
		{"optim_step", 10},               // no state checkpoint yet: step 1's weights are lost too
		{"save_weights_for_sampler", 10}, //
	} {
		t.Run(fmt.Sprintf("%s/every%d", tt.killAt, tt.every), func(t *testing.T) {
			t.Parallel()
			killedMidStep(t, tt.killAt, tt.every)
		})
	}
}

func killedMidStep(t *testing.T, killAt string, every int) {
	e := newEnv(t, func(c *config.Config) { c.RL.GroupSize, c.RL.BatchSize, c.RL.CheckpointEvery = 1, 2, every })
	ctx := context.Background()
	batch1 := serveN(e, 2, 1000)
	first := e.trainer()
	if _, err := first.TrainStep(ctx); err != nil {
		t.Fatal(err)
	}
	batch2 := serveN(e, 2, 2000)
	killed, release := make(chan struct{}), make(chan struct{})
	var hit atomic.Bool
	e.setHook(func(ep string) {
		if ep == killAt && hit.CompareAndSwap(false, true) {
			close(killed)
			<-release // the killed process never gets its answer
		}
	})
	zombie := make(chan error, 1)
	go func() { _, err := first.TrainStep(ctx); zombie <- err }()
	<-killed

	// A new process on the same database and service.
	second := e.trainer()
	for {
		if _, err := second.TrainStep(ctx); errors.Is(err, trainer.ErrNothingToTrain) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	runs, _ := e.db.Runs(ctx, 10)
	if len(runs) != 2 || runs[1].Status != store.RunFailed {
		t.Fatalf("runs = %+v; want the killed run failed and a new one", runs)
	}
	newModel, _ := e.fake.Model(runs[0].ModelID)
	wantLoaded := ""
	if every == 1 {
		wantLoaded = "tinker://" + runs[1].ModelID + "/weights/step-000001"
	}
	if newModel.LoadedFrom != wantLoaded || newModel.Steps != 2 {
		t.Errorf("new model loaded %q and has %d steps; want loaded %q, 2 steps", newModel.LoadedFrom, newModel.Steps, wantLoaded)
	}
	checkTrainedOnce(t, e, runs[0].ModelID, append(batch1, batch2...), every == 1)

	// The killed process, if it ever wakes, can record nothing.
	close(release)
	if err := <-zombie; err == nil {
		t.Errorf("the killed trainer's step succeeded")
	}
	checkTrainedOnce(t, e, runs[0].ModelID, append(batch1, batch2...), every == 1)
}

// checkTrainedOnce checks that every sample is trained by a done step and
// is in the surviving weights exactly once: in the new model's datums, or
// (kept by the state checkpoint) in the first model's first step.
func checkTrainedOnce(t *testing.T, e *env, newModel string, samples []store.Sample, firstKept bool) {
	t.Helper()
	seen := map[string]int{}
	for _, d := range e.datumsOf(newModel) {
		seen[fmt.Sprint(d.ModelInput)]++
	}
	for i, s := range samples {
		got := e.sample(s.ID)
		st, err := e.db.StepByID(context.Background(), got.StepID)
		if got.Status != store.SampleTrained || err != nil || st.Status != store.StepDone {
			t.Errorf("sample %d: %s by step %d (%s, %v); want trained by a done step", s.ID, got.Status, got.StepID, st.Status, err)
		}
		seq := append(slices.Clone(s.PromptTokens), s.SampledTokens[:len(s.SampledTokens)-1]...)
		want := 1
		if firstKept && i < 2 {
			want = 0 // kept in the state checkpoint the new model loaded
		}
		if n := seen[fmt.Sprint(seq)]; n != want {
			t.Errorf("sample %d trained %d times into the new model, want %d", s.ID, n, want)
		}
	}
}

func TestServiceErrorsAreRetried(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *config.Config) { c.RL.GroupSize, c.RL.BatchSize = 2, 1 })
	e.judge.scores[500], e.judge.scores[900] = 1, -1
	e.fake.SetResponder(func(faketinker.SampleRequest) [][]int { return [][]int{{900, eos}} })
	served := e.serve([]int{1, 2, 3}, []int{500, eos}, ptr(1))
	e.fake.FailNext("asample", 1, faketinker.RateLimited("0"))
	e.fake.FailNext("forward_backward", 2, faketinker.ServerError(503))
	e.fake.FailNext("optim_step", 1, faketinker.RateLimited("0"))
	e.fake.FailNext("save_weights_for_sampler", 1, faketinker.ServerError(500))
	st, err := e.trainer().TrainStep(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, ep := range []string{"asample", "forward_backward", "optim_step", "save_weights_for_sampler"} {
		if n := e.fake.PendingFaults(ep); n != 0 {
			t.Errorf("%s: %d faults unused", ep, n)
		}
	}
	run := runOf(t, e)
	m, _ := e.fake.Model(run.ModelID)
	if m.Steps != 1 || len(e.datumsOf(run.ModelID)) != 2 {
		t.Errorf("service: %d optimizer steps, %d datums; want 1 and 2 (no double training)", m.Steps, len(e.datumsOf(run.ModelID)))
	}
	group, _ := e.db.GroupSamples(context.Background(), served.ID)
	for _, s := range group {
		if s.Status != store.SampleTrained || s.StepID != st.ID {
			t.Errorf("sample %d: %s by %d, want trained by %d", s.ID, s.Status, s.StepID, st.ID)
		}
	}
	if len(e.fake.Samples()) != 1 {
		t.Errorf("%d asample calls served, want 1 (the retry reuses it)", len(e.fake.Samples()))
	}
}

// TestBrokenModelIsReplaced: a forward_backward the service refuses for good
// breaks the model's sequence; the step fails, its samples wait, and the
// next step trains them once on a new model.
func TestBrokenModelIsReplaced(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *config.Config) { c.RL.GroupSize, c.RL.BatchSize = 1, 2 })
	samples := serveN(e, 2, 1000)
	e.fake.FailNext("forward_backward", 1, faketinker.Fault{Status: 403})
	tr := e.trainer()
	st, err := tr.TrainStep(context.Background())
	if err == nil || st.Status != store.StepFailed {
		t.Fatalf("step with a refused forward_backward = %+v, %v; want a failed step", st, err)
	}
	if got := statuses(e, samples); got[store.SampleWaiting] != 2 {
		t.Fatalf("after the failed step: %v, want both waiting", got)
	}
	if _, err := tr.TrainStep(context.Background()); err != nil {
		t.Fatal(err)
	}
	runs, _ := e.db.Runs(context.Background(), 10)
	if len(runs) != 2 || runs[1].Status != store.RunFailed || runs[0].Status != store.RunRunning {
		t.Fatalf("runs = %+v; want the broken one failed and a new one running", runs)
	}
	checkTrainedOnce(t, e, runs[0].ModelID, samples, false)
}
