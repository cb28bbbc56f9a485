package openai_test

import (
	"encoding/json"
	"testing"

	sdk "github.com/openai/openai-go/v3"

	"github.com/metaclaw/metaclaw/proxy/openai"
)

// TestAccumulatorAgainstSDK feeds the same chunks to our Accumulator and
// to the official SDK's, and compares the results.
func TestAccumulatorAgainstSDK(t *testing.T) {
	content := func(s string) *string { return &s }
	stop := "tool_calls"
	chunks := []openai.ChatCompletionChunk{
		{Choices: []openai.ChunkChoice{{Delta: openai.Delta{Role: "assistant", Content: content("Let ")}}}},
		{Choices: []openai.ChunkChoice{{Delta: openai.Delta{Content: content("me see.")}}}},
		{Choices: []openai.ChunkChoice{{Delta: openai.Delta{ToolCalls: []openai.ToolCallDelta{
			{Index: 0, ID: "call_1", Type: "function", Function: &openai.FunctionCallDelta{Name: "get", Arguments: `{"a"`}}}}}}},
		{Choices: []openai.ChunkChoice{{Delta: openai.Delta{ToolCalls: []openai.ToolCallDelta{
			{Index: 0, Function: &openai.FunctionCallDelta{Arguments: `:1}`}}}}}}},
		{Choices: []openai.ChunkChoice{{Delta: openai.Delta{ToolCalls: []openai.ToolCallDelta{
			{Index: 1, ID: "call_2", Type: "function", Function: &openai.FunctionCallDelta{Name: "put", Arguments: `{}`}}}}}}},
		{Choices: []openai.ChunkChoice{{FinishReason: &stop}}},
		{Choices: []openai.ChunkChoice{}, Usage: &openai.Usage{PromptTokens: 4, CompletionTokens: 2, TotalTokens: 6}},
	}
	var ours openai.Accumulator
	var theirs sdk.ChatCompletionAccumulator
	for i, c := range chunks {
		c.ID, c.Object, c.Created, c.Model = "chatcmpl-1", "chat.completion.chunk", 1, "gpt-4o"
		data, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if err := ours.Add(data); err != nil {
			t.Fatal(err)
		}
		var sc sdk.ChatCompletionChunk
		if err := json.Unmarshal(data, &sc); err != nil {
			t.Fatalf("SDK rejects chunk %d %s: %v", i, data, err)
		}
		if !theirs.AddChunk(sc) {
			t.Fatalf("SDK accumulator rejects chunk %d: %s", i, data)
		}
	}
	got, err := json.Marshal(ours.Completion())
	if err != nil {
		t.Fatal(err)
	}
	var mine sdk.ChatCompletion
	if err := json.Unmarshal(got, &mine); err != nil {
		t.Fatalf("SDK rejects completion %s: %v", got, err)
	}
	sm, mm := theirs.Choices[0].Message, mine.Choices[0].Message
	if mm.Content != "Let me see." || len(mm.ToolCalls) != 2 {
		t.Fatalf("unexpected result %s", got)
	}
	if sm.Content != mm.Content || len(sm.ToolCalls) != len(mm.ToolCalls) ||
		theirs.Choices[0].FinishReason != mine.Choices[0].FinishReason || theirs.Usage.TotalTokens != mine.Usage.TotalTokens {
		t.Fatalf("mismatch:\nsdk  %s\nours %s", theirs.RawJSON(), got)
	}
	for i := range sm.ToolCalls {
		if sm.ToolCalls[i].ID != mm.ToolCalls[i].ID || sm.ToolCalls[i].Function.Arguments != mm.ToolCalls[i].Function.Arguments {
			t.Errorf("tool %d: sdk %+v ours %+v", i, sm.ToolCalls[i].Function, mm.ToolCalls[i].Function)
		}
	}
}
