package policy_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"

	"github.com/metaclaw/metaclaw/app/learner/weaver/fakeweaver"
)

// TestWeaverBackendServes serves an agent's turn from the policy on
// rl.backend weaver: the proxy's OpenAI client gets the sampled answer,
// the fake Weaver service sampled exactly the prompt tokens that were
// stored, and llm.* saw nothing.
func TestWeaverBackendServes(t *testing.T) {
	t.Parallel()
	fake := fakeweaver.New(fakeweaver.Options{PendingPolls: 2})
	t.Cleanup(fake.Close)
	e := newEnv(t, envOpts{beforeStart: func(e *env) {
		for k, v := range map[string]string{"rl.backend": "weaver", "rl.base_url": fake.URL(), "rl.api_key": fake.APIKey()} {
			must(t, e.cfg.Set(k, v))
		}
	}})
	e.startProxy()
	toks := append(fixtureTokenizer(t).Encode("Hello from Weaver."), imEnd(t))
	fake.SetResponder(func(fakeweaver.SampleRequest) [][]int { return [][]int{toks} })
	client := openaiClient(e, "s-weaver")
	got, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: "m",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}})
	must(t, err)
	if got.Choices[0].Message.Content != "Hello from Weaver." || got.Choices[0].FinishReason != "stop" {
		t.Fatalf("answer %s", got.RawJSON())
	}
	samples := fake.Samples()
	if len(samples) != 1 || samples[0].BaseModel != baseModel || samples[0].ModelPath != "" {
		t.Fatalf("Weaver sampled %+v", samples)
	}
	turns := e.turns("s-weaver", 1)
	smp, err := e.db.SampleForTurn(context.Background(), turns[0].ID)
	must(t, err)
	if diff := cmp.Diff(samples[0].Prompt, smp.PromptTokens); diff != "" || !cmp.Equal(smp.SampledTokens, toks) {
		t.Errorf("stored sample differs from what Weaver sampled (-weaver +stored):\n%s", diff)
	}
	if n := e.chatRequestsToLLM(); n != 0 || len(e.fake.Samples()) != 0 {
		t.Errorf("llm.* got %d requests, Tinker %d samples; Weaver should have served", n, len(e.fake.Samples()))
	}
}
