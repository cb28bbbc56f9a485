package proxy_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/google/go-cmp/cmp"
	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
	"github.com/metaclaw/metaclaw/store/config"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

var weatherTool = openai.ChatCompletionToolUnionParam{OfFunction: &openai.ChatCompletionFunctionToolParam{
	Function: shared.FunctionDefinitionParam{Name: "get_weather", Description: openai.String("weather for a city"),
		Parameters: shared.FunctionParameters{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}},
}}

func openaiClient(e *env) openai.Client {
	return openai.NewClient(option.WithBaseURL(e.url+"/v1"), option.WithAPIKey("client-key"), option.WithMaxRetries(0))
}

func toolReply() fakeupstream.Reply {
	return fakeupstream.Reply{Text: "Let me check.", ToolCalls: []fakeupstream.ToolCall{
		{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris"}`},
		{ID: "call_2", Name: "get_weather", Arguments: `{"city":"Rome"}`},
	}}
}

func TestOpenAISDK(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	client := openaiClient(e)
	ctx := context.Background()
	params := openai.ChatCompletionNewParams{Model: "gpt-whatever", Tools: []openai.ChatCompletionToolUnionParam{weatherTool},
		Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("be brief"), openai.UserMessage("weather?")}}

	e.up.Enqueue(toolReply())
	got, err := client.Chat.Completions.New(ctx, params)
	must(t, err)
	msg := got.Choices[0].Message
	if msg.Content != "Let me check." || len(msg.ToolCalls) != 2 || msg.ToolCalls[1].Function.Arguments != `{"city":"Rome"}` ||
		got.Choices[0].FinishReason != "tool_calls" {
		t.Errorf("non-streaming answer = %+v", got.Choices[0])
	}

	e.up.Enqueue(fakeupstream.Reply{Text: "Sunny in Paris.", Reasoning: "The tool said sun."})
	params.Messages = append(params.Messages, msg.ToParam(),
		openai.ToolMessage(`{"temp":21}`, "call_1"), openai.ToolMessage(`{"temp":25}`, "call_2"))
	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	stream := client.Chat.Completions.NewStreaming(ctx, params)
	acc := openai.ChatCompletionAccumulator{}
	sawReasoning := false
	for stream.Next() {
		ch := stream.Current()
		acc.AddChunk(ch)
		if len(ch.Choices) > 0 && strings.Contains(ch.Choices[0].Delta.RawJSON(), "reasoning_content") {
			sawReasoning = true
		}
	}
	must(t, stream.Err())
	if acc.Choices[0].Message.Content != "Sunny in Paris." || acc.Usage.TotalTokens == 0 || !sawReasoning {
		t.Errorf("streamed = %q usage %+v reasoning %v", acc.Choices[0].Message.Content, acc.Usage, sawReasoning)
	}

	bodies := e.upstreamBodies("/v1/chat/completions")
	if len(bodies) != 2 || bodies[0]["model"] != "fake-model" {
		t.Fatalf("upstream bodies: %d, model %v", len(bodies), bodies[0]["model"])
	}
	msgs := bodies[1]["messages"].([]any)
	if last := msgs[len(msgs)-1].(map[string]any); last["role"] != "tool" || last["tool_call_id"] != "call_2" {
		t.Errorf("tool result not forwarded: %v", last)
	}
	hdr := e.up.Requests()[0].Header
	if hdr.Get("Authorization") != "Bearer sk-upstream-secret-key" {
		t.Errorf("upstream auth = %q", hdr.Get("Authorization"))
	}
	turns := e.turns(2)
	if turns[0].ToolCalls == "" || turns[1].ResponseText != "Sunny in Paris." || turns[1].Reasoning != "The tool said sun." || !turns[1].Stream {
		t.Errorf("recorded turns wrong: %+v", turns)
	}
	for _, tr := range turns {
		if strings.Contains(string(tr.Request), "sk-upstream-secret") || strings.Contains(string(tr.Request), "client-key") {
			t.Error("a key was stored with the turn")
		}
	}
}

func anthropicClient(e *env) anthropic.Client {
	return anthropic.NewClient(aoption.WithBaseURL(e.url), aoption.WithAPIKey("client-key"), aoption.WithMaxRetries(0))
}

