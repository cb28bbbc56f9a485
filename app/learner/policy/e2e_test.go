package policy_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/google/go-cmp/cmp"
	"github.com/metaclaw/metaclaw/store"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

const toolCallText = `<tool_call>{"name":"get_weather","arguments":{"city":"Paris"}}</tool_call>`

var weatherTool = openai.ChatCompletionToolUnionParam{OfFunction: &openai.ChatCompletionFunctionToolParam{
	Function: shared.FunctionDefinitionParam{Name: "get_weather", Description: openai.String("weather for a city"),
		Parameters: shared.FunctionParameters{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}},
}}

func openaiClient(e *env, session string) openai.Client {
	return openai.NewClient(option.WithBaseURL(e.url), option.WithAPIKey("client-key"), option.WithMaxRetries(0),
		option.WithHeader("X-Session-Id", session))
}

// checkSample checks the stored sample of a turn against what the fake
// service received and returned.
func (e *env) checkSample(turnID int64, checkpoint string, generation int) store.Sample {
	e.t.Helper()
	smp, err := e.db.SampleForTurn(context.Background(), turnID)
	must(e.t, err)
	rec, wire := e.lastSample(), e.wire.last()
	if diff := cmp.Diff(rec.Prompt, smp.PromptTokens); diff != "" {
		e.t.Errorf("sample prompt tokens differ from those the service received (-service +stored):\n%s", diff)
	}
	if diff := cmp.Diff(wire.Sequences[0].Tokens, smp.SampledTokens); diff != "" {
		e.t.Errorf("sampled tokens differ from those the service returned (-service +stored):\n%s", diff)
	}
	want := make([]float64, len(wire.Sequences[0].Logprobs))
	for i, lp := range wire.Sequences[0].Logprobs {
		want[i] = float64(float32(lp)) // stored as float32
	}
	if diff := cmp.Diff(want, smp.SampledLogprobs); diff != "" || len(want) == 0 {
		e.t.Errorf("logprobs differ from those the service returned (-service +stored):\n%s", diff)
	}
	if smp.BaseModel != baseModel || smp.Checkpoint != checkpoint || smp.SkillGeneration != generation ||
		!smp.Trainable || smp.Status != store.SampleWaiting || smp.Kind != store.SampleServed {
		e.t.Errorf("sample %+v", smp)
	}
	return smp
}

func TestOpenAIClientToolCallsAndReasoning(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	e.startProxy(staticInjector{text: "## Skills\nAlways use metric units."})
	ctx := context.Background()
	must(t, e.db.SetMeta(ctx, store.MetaSkillGeneration, "3"))
	client := openaiClient(e, "s-openai")

	toks := e.reply(toolCallText)
	params := openai.ChatCompletionNewParams{Model: "whatever", Tools: []openai.ChatCompletionToolUnionParam{weatherTool},
		Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("Be brief."), openai.UserMessage("Weather in Paris?")}}
	got, err := client.Chat.Completions.New(ctx, params)
	must(t, err)
	msg := got.Choices[0].Message
	if len(msg.ToolCalls) != 1 || msg.ToolCalls[0].Function.Name != "get_weather" || msg.ToolCalls[0].Function.Arguments != `{"city":"Paris"}` ||
		!strings.HasPrefix(msg.ToolCalls[0].ID, "call_") || msg.ToolCalls[0].Type != "function" || got.Choices[0].FinishReason != "tool_calls" {
		t.Fatalf("answer = %s", got.RawJSON())
	}
	rec := e.lastSample()
	if got.Usage.CompletionTokens != int64(len(toks)) || got.Usage.PromptTokens != int64(len(rec.Prompt)) {
		t.Errorf("usage %+v; prompt %d sampled %d", got.Usage, len(rec.Prompt), len(toks))
	}
	prompt := fixtureTokenizer(t).Decode(rec.Prompt)
	for _, want := range []string{"<|im_start|>system\nBe brief.\n\n## Skills\nAlways use metric units.\n\n# Tools",
		`"name": "get_weather", "description": "weather for a city"`, "<|im_start|>user\nWeather in Paris?<|im_end|>"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("prompt lacks %q:\n%s", want, prompt)
		}
	}
	if !strings.HasSuffix(prompt, "<|im_start|>assistant\n") || rec.ModelPath != "" || rec.BaseModel != baseModel ||
		!cmp.Equal(rec.StopTokens, []int{imEnd(t), 676}) {
		t.Errorf("sampled %+v from prompt %q", rec.SampleRequest, prompt)
	}
	turns := e.turns("s-openai", 1)
	e.checkSample(turns[0].ID, baseModel, 3)

	// The tool result comes back; the answer streams with reasoning.
	params.Messages = append(params.Messages, msg.ToParam(), openai.ToolMessage(`{"temp":21}`, msg.ToolCalls[0].ID))
	e.streamWithReasoning(client, params)
	turns = e.turns("s-openai", 2)
	e.checkSample(turns[1].ID, baseModel, 3)
	if turns[1].ResponseText != "It is 21 °C in Paris." || turns[1].Reasoning != "The tool says 21 degrees." || !turns[1].Stream {
		t.Errorf("recorded turn %+v", turns[1])
	}
	if n := e.chatRequestsToLLM(); n != 0 {
		t.Errorf("llm.* got %d chat requests; the policy should have served", n)
	}
}

