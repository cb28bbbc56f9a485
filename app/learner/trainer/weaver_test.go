package trainer_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/judge"
	"github.com/metaclaw/metaclaw/app/learner/tinker"
	"github.com/metaclaw/metaclaw/app/learner/tinker/faketinker"
	"github.com/metaclaw/metaclaw/app/learner/trainer"
	"github.com/metaclaw/metaclaw/app/learner/weaver"
	"github.com/metaclaw/metaclaw/app/learner/weaver/fakeweaver"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// weaverTrainer makes a trainer on the env's database whose training
// service is Weaver (the fake), through a fresh client and session.
func (e *env) weaverTrainer(fake *fakeweaver.Server) *trainer.Trainer {
	e.t.Helper()
	c, err := weaver.New(weaver.Options{BaseURL: fake.URL(), APIKey: fake.APIKey(), PollInterval: time.Millisecond})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { c.Close() })
	return trainer.New(trainer.Options{DB: e.db, Client: c, Config: e.cfg,
		Judge: judge.New(judge.Options{Client: e.judge, Model: "judge", Votes: 1}), Codec: codec{},
		Windows: e.win, Publish: func(p string) {
			e.mu.Lock()
			e.published = append(e.published, p)
			e.mu.Unlock()
		},
		Poll: 10 * time.Millisecond, RetryDelay: time.Hour})
}

// TestWeaverBackendTrains runs the whole slow loop on rl.backend weaver:
// extra group responses sampled on Weaver, a forward-backward pass of
// exactly the stored samples, an optimizer step, a sampler export that
// becomes the serving checkpoint and samples the next group, a state
// checkpoint, and, after a restart, training resumed from that checkpoint.
func TestWeaverBackendTrains(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *config.Config) {
		c.RL.Backend, c.RL.GroupSize, c.RL.AdvantageStd, c.RL.CheckpointEvery = "weaver", 2, false, 1
	})
	fake := fakeweaver.New(fakeweaver.Options{PendingPolls: 2})
	t.Cleanup(fake.Close)
	fake.SetResponder(func(req fakeweaver.SampleRequest) [][]int { return extras[req.Prompt[0]][:1] })
	for id, sc := range map[int]int{500: 1, 1001: -1, 600: -1, 2001: 1} {
		e.judge.scores[id] = sc
	}
	ctx := context.Background()
	servedA := e.serve(promptA, []int{500, 501, eos}, ptr(0))
	servedB := e.serve(promptB, []int{600, eos}, ptr(0))
	st, err := e.weaverTrainer(fake).TrainStep(ctx)
	if err != nil {
		t.Fatal(err)
	}

	run := runOf(t, e)
	if fake.Steps(run.ModelID) != 1 {
		t.Errorf("optimizer steps on Weaver: %d, want 1", fake.Steps(run.ModelID))
	}
	got := fake.Datums()
	if len(got) != 4 {
		t.Fatalf("forward-backward received %d datums, want 4 (two groups of two)", len(got))
	}
	wantAdv := map[string]float64{key(promptA, []int{500, 501, eos}): 1, key(promptA, extras[101][0]): -1,
		key(promptB, []int{600, eos}): -1, key(promptB, extras[201][0]): 1}
	for _, head := range []store.Sample{servedA, servedB} {
		group, err := e.db.GroupSamples(ctx, head.ID)
		if err != nil || len(group) != 2 {
			t.Fatalf("group of %d: %d samples, %v", head.ID, len(group), err)
		}
		for _, s := range group {
			if s.Status != store.SampleTrained || s.StepID != st.ID {
				t.Errorf("sample %d %s by step %d, want trained by %d", s.ID, s.Status, s.StepID, st.ID)
			}
			k := key(s.PromptTokens, s.SampledTokens)
			i := slices.IndexFunc(got, func(d fakeweaver.RecordedDatum) bool {
				return fmt.Sprint(append(slices.Clone(d.ModelInput), int(d.Inputs["target_tokens"][len(d.ModelInput)-1]))) == k
			})
			if i < 0 {
				t.Fatalf("no datum for sample %d", s.ID)
			}
			d := got[i]
			checkDatum(t, asTinker(d), s, trainer.TokenAdvantages(wantAdv[k], len(s.SampledTokens)))
			if d.LossFn != tinker.LossImportanceSampling {
				t.Errorf("loss %q", d.LossFn)
			}
		}
	}
	samples := fake.Samples()
	if len(samples) != 2 || samples[0].ModelPath != "" || samples[0].BaseModel != baseModel {
		t.Fatalf("extra responses sampled %+v, want 2 from the base model", samples)
	}
	serving, err := e.db.ServingCheckpoint(ctx)
	pub := e.Published()
	if err != nil || len(pub) != 1 || serving != pub[0] || !strings.HasPrefix(serving, "weaver://"+run.ModelID+"/sampler/") {
		t.Fatalf("serving %q (%v), published %v", serving, err, pub)
	}
	state := "weaver://" + run.ModelID + "/checkpoints/"
	if cks := fake.Checkpoints(); !hasPrefix(cks, state) {
		t.Fatalf("no state checkpoint under %s in %v", state, cks)
	}

	// Restart: a new trainer and session resume from the state checkpoint,
	// and the next group samples from the serving checkpoint.
	e.serve(promptA, []int{502, eos}, ptr(1))
	e.serve(promptB, []int{602, eos}, ptr(0))
	e.judge.scores[502], e.judge.scores[602] = 1, 0
	if _, err := e.weaverTrainer(fake).TrainStep(ctx); err != nil {
		t.Fatal(err)
	}
	run2 := runOf(t, e)
	if run2.ModelID == run.ModelID || !strings.HasPrefix(run2.ResumedFrom, state) || fake.Steps(run2.ModelID) != 2 {
		t.Errorf("second run %+v: %d steps on Weaver, want resumed from %s* at step 1, then 2", run2, fake.Steps(run2.ModelID), state)
	}
	if s := fake.Samples(); len(s) != 4 || s[2].ModelPath != serving {
		t.Errorf("the second group sampled from %q, want the serving checkpoint %q", s[len(s)-1].ModelPath, serving)
	}
}

func hasPrefix(cks map[string]fakeweaver.Checkpoint, prefix string) bool {
	for p := range cks {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}

// asTinker views a datum Weaver received as checkDatum reads Tinker's.
func asTinker(d fakeweaver.RecordedDatum) faketinker.RecordedDatum {
	out := faketinker.RecordedDatum{ModelID: d.ModelID, LossFn: d.LossFn, ModelInput: d.ModelInput,
		Inputs: map[string]faketinker.Tensor{}}
	for k, v := range d.Inputs {
		out.Inputs[k] = faketinker.Tensor{Data: v}
	}
	return out
}
