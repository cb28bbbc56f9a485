package fakeupstream

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
)

// TestModelPlaysAToolLoopOverStreaming drives a two-step tool loop with
// openai-go's streaming client: the model answers by the conversation, not
// by the order of the requests.
func TestModelPlaysAToolLoopOverStreaming(t *testing.T) {
	s, base := startServer(t)
	m := NewModel(TextReply("no rule"),
		Rule{Name: "judge", System: "You are a judge", Steps: []Reply{{Text: `{"score": 1}`}}},
		Rule{Name: "file", User: "read notes", Steps: []Reply{
			{ToolCalls: []ToolCall{{ID: "call_a", Name: "read", Arguments: `{"path":"notes.txt"}`}}},
			{Text: `The notes say \bbox{B}.`},
		}})
	s.SetDefault(Reply{Func: m.Reply})
	c := openaiClient(base)
	tools := []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: "read"})}
	msgs := []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("You are an agent."), openai.UserMessage("Please read notes.txt")}
	first := stream(t, c, openai.ChatCompletionNewParams{Model: "m", Messages: msgs, Tools: tools})
	if len(first.ToolCalls) != 1 || first.ToolCalls[0].Function.Name != "read" {
		t.Fatalf("first step = %+v, want the read call", first)
	}
	msgs = append(msgs, first.ToParam(), openai.ToolMessage("B is right", first.ToolCalls[0].ID))
	second := stream(t, c, openai.ChatCompletionNewParams{Model: "m", Messages: msgs, Tools: tools})
	if second.Content != `The notes say \bbox{B}.` {
		t.Errorf("second step = %q", second.Content)
	}
	// An unrelated request in between (a judge call) takes its own rule.
	judge := stream(t, c, openai.ChatCompletionNewParams{Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{
		openai.SystemMessage("You are a judge."), openai.UserMessage("score this")}})
	if judge.Content != `{"score": 1}` {
		t.Errorf("judge = %q", judge.Content)
	}
	other := stream(t, c, openai.ChatCompletionNewParams{Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}})
	if other.Content != "no rule" {
		t.Errorf("fallback = %q", other.Content)
	}
	if m.Hits("file") != 2 || m.Hits("judge") != 1 || m.Hits("") != 1 {
		t.Errorf("hits: file %d judge %d fallback %d", m.Hits("file"), m.Hits("judge"), m.Hits(""))
	}
}

func stream(t *testing.T, c *openai.Client, p openai.ChatCompletionNewParams) openai.ChatCompletionMessage {
	t.Helper()
	st := c.Chat.Completions.NewStreaming(context.Background(), p)
	var acc openai.ChatCompletionAccumulator
	for st.Next() {
		acc.AddChunk(st.Current())
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	if len(acc.Choices) != 1 {
		t.Fatalf("%d choices", len(acc.Choices))
	}
	return acc.Choices[0].Message
}

// TestParseConversationAnthropic reads the system blocks, the tool result
// turn and the step count of an Anthropic request.
func TestParseConversationAnthropic(t *testing.T) {
	body := []byte(`{"model":"m","max_tokens":10,"system":[{"type":"text","text":"STABLE"},{"type":"text","text":"DYNAMIC"}],
		"tools":[{"name":"read","input_schema":{}}],
		"messages":[{"role":"user","content":[{"type":"text","text":"read it"}]},
		{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"read","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"FILE"}]}]}]}`)
	got := ParseConversation(body)
	want := Conversation{System: "STABLE\nDYNAMIC", LastUser: "read it", Steps: 1, Tools: []string{"read"},
		Messages: []ModelMessage{{Role: "user", Text: "read it"}, {Role: "assistant"}, {Role: "user", Text: "FILE"}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("conversation (-want +got):\n%s", d)
	}
}