func TestOpenAIClientStreamsToolCalls(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	e.startProxy()
	client := openaiClient(e, "s-stream-tools")
	e.reply("Checking.\n" + toolCallText)
	stream := client.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{Model: "m",
		Tools:    []openai.ChatCompletionToolUnionParam{weatherTool},
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather in Paris?")}})
	acc := openai.ChatCompletionAccumulator{}
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	must(t, stream.Err())
	m := acc.Choices[0].Message
	if m.Content != "Checking." || len(m.ToolCalls) != 1 || m.ToolCalls[0].Function.Name != "get_weather" ||
		m.ToolCalls[0].Function.Arguments != `{"city":"Paris"}` || acc.Choices[0].FinishReason != "tool_calls" {
		t.Errorf("streamed message %+v finish %q", m, acc.Choices[0].FinishReason)
	}
	turns := e.turns("s-stream-tools", 1)
	e.checkSample(turns[0].ID, baseModel, 0)
}

func TestAnthropicClientToolUse(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	e.startProxy()
	ctx := context.Background()
	client := anthropic.NewClient(aoption.WithBaseURL(strings.TrimSuffix(e.url, "/v1")), aoption.WithAPIKey("client-key"),
		aoption.WithMaxRetries(0), aoption.WithHeader("X-Session-Id", "s-anthropic"))
	params := anthropic.MessageNewParams{Model: "claude-sonnet-4-5", MaxTokens: 200,
		System:   []anthropic.TextBlockParam{{Text: "Be brief."}},
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Weather in Paris?"))},
		Tools: []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{Name: "get_weather",
			InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"city": map[string]any{"type": "string"}}}}}}}

	e.reply(toolCallText)
	msg, err := client.Messages.New(ctx, params)
	must(t, err)
	last := msg.Content[len(msg.Content)-1]
	if msg.StopReason != "tool_use" || last.Type != "tool_use" || last.Name != "get_weather" || string(last.Input) != `{"city":"Paris"}` {
		t.Fatalf("message %s", msg.RawJSON())
	}
	if rec := e.lastSample(); rec.MaxTokens != 200 {
		t.Errorf("max_tokens sent to the service: %d", rec.MaxTokens)
	}
	params.Messages = append(params.Messages, msg.ToParam(), anthropic.NewUserMessage(
		anthropic.NewToolResultBlock(last.ID, `{"temp":21}`, false)))

	e.reply("<think>\nIt is warm.\n</think>\n\nSunny, 21 °C. Rome too?\n" +
		`<tool_call>{"name":"get_weather","arguments":{"city":"Rome"}}</tool_call>`)
	stream := client.Messages.NewStreaming(ctx, params)
	var acc anthropic.Message
	for stream.Next() {
		must(t, acc.Accumulate(stream.Current()))
	}
	must(t, stream.Err())
	var text, thinking, input string
	for _, b := range acc.Content {
		text += b.Text
		thinking += b.Thinking
		if b.Type == "tool_use" && b.Name == "get_weather" {
			input += string(b.Input)
		}
	}
	if text != "Sunny, 21 °C. Rome too?" || thinking != "It is warm." || input != `{"city":"Rome"}` || acc.StopReason != "tool_use" {
		t.Errorf("streamed %+v, stop %q", acc.Content, acc.StopReason)
	}
	prompt := fixtureTokenizer(t).Decode(e.lastSample().Prompt)
	if !strings.Contains(prompt, "<tool_response>\n{\"temp\":21}\n</tool_response>") {
		t.Errorf("tool result not rendered:\n%s", prompt)
	}
	turns := e.turns("s-anthropic", 2)
	e.checkSample(turns[1].ID, baseModel, 0)
}

