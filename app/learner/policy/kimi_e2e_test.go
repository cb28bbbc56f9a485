package policy_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/metaclaw/metaclaw/app/learner/tinker/faketinker"
	"github.com/openai/openai-go/v3"
)

// kimiCall is a Kimi K2.5 completion as the model writes it after the
// prompt's "<think>": reasoning, </think>, text, then one call in Kimi's
// section markup (Kimi-K2 docs/tool_call_guidance.md).
const kimiCall = "I should look the weather up.</think>Let me check." +
	"<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>" +
	`{"city": "Beijing"}<|tool_call_end|><|tool_calls_section_end|>`

// kimiReply scripts the fake sampler to answer text, then <|im_end|>.
func (e *env) kimiReply(text string) []int {
	toks := append(kimiTokenizer(e.t).Encode(text), kimiToken(e.t, "<|im_end|>"))
	e.fake.SetResponder(func(faketinker.SampleRequest) [][]int { return [][]int{toks} })
	return toks
}

// TestKimiK25ServesAndRecordsToolCalls serves the seeds' default model,
// moonshotai/Kimi-K2.5, end to end: the tokenizer comes from the (fake)
// Hub's tiktoken.model, the prompt is the K2.5 template's with the tools
// as a TypeScript declaration and an open <think>, the answer's reasoning
// and Kimi tool call reach the OpenAI client (streamed too), and the next
// turn renders the call back as the very tokens that were sampled.
func TestKimiK25ServesAndRecordsToolCalls(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{kimi: true})
	e.startProxy()
	ctx := context.Background()
	client := openaiClient(e, "s-kimi")
	tok := kimiTokenizer(t)

	sampled := e.kimiReply(kimiCall)
	params := openai.ChatCompletionNewParams{Model: "kimi", Tools: []openai.ChatCompletionToolUnionParam{weatherTool},
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather in Beijing?")}}
	got, err := client.Chat.Completions.New(ctx, params)
	must(t, err)
	msg := got.Choices[0].Message
	var raw struct {
		ReasoningContent string `json:"reasoning_content"`
	}
	must(t, json.Unmarshal([]byte(msg.RawJSON()), &raw))
	if msg.Content != "Let me check." || raw.ReasoningContent != "I should look the weather up." || len(msg.ToolCalls) != 1 ||
		msg.ToolCalls[0].ID != "functions.get_weather:0" || msg.ToolCalls[0].Function.Name != "get_weather" ||
		msg.ToolCalls[0].Function.Arguments != `{"city": "Beijing"}` || got.Choices[0].FinishReason != "tool_calls" {
		t.Fatalf("answer = %s", got.RawJSON())
	}
	rec := e.lastSample()
	prompt := tok.Decode(rec.Prompt)
	wantPrompt := "<|im_system|>tool_declare<|im_middle|># Tools\n\n## functions\nnamespace functions {\n" +
		"// weather for a city\ntype get_weather = (_: {\n  city?: string\n}) => any;\n}\n<|im_end|>" +
		"<|im_user|>user<|im_middle|>Weather in Beijing?<|im_end|><|im_assistant|>assistant<|im_middle|><think>"
	if prompt != wantPrompt {
		t.Errorf("prompt = %q\nwant     %q", prompt, wantPrompt)
	}
	stops := []int{kimiToken(t, "[EOS]"), kimiToken(t, "<|im_end|>")}
	if rec.BaseModel != kimiModel || !cmp.Equal(rec.StopTokens, stops) {
		t.Errorf("sampled %s with stops %v, want %s %v", rec.BaseModel, rec.StopTokens, kimiModel, stops)
	}
	turns := e.turns("s-kimi", 1)
	smp, err := e.db.SampleForTurn(ctx, turns[0].ID)
	must(t, err)
	if !cmp.Equal(smp.PromptTokens, rec.Prompt) || !cmp.Equal(smp.SampledTokens, sampled) || smp.BaseModel != kimiModel {
		t.Errorf("stored sample %+v", smp)
	}

	// Streamed: the call arrives as OpenAI tool-call deltas with Kimi's id.
	e.kimiReply(kimiCall)
	stream := client.Chat.Completions.NewStreaming(ctx, params)
	acc := openai.ChatCompletionAccumulator{}
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	must(t, stream.Err())
	if m := acc.Choices[0].Message; m.Content != "Let me check." || len(m.ToolCalls) != 1 ||
		m.ToolCalls[0].ID != "functions.get_weather:0" || m.ToolCalls[0].Function.Arguments != `{"city": "Beijing"}` {
		t.Errorf("streamed message %+v", m)
	}

	// The result comes back: the template renders the call from the id and
	// arguments the client echoes, which are the tokens sampled.
	e.kimiReply("It is sunny in Beijing.")
	params.Messages = append(params.Messages, msg.ToParam(), openai.ToolMessage("sunny", msg.ToolCalls[0].ID))
	_, err = client.Chat.Completions.New(ctx, params)
	must(t, err)
	next := e.lastSample().Prompt
	callTokens := sampled[slices.Index(sampled, kimiToken(t, "<|tool_calls_section_begin|>")) : len(sampled)-1]
	if !containsRun(next, callTokens) {
		t.Errorf("the next prompt does not hold the sampled call tokens:\n%q", tok.Decode(next))
	}
	if p := tok.Decode(next); !strings.Contains(p, "<|im_system|>tool<|im_middle|>## Return of functions.get_weather:0\nsunny<|im_end|>") {
		t.Errorf("tool result not rendered as K2.5 does: %q", p)
	}
	if n := e.chatRequestsToLLM(); n != 0 {
		t.Errorf("llm.* got %d chat requests; the policy should have served", n)
	}
}

func containsRun(s, run []int) bool {
	for i := 0; i+len(run) <= len(s); i++ {
		if slices.Equal(s[i:i+len(run)], run) {
			return true
		}
	}
	return false
}
