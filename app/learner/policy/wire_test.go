package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/metaclaw/metaclaw/app/learner/policy/toolparse"
	"github.com/metaclaw/metaclaw/app/learner/tinker"
	"github.com/metaclaw/metaclaw/proxy/openai"
	"github.com/metaclaw/metaclaw/proxy/sse"
)

func TestDecodeAnswer(t *testing.T) {
	t.Parallel()
	rt := testRuntime(t)
	imEnd := rt.stopIDs[0]
	enc := func(s string, end bool) []int {
		ids := rt.tok.Encode(s)
		if end {
			ids = append(ids, imEnd)
		}
		return ids
	}
	tests := []struct {
		name      string
		text      string
		end       bool
		reason    string
		job       job
		content   string
		reasoning string
		calls     []string // name + arguments
		finish    string
	}{
		{"plain", "It is sunny.", true, "stop", job{}, "It is sunny.", "", nil, "stop"},
		{"think", "<think>\nParis is in France.\n</think>\n\nIt is sunny.", true, "stop", job{}, "It is sunny.", "Paris is in France.", nil, "stop"},
		{"prompt opened think", "Paris is in France.\n</think>\n\nSunny.", true, "stop", job{thinking: true}, "Sunny.", "Paris is in France.", nil, "stop"},
		{"stopped inside think", "still thinking", false, "length", job{thinking: true}, "", "still thinking", nil, "length"},
		{"tool call", `<tool_call>{"name":"get_weather","arguments":{"city":"Paris"}}</tool_call>`, true, "stop", job{}, "", "",
			[]string{`get_weather {"city":"Paris"}`}, "tool_calls"},
		{"text and two calls", "Checking.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n" +
			"<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\"}}\n</tool_call>", true, "stop", job{}, "Checking.", "",
			[]string{`get_weather {"city": "Paris"}`, `get_weather {"city": "Rome"}`}, "tool_calls"},
		{"one call allowed", "Checking.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n" +
			"<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\"}}\n</tool_call>", true, "stop", job{oneCall: true}, "Checking.", "",
			[]string{`get_weather {"city": "Paris"}`}, "tool_calls"},
		{"no tools: a call is text", `Sure. <tool_call>{"name":"get_weather","arguments":{}}</tool_call>`, true, "stop", job{noTools: true},
			`Sure. <tool_call>{"name":"get_weather","arguments":{}}</tool_call>`, "", nil, "stop"},
		{"no tools: plain", "It is sunny.", true, "stop", job{noTools: true}, "It is sunny.", "", nil, "stop"},
		{"length", "It is sun", false, "length", job{}, "It is sun", "", nil, "length"},
		{"stop string cut", "one two END three", false, "stop", job{stops: []string{"END"}}, "one two ", "", nil, "stop"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			toks := enc(tc.text, tc.end)
			j := tc.job
			j.prompt = []int{1, 2, 3}
			a := rt.decodeAnswer(&j, tinker.SampledSequence{Tokens: toks, StopReason: tc.reason})
			var calls []string
			for _, c := range a.calls {
				calls = append(calls, c.Name+" "+c.Arguments)
				if !strings.HasPrefix(c.ID, "call_") {
					t.Errorf("call id %q", c.ID)
				}
			}
			got := []any{a.content, a.reasoning, calls, a.finish}
			if diff := cmp.Diff([]any{tc.content, tc.reasoning, tc.calls, tc.finish}, got); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
			if a.usage.PromptTokens != 3 || a.usage.CompletionTokens != len(toks) || a.usage.TotalTokens != 3+len(toks) {
				t.Errorf("usage %+v", a.usage)
			}
		})
	}
}

var testAnswer = answer{
	content:   "Let me check the weather in Paris for you — ☀️ soon. " + strings.Repeat("x", 60),
	reasoning: "The user wants the weather; call the tool.",
	calls: []toolparse.ToolCall{
		{ID: "call_a", Name: "get_weather", Arguments: `{"city": "Paris", "unit": "celsius", "days": 3, "detail": "hourly"}`},
		{ID: "call_b", Name: "get_time", Arguments: `{}`},
	},
	finish: "tool_calls",
	usage:  openai.Usage{PromptTokens: 10, CompletionTokens: 20, TotalTokens: 30},
}

// readStream parses an SSE body into its chunks and checks that it ends
// with exactly one [DONE].
func readStream(t *testing.T, body []byte) []openai.ChatCompletionChunk {
	t.Helper()
	r := sse.NewReader(bytes.NewReader(body))
	var out []openai.ChatCompletionChunk
	done := false
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if done {
			t.Fatalf("event after [DONE]: %s", ev.Data)
		}
		if string(ev.Data) == "[DONE]" {
			done = true
			continue
		}
		var c openai.ChatCompletionChunk
		if err := json.Unmarshal(ev.Data, &c); err != nil {
			t.Fatalf("chunk %s: %v", ev.Data, err)
		}
		out = append(out, c)
	}
	if !done {
		t.Fatal("no [DONE]")
	}
	return out
}