func TestSideTurnsStoreNoSample(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	e.startProxy()
	client := openai.NewClient(option.WithBaseURL(e.url), option.WithAPIKey("k"), option.WithMaxRetries(0),
		option.WithHeader("X-Session-Id", "s-side"), option.WithHeader("X-Turn-Type", "side"))
	e.reply("A title.")
	got, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: "m",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Name this chat.")}})
	must(t, err)
	if got.Choices[0].Message.Content != "A title." || len(e.fake.Samples()) != 1 {
		t.Fatalf("answer %s", got.RawJSON())
	}
	turns := e.turns("s-side", 1)
	if _, err := e.db.SampleForTurn(context.Background(), turns[0].ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("side turn has a sample: %v", err)
	}
}

// streamWithReasoning sends the tool result back, streamed, and checks
// the reasoning and content the client sees and the prompt the service
// got.
func (e *env) streamWithReasoning(client openai.Client, params openai.ChatCompletionNewParams) {
	t := e.t
	t.Helper()
	e.reply("<think>\nThe tool says 21 degrees.\n</think>\n\nIt is 21 °C in Paris.")
	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	stream := client.Chat.Completions.NewStreaming(context.Background(), params)
	acc := openai.ChatCompletionAccumulator{}
	var reasoning strings.Builder
	for stream.Next() {
		ch := stream.Current()
		acc.AddChunk(ch)
		if len(ch.Choices) > 0 {
			var d struct {
				ReasoningContent string `json:"reasoning_content"`
			}
			must(t, json.Unmarshal([]byte(ch.Choices[0].Delta.RawJSON()), &d))
			reasoning.WriteString(d.ReasoningContent)
		}
	}
	must(t, stream.Err())
	if acc.Choices[0].Message.Content != "It is 21 °C in Paris." || reasoning.String() != "The tool says 21 degrees." ||
		acc.Choices[0].FinishReason != "stop" || acc.Usage.TotalTokens == 0 {
		t.Errorf("streamed content %q reasoning %q finish %q usage %+v", acc.Choices[0].Message.Content, reasoning.String(),
			acc.Choices[0].FinishReason, acc.Usage)
	}
	prompt := fixtureTokenizer(t).Decode(e.lastSample().Prompt)
	for _, want := range []string{"<|im_start|>assistant\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\":\"Paris\"}}\n</tool_call><|im_end|>",
		"<|im_start|>user\n<tool_response>\n{\"temp\":21}\n</tool_response><|im_end|>\n<|im_start|>assistant\n"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("second prompt lacks %q:\n%s", want, prompt)
		}
	}
}

func TestOpenAIClientReasoningNonStreaming(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{})
	e.startProxy()
	client := openaiClient(e, "s-think")
	e.reply("<think>\nShort question, short answer.\n</think>\n\nHello!")
	got, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: "m",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}})
	must(t, err)
	var m struct {
		ReasoningContent string `json:"reasoning_content"`
	}
	must(t, json.Unmarshal([]byte(got.Choices[0].Message.RawJSON()), &m))
	if got.Choices[0].Message.Content != "Hello!" || m.ReasoningContent != "Short question, short answer." ||
		got.Choices[0].FinishReason != "stop" {
		t.Errorf("answer %s", got.RawJSON())
	}
	turns := e.turns("s-think", 1)
	e.checkSample(turns[0].ID, baseModel, 0)
}
