package policy_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/policy"
	"github.com/metaclaw/metaclaw/app/learner/tinker/faketinker"
	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
	"github.com/metaclaw/metaclaw/store/testutil"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
)

// ask sends one user message through the proxy and returns the answer's
// text and the turn it was recorded as.
func (e *env) ask(session, text string) (string, store.Turn) {
	e.t.Helper()
	client := openaiClient(e, session)
	got, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(text)}})
	must(e.t, err)
	turns := e.turns(session, 1)
	return got.Choices[0].Message.Content, turns[len(turns)-1]
}

// hasSample reports whether a turn has a stored sample.
func (e *env) hasSample(turnID int64) bool {
	e.t.Helper()
	_, err := e.db.SampleForTurn(context.Background(), turnID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		e.t.Fatal(err)
	}
	return err == nil
}

func TestTokenizerFetchedOnceThenServedFromCache(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	const tokPath = "/Qwen/Qwen3-8B/resolve/main/tokenizer.json"
	if n := e.hub.Hits(tokPath); n != 1 {
		t.Errorf("tokenizer.json fetched %d times", n)
	}
	for _, f := range []string{"tokenizer.json", "tokenizer_config.json"} {
		if _, err := os.Stat(filepath.Join(e.dataDir, "tokenizers", "Qwen", "Qwen3-8B", f)); err != nil {
			t.Errorf("not cached: %v", err)
		}
	}
	if st := e.pol.Status(); st.TokenizerRepo != baseModel {
		t.Errorf("status %+v", st)
	}

	// A second start with the hub down loads the cache and serves.
	e.hub.SetDown(true)
	e2 := newEnv(t, envOpts{dataDir: e.dataDir, hub: e.hub})
	e2.startProxy()
	e2.reply("From the cache.")
	if text, turn := e2.ask("s-cache", "hi"); text != "From the cache." || !e2.hasSample(turn.ID) {
		t.Errorf("answer %q, sample %v", text, e2.hasSample(turn.ID))
	}
	if n := e.hub.Hits(tokPath); n != 1 {
		t.Errorf("the second start asked the hub: %d requests", n)
	}
}