func TestStreamBodyOrderAndContent(t *testing.T) {
	t.Parallel()
	m := meta{id: "chatcmpl-1", created: 5, model: "m"}
	body, err := streamBody(m, testAnswer, true)
	if err != nil {
		t.Fatal(err)
	}
	chunks := readStream(t, body)
	if first := chunks[0].Choices[0].Delta; first.Role != "assistant" || first.Content == nil || *first.Content != "" {
		t.Errorf("first chunk %+v", first)
	}
	// The order: role, reasoning, content, tool calls, finish, usage.
	stage := func(c openai.ChatCompletionChunk) int {
		switch {
		case len(c.Choices) == 0:
			return 5
		case c.Choices[0].FinishReason != nil:
			return 4
		case len(c.Choices[0].Delta.ToolCalls) > 0:
			return 3
		case c.Choices[0].Delta.Content != nil && c.Choices[0].Delta.Role == "":
			return 2
		case c.Choices[0].Delta.ReasoningContent != nil:
			return 1
		}
		return 0
	}
	last := 0
	for i, c := range chunks {
		if c.ID != m.id || c.Object != "chat.completion.chunk" || c.Model != "m" || c.Created != 5 {
			t.Errorf("chunk %d header %+v", i, c)
		}
		if s := stage(c); s < last {
			t.Errorf("chunk %d (stage %d) after stage %d", i, s, last)
		} else {
			last = s
		}
	}
	if last != 5 || chunks[len(chunks)-1].Usage.TotalTokens != 30 {
		t.Errorf("no usage chunk last: %+v", chunks[len(chunks)-1])
	}
	acc := openai.Accumulator{}
	for _, c := range chunks {
		data, _ := json.Marshal(c)
		if err := acc.Add(data); err != nil {
			t.Fatal(err)
		}
	}
	if acc.Text() != testAnswer.content || acc.Reasoning() != testAnswer.reasoning || acc.FinishReason() != "tool_calls" {
		t.Errorf("accumulated text %q reasoning %q finish %q", acc.Text(), acc.Reasoning(), acc.FinishReason())
	}
	if diff := cmp.Diff(toolCalls(testAnswer.calls), acc.ToolCalls()); diff != "" {
		t.Errorf("tool calls (-want +got):\n%s", diff)
	}
}

func TestStreamBodyWithoutUsage(t *testing.T) {
	t.Parallel()
	body, err := streamBody(meta{id: "x"}, answer{content: "hi", finish: "stop"}, false)
	if err != nil {
		t.Fatal(err)
	}
	chunks := readStream(t, body)
	if len(chunks) != 3 || chunks[2].Usage != nil || *chunks[2].Choices[0].FinishReason != "stop" {
		t.Errorf("chunks %+v", chunks)
	}
}

func TestCompletionBody(t *testing.T) {
	t.Parallel()
	body, err := completionBody(meta{id: "chatcmpl-2", created: 9, model: "m"}, testAnswer)
	if err != nil {
		t.Fatal(err)
	}
	var got openai.ChatCompletion
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	msg := got.Choices[0].Message
	if got.Object != "chat.completion" || *msg.Content != testAnswer.content || msg.ReasoningContent != testAnswer.reasoning ||
		got.Choices[0].FinishReason != "tool_calls" || got.Usage.TotalTokens != 30 {
		t.Errorf("completion %s", body)
	}
	if diff := cmp.Diff(toolCalls(testAnswer.calls), msg.ToolCalls); diff != "" {
		t.Errorf("tool calls (-want +got):\n%s", diff)
	}
	// Only tool calls: content is null, as OpenAI sends it.
	body, _ = completionBody(meta{}, answer{calls: testAnswer.calls, finish: "tool_calls"})
	if !bytes.Contains(body, []byte(`"content":null`)) {
		t.Errorf("tool-call-only answer: %s", body)
	}
}

func TestPieces(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "abc", strings.Repeat("é", 40), "a☀️b" + strings.Repeat("日本", 30), "\xff\xfe"} {
		ps := pieces(s, 5)
		if strings.Join(ps, "") != s {
			t.Errorf("pieces(%q) lose text: %q", s, ps)
		}
		for _, p := range ps {
			if len(p) > 5 || p == "" {
				t.Errorf("pieces(%q): part %q", s, p)
			}
		}
	}
}

// FuzzStreamMatchesCompletion checks that, whatever the model wrote, the
// streamed answer adds up to the non-streamed one.
func FuzzStreamMatchesCompletion(f *testing.F) {
	rt, err := loadRuntime("testdata/tiny-qwen", "Qwen/Qwen3-8B")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"hi", "<think>a</think>b", "x</think>y", `<tool_call>{"name":"f","arguments":{}}</tool_call>`,
		"a <tool_call>{bad</tool_call>", "日本語 ☀️ " + strings.Repeat("z", 100)} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, text string, thinking bool) {
		j := &job{prompt: []int{1}, thinking: thinking}
		a := rt.decodeAnswer(j, tinker.SampledSequence{Tokens: rt.tok.Encode(text), StopReason: "stop"})
		body, err := streamBody(meta{id: "x"}, a, true)
		if err != nil {
			t.Fatal(err)
		}
		acc := openai.Accumulator{}
		for _, c := range readStream(t, body) {
			data, _ := json.Marshal(c)
			if err := acc.Add(data); err != nil {
				t.Fatal(err)
			}
		}
		var whole openai.ChatCompletion
		body, err = completionBody(meta{id: "x"}, a)
		if err != nil || json.Unmarshal(body, &whole) != nil {
			t.Fatalf("completion %s: %v", body, err)
		}
		msg := whole.Choices[0].Message
		content := ""
		if msg.Content != nil {
			content = *msg.Content
		}
		if acc.Text() != content || acc.Reasoning() != msg.ReasoningContent || acc.FinishReason() != whole.Choices[0].FinishReason ||
			!cmp.Equal(acc.ToolCalls(), msg.ToolCalls) && len(msg.ToolCalls)+len(acc.ToolCalls()) > 0 {
			t.Errorf("stream %q/%q/%v differs from completion %s", acc.Text(), acc.Reasoning(), acc.ToolCalls(), body)
		}
	})
}