func anthropicParams() anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model: "claude-sonnet-4-5", MaxTokens: 256,
		System:   []anthropic.TextBlockParam{{Text: "be brief"}},
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("weather?"))},
		Tools: []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{Name: "get_weather",
			InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"city": map[string]any{"type": "string"}}}}}},
	}
}

// TestAnthropicSDKTranslated drives the Anthropic SDK against an
// OpenAI-style upstream: requests and answers are translated both ways.
func TestAnthropicSDKTranslated(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	testAnthropicSDK(t, e, "/v1/chat/completions", "claude-sonnet-4-5")
	body := e.upstreamBodies("/v1/chat/completions")[1]
	msgs := body["messages"].([]any)
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.(map[string]any)["role"].(string))
	}
	if diff := cmp.Diff([]string{"system", "user", "assistant", "tool", "tool"}, roles); diff != "" {
		t.Errorf("translated roles (-want +got):\n%s", diff)
	}
}

// TestAnthropicSDKNative drives the Anthropic SDK against an Anthropic
// upstream: requests pass natively.
func TestAnthropicSDKNative(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withConfig(func(c *config.Config) { must(t, c.Set("llm.provider", "anthropic")) }))
	testAnthropicSDK(t, e, "/v1/messages", "fake-model")
	hdr := e.up.Requests()[0].Header
	if hdr.Get("X-Api-Key") != "sk-upstream-secret-key" || hdr.Get("Anthropic-Version") == "" || hdr.Get("Authorization") != "" {
		t.Errorf("native upstream headers: x-api-key %q version %q auth %q", hdr.Get("X-Api-Key"), hdr.Get("Anthropic-Version"), hdr.Get("Authorization"))
	}
}

func testAnthropicSDK(t *testing.T, e *env, upstreamPath, wantModel string) {
	t.Helper()
	client := anthropicClient(e)
	ctx := context.Background()
	params := anthropicParams()
	e.up.Enqueue(toolReply())
	msg, err := client.Messages.New(ctx, params)
	must(t, err)
	if msg.StopReason != "tool_use" || len(msg.Content) != 3 || msg.Content[0].Text != "Let me check." ||
		msg.Content[2].Name != "get_weather" || string(msg.Content[2].Input) != `{"city":"Rome"}` || string(msg.Model) != wantModel {
		t.Fatalf("non-streaming message = %+v", msg)
	}
	params.Messages = append(params.Messages, msg.ToParam(), anthropic.NewUserMessage(
		anthropic.NewToolResultBlock(msg.Content[1].ID, `{"temp":21}`, false),
		anthropic.NewToolResultBlock(msg.Content[2].ID, `{"temp":25}`, false)))

	e.up.Enqueue(fakeupstream.Reply{Text: "Sunny in Paris, warm in Rome.", ToolCalls: []fakeupstream.ToolCall{{ID: "call_3", Name: "get_weather", Arguments: `{"city":"Oslo"}`}}})
	stream := client.Messages.NewStreaming(ctx, params)
	var acc anthropic.Message
	var events []string
	for stream.Next() {
		ev := stream.Current()
		events = append(events, ev.Type)
		must(t, acc.Accumulate(ev))
	}
	must(t, stream.Err())
	if len(acc.Content) != 2 || acc.Content[0].Text != "Sunny in Paris, warm in Rome." || string(acc.Content[1].Input) != `{"city":"Oslo"}` || acc.StopReason != "tool_use" {
		t.Errorf("streamed message = %+v", acc.Content)
	}
	if events[0] != "message_start" || events[len(events)-1] != "message_stop" {
		t.Errorf("event order %v", events)
	}
	if n := len(e.upstreamBodies(upstreamPath)); n != 2 {
		t.Errorf("upstream %s got %d requests", upstreamPath, n)
	}
	turns := e.turns(2)
	if turns[1].ResponseText != "Sunny in Paris, warm in Rome." || !strings.Contains(turns[1].ToolCalls, "Oslo") || turns[1].API != "anthropic" {
		t.Errorf("recorded: %+v", turns[1])
	}
	var raw map[string]any
	must(t, json.Unmarshal(turns[1].Request, &raw))
}