func TestNotReadyWithoutKey(t *testing.T) {
	t.Parallel()
	cfg := config.Defaults()
	pol, err := policy.New(policy.Options{RL: cfg.RL, DataDir: t.TempDir()})
	must(t, err)
	if ok, reason := pol.Ready(); ok || reason != "rl.api_key is not set" {
		t.Errorf("Ready() = %v, %q", ok, reason)
	}
	req, _ := http.NewRequest(http.MethodPost, "http://policy.invalid/v1/chat/completions",
		strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`))
	resp, err := pol.RoundTrip(req)
	must(t, err)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusServiceUnavailable || !bytes.Contains(body, []byte("rl.api_key is not set")) ||
		!bytes.Contains(body, []byte(`"type":"server_error"`)) {
		t.Errorf("status %d body %s", resp.StatusCode, body)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := pol.Serve(ctx); err != nil {
		t.Errorf("Serve without a key: %v", err)
	}
}

func TestNotReadyUntilTheTokenizerLoads(t *testing.T) {
	t.Parallel()
	hub := policy.NewTestHub(t, map[string]string{baseModel: "testdata/tiny-qwen"})
	hub.SetDown(true)
	e := newEnv(t, envOpts{hub: hub, notWait: true})
	testutil.Eventually(t, "the tokenizer error", func() bool {
		_, reason := e.pol.Ready()
		return strings.HasPrefix(reason, "tokenizer Qwen/Qwen3-8B not loaded: ") && strings.Contains(reason, "http 503")
	})
	hub.SetDown(false)
	e.waitReady()
}

func TestNotReadyWhileTheServiceIsUnreachable(t *testing.T) {
	t.Parallel()
	cfg := config.Defaults()
	must(t, cfg.Set("rl.api_key", "tml-key"))
	must(t, cfg.Set("rl.base_url", "http://127.0.0.1:1")) // nothing listens there
	pol, err := policy.New(policy.Options{RL: cfg.RL, DataDir: t.TempDir()})
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- pol.Serve(ctx) }()
	if ok, reason := pol.Ready(); ok || !strings.Contains(reason, "training service") {
		t.Errorf("Ready() = %v, %q", ok, reason)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// TestServiceDownFallsBackToLLM takes the fake service down: the policy
// says so, the proxy serves from llm.* and those turns have no sample;
// when the service is back the policy serves again.
func TestServiceDownFallsBackToLLM(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	e.startProxy()
	e.reply("From the policy.")
	if text, turn := e.ask("s-up", "hi"); text != "From the policy." || !e.hasSample(turn.ID) {
		t.Fatalf("answer %q", text)
	}
	must(t, e.fake.SetDown(faketinker.DownRefuse))
	testutil.Eventually(t, "the policy to notice", func() bool {
		ok, reason := e.pol.Ready()
		return !ok && strings.HasPrefix(reason, "training service unreachable: heartbeat failing: ")
	})
	text, turn := e.ask("s-down", "hi")
	if text != fakeupstream.DefaultText || e.hasSample(turn.ID) || e.chatRequestsToLLM() != 1 {
		t.Errorf("while down: answer %q, sample %v, llm.* requests %d", text, e.hasSample(turn.ID), e.chatRequestsToLLM())
	}
	must(t, e.fake.SetDown(faketinker.Up))
	e.waitReady()
	if text, turn := e.ask("s-back", "hi"); text != "From the policy." || !e.hasSample(turn.ID) {
		t.Errorf("after recovery: answer %q", text)
	}
}

// TestSamplingFailureFallsBackAndRecovers breaks the sampling session's
// sequence: that turn goes to llm.*, and the policy opens a new session.
func TestSamplingFailureFallsBackAndRecovers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	e.startProxy()
	e.reply("From the policy.")
	e.fake.FailNext("asample", 1, faketinker.Fault{Status: http.StatusBadRequest, Body: `{"detail":"refused"}`})
	text, turn := e.ask("s-fail", "hi")
	if text != fakeupstream.DefaultText || e.hasSample(turn.ID) {
		t.Errorf("failed sample: answer %q, sample %v", text, e.hasSample(turn.ID))
	}
	testutil.Eventually(t, "a new sampling session", func() bool {
		return len(e.fake.RequestsTo("create_sampling_session")) == 2
	})
	e.waitReady()
	if text, turn := e.ask("s-again", "hi"); text != "From the policy." || !e.hasSample(turn.ID) {
		t.Errorf("after recovery: answer %q", text)
	}
}

// TestImagesGoToLLM: the policy takes text only and answers 501, so the
// proxy serves the turn from llm.*.
func TestImagesGoToLLM(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	e.startProxy()
	client := openaiClient(e, "s-image")
	got, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: "m",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{
			openai.TextContentPart("what is this?"),
			openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: "data:image/png;base64,AAAA"})})}})
	must(t, err)
	turns := e.turns("s-image", 1)
	if got.Choices[0].Message.Content != fakeupstream.DefaultText || e.hasSample(turns[0].ID) || len(e.fake.Samples()) != 0 {
		t.Errorf("answer %q", got.Choices[0].Message.Content)
	}
}

func TestNotReadyWhenTheServiceRefusesTheKey(t *testing.T) {
	t.Parallel()
	fake := faketinker.New(faketinker.Options{})
	t.Cleanup(fake.Close)
	cfg := config.Defaults()
	must(t, cfg.Set("rl.api_key", "tml-wrong-key"))
	must(t, cfg.Set("rl.base_url", fake.URL()))
	pol, err := policy.New(policy.Options{RL: cfg.RL, DataDir: t.TempDir(), RetryInterval: 10 * time.Millisecond})
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- pol.Serve(ctx) }()
	testutil.Eventually(t, "the refusal", func() bool {
		_, reason := pol.Ready()
		return strings.HasPrefix(reason, "training service refused the session: ") && strings.Contains(reason, "check rl.api_key")
	})
	_, reason := pol.Ready()
	if strings.Contains(reason, "tml-wrong-key") {
		t.Errorf("the key is in the reason: %q", reason)
	}
	cancel()
	must(t, <-done)
}

// TestForcedOptionsGoToLLM: a forced tool call or structured output is
// something the policy cannot promise, so it answers 501 and the proxy
// serves the turn from llm.*, which gets the options as sent.
func TestForcedOptionsGoToLLM(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	e.startProxy()
	tool := openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{Name: "get_weather",
		Parameters: shared.FunctionParameters{"type": "object"}})
	for name, params := range map[string]openai.ChatCompletionNewParams{
		"s-required": {Tools: []openai.ChatCompletionToolUnionParam{tool},
			ToolChoice: openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("required")}},
		"s-json": {ResponseFormat: openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONObject: &shared.ResponseFormatJSONObjectParam{}}},
	} {
		params.Model = "m"
		params.Messages = []openai.ChatCompletionMessageParamUnion{openai.UserMessage("weather in Paris?")}
		client := openaiClient(e, name)
		got, err := client.Chat.Completions.New(context.Background(), params)
		must(t, err)
		turns := e.turns(name, 1)
		if got.Choices[0].Message.Content != fakeupstream.DefaultText || e.hasSample(turns[0].ID) {
			t.Errorf("%s: answer %q", name, got.Choices[0].Message.Content)
		}
	}
	var required, json bool
	for _, r := range e.up.Requests() {
		required = required || bytes.Contains(r.Body, []byte(`"tool_choice":"required"`))
		json = json || bytes.Contains(r.Body, []byte(`"response_format":{"type":"json_object"}`))
	}
	if !required || !json {
		t.Errorf("llm.* did not get the options: tool_choice %v, response_format %v", required, json)
	}
	if n := len(e.fake.Samples()); n != 0 {
		t.Errorf("%d samples taken", n)
	}
}
