package policy_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/policy"
	"github.com/metaclaw/metaclaw/app/learner/tinker/faketinker"
	"github.com/metaclaw/metaclaw/store/testutil"
	"github.com/openai/openai-go/v3"
)

// TestCheckpointFromTrainerAndFromDB: UseCheckpoint (the trainer's hook)
// and a change of the serving checkpoint in the database (a rollback from
// the web page) both switch what is served, and the samples say which
// checkpoint served them.
func TestCheckpointFromTrainerAndFromDB(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	e.startProxy()
	ctx := context.Background()
	step1, step2 := e.newCheckpoint("step-1"), e.newCheckpoint("step-2")
	e.reply("From a checkpoint.")

	must(t, e.db.SetServingCheckpoint(ctx, step1))
	e.pol.UseCheckpoint(step1)
	testutil.Eventually(t, "step-1 to be served", func() bool { return e.pol.Serving() == step1 })
	_, turn := e.ask("s-step1", "hi")
	if rec := e.lastSample(); rec.ModelPath != step1 {
		t.Errorf("served by %q, want %q", rec.ModelPath, step1)
	}
	e.checkSample(turn.ID, step1, 0)

	must(t, e.db.SetServingCheckpoint(ctx, step2))
	testutil.Eventually(t, "step-2 to be served", func() bool { return e.pol.Serving() == step2 })
	must(t, e.db.SetServingCheckpoint(ctx, step1)) // roll back
	testutil.Eventually(t, "the rollback to step-1", func() bool { return e.pol.Serving() == step1 })
	_, turn = e.ask("s-rollback", "hi")
	if rec := e.lastSample(); rec.ModelPath != step1 {
		t.Errorf("after rollback served by %q", rec.ModelPath)
	}
	e.checkSample(turn.ID, step1, 0)

	// An unknown checkpoint fails to open: serving goes on with the
	// current one, and the status says why.
	e.pol.UseCheckpoint("tinker://nope:train:0/sampler_weights/x")
	testutil.Eventually(t, "the swap error", func() bool { return e.pol.Status().SwapError != "" })
	if st := e.pol.Status(); !st.Ready || st.Serving != step1 || !strings.Contains(st.SwapError, "unknown model_path") {
		t.Errorf("status %+v", st)
	}
	if text, _ := e.ask("s-still", "hi"); text != "From a checkpoint." || e.lastSample().ModelPath != step1 {
		t.Errorf("after a failed swap: %q from %q", text, e.lastSample().ModelPath)
	}
}

// TestTokenizerFromGetInfo: without rl.tokenizer, the tokenizer repo is
// the one get_info reports for the model of the serving checkpoint.
func TestTokenizerFromGetInfo(t *testing.T) {
	t.Parallel()
	hub := policy.NewTestHub(t, map[string]string{"Org/Tok": "testdata/tiny-qwen"})
	var ck string
	e := newEnv(t, envOpts{hub: hub, tokenizerID: "Org/Tok:extra", beforeStart: func(e *env) {
		ck = e.newCheckpoint("start")
		must(t, e.db.SetServingCheckpoint(context.Background(), ck))
	}})
	if st := e.pol.Status(); st.TokenizerRepo != "Org/Tok" || st.Serving != ck {
		t.Errorf("status %+v", st)
	}
}

// TestHotSwapUnder50ConcurrentStreams switches the checkpoint while 50
// streamed requests overlap: none fails, the ones that started before the
// switch are served by the old checkpoint, the ones after by the new.
func TestHotSwapUnder50ConcurrentStreams(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	e.startProxy()
	oldCk, newCk := e.newCheckpoint("old"), e.newCheckpoint("new")
	e.pol.UseCheckpoint(oldCk)
	testutil.Eventually(t, "the old checkpoint to be served", func() bool { return e.pol.Serving() == oldCk })
	e.reply("Streamed answer from the policy.")
	e.fake.SetSampleDelay(time.Second, 0)

	const n = 50
	errs := make([]error, n)
	var wg, first sync.WaitGroup
	run := func(i int) {
		defer wg.Done()
		errs[i] = e.stream(fmt.Sprintf("swap-%02d", i), fmt.Sprintf("request %02d.", i))
	}
	for i := range n / 2 {
		wg.Add(1)
		first.Add(1)
		go func() { defer first.Done(); run(i) }()
	}
	testutil.Eventually(t, "the first half to reach the service", func() bool { return len(e.fake.Samples()) == n/2 })
	e.pol.UseCheckpoint(newCk)
	testutil.Eventually(t, "the new checkpoint to be served", func() bool { return e.pol.Serving() == newCk })
	for i := n / 2; i < n; i++ {
		wg.Add(1)
		go run(i)
	}
	wg.Wait()
	t.Logf("samples in flight at most: %d", e.fake.MaxSamplesInFlight())

	for i, err := range errs {
		if err != nil {
			t.Errorf("request %d: %v", i, err)
		}
	}
	byRequest := e.samplesByRequest()
	for i := range n {
		want := oldCk
		if i >= n/2 {
			want = newCk
		}
		if rec, ok := byRequest[i]; !ok || rec.ModelPath != want {
			t.Errorf("request %d served by %q, want %q", i, rec.ModelPath, want)
		}
		turns := e.turns(fmt.Sprintf("swap-%02d", i), 1)
		if smp, err := e.db.SampleForTurn(context.Background(), turns[0].ID); err != nil || smp.Checkpoint != want {
			t.Errorf("request %d: sample %+v, %v", i, smp.Checkpoint, err)
		}
	}
}

// stream sends one streamed request through the proxy and checks the
// answer.
func (e *env) stream(session, text string) error {
	client := openaiClient(e, session)
	s := client.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{Model: "m",
		Messages:      []openai.ChatCompletionMessageParamUnion{openai.UserMessage(text)},
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}})
	acc := openai.ChatCompletionAccumulator{}
	for s.Next() {
		acc.AddChunk(s.Current())
	}
	if err := s.Err(); err != nil {
		return err
	}
	if len(acc.Choices) == 0 || acc.Choices[0].Message.Content != "Streamed answer from the policy." || acc.Usage.TotalTokens == 0 {
		return fmt.Errorf("streamed %+v", acc.Choices)
	}
	return nil
}

// samplesByRequest maps the fake's samples to the request number in
// their prompts ("request NN.").
func (e *env) samplesByRequest() map[int]faketinker.SampleRecord {
	out := map[int]faketinker.SampleRecord{}
	tok := fixtureTokenizer(e.t)
	for _, rec := range e.fake.Samples() {
		p := tok.Decode(rec.Prompt)
		var i int
		if k := strings.Index(p, "request "); k >= 0 {
			if _, err := fmt.Sscanf(p[k:], "request %02d.", &i); err == nil {
				out[i] = rec
			}
		}
	}
	return out
}
