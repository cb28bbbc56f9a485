package toolparse

import (
	"fmt"
	"os"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMain gives calls predictable ids.
func TestMain(m *testing.M) {
	var n atomic.Int64
	newID = func() string {
		return fmt.Sprintf("call_%d", n.Add(1))
	}
	os.Exit(m.Run())
}

// call builds an expected call; id "" means any generated id.
func call(name, args string) ToolCall {
	return ToolCall{Name: name, Arguments: args}
}

type parseCase struct {
	name string
	text string
	want Result
}

// check parses each case and compares, ignoring generated ids.
func check(t *testing.T, f Format, cases []parseCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Parse(tc.text, f)
			for i := range got.ToolCalls {
				if i < len(tc.want.ToolCalls) && tc.want.ToolCalls[i].ID == "" {
					got.ToolCalls[i].ID = ""
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", tc.text, diff)
			}
		})
	}
}

func TestHermes(t *testing.T) {
	check(t, FormatHermes, []parseCase{
		{"plain text", "Hello!\n", Result{Content: "Hello!\n"}},
		{"single call", "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
			Result{ToolCalls: []ToolCall{call("get_weather", `{"city": "Paris"}`)}}},
		{"several calls", "<tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n</tool_call>\n<tool_call>\n{\"name\": \"b\", \"arguments\": {\"x\": 1}}\n</tool_call>",
			Result{ToolCalls: []ToolCall{call("a", `{}`), call("b", `{"x": 1}`)}}},
		{"content before and after", "Let me check.\n\n<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>\nDone.",
			Result{Content: "Let me check.\nDone.", ToolCalls: []ToolCall{call("f", `{}`)}}},
		{"think then call", "<think>\nI need the weather.\n</think>\n\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\"}}\n</tool_call>",
			Result{Reasoning: "I need the weather.", ToolCalls: []ToolCall{call("get_weather", `{"city": "Rome"}`)}}},
		{"bare think close", "reasoning first\n</think>\n\nThe answer.",
			Result{Content: "The answer.", Reasoning: "reasoning first"}},
		{"unclosed think", "<think>\nstill thinking", Result{Reasoning: "still thinking"}},
		{"call inside think is reasoning", "<think>maybe <tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call></think>ok",
			Result{Content: "ok", Reasoning: "maybe <tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>"}},
		{"malformed json left as content", "Hi <tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": }\n</tool_call> bye",
			Result{Content: "Hi <tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": }\n</tool_call> bye"}},
		{"missing name left as content", "<tool_call>{\"arguments\": {}}</tool_call>",
			Result{Content: "<tool_call>{\"arguments\": {}}</tool_call>"}},
		{"malformed then good", "<tool_call>oops</tool_call><tool_call>{\"name\": \"g\", \"arguments\": {}}</tool_call>",
			Result{Content: "<tool_call>oops</tool_call>", ToolCalls: []ToolCall{call("g", `{}`)}}},
		{"unicode arguments", "<tool_call>\n{\"name\": \"translate\", \"arguments\": {\"text\": \"你好，世界 🎉\", \"to\": \"Ελληνικά\"}}\n</tool_call>",
			Result{ToolCalls: []ToolCall{call("translate", `{"text": "你好，世界 🎉", "to": "Ελληνικά"}`)}}},
		{"key order preserved", "<tool_call>{\"name\": \"f\", \"arguments\": {\"zeta\": 1, \"alpha\": {\"y\": 2, \"b\": 3}, \"mid\": [3, 1]}}</tool_call>",
			Result{ToolCalls: []ToolCall{call("f", `{"zeta": 1, "alpha": {"y": 2, "b": 3}, "mid": [3, 1]}`)}}},
		{"arguments as a json string", "<tool_call>{\"name\": \"f\", \"arguments\": \"{\\\"a\\\": 1}\"}</tool_call>",
			Result{ToolCalls: []ToolCall{call("f", `{"a": 1}`)}}},
		{"no arguments", "<tool_call>{\"name\": \"now\"}</tool_call>", Result{ToolCalls: []ToolCall{call("now", `{}`)}}},
		{"unclosed block with whole call", "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n",
			Result{ToolCalls: []ToolCall{call("f", `{"a": 1}`)}}},
		{"unclosed block cut short", "<tool_call>\n{\"name\": \"f\", \"argu",
			Result{Content: "<tool_call>\n{\"name\": \"f\", \"argu"}},
	})
}

func TestLlama3(t *testing.T) {
	check(t, FormatLlama3, []parseCase{
		{"plain text", "The capital is Paris.", Result{Content: "The capital is Paris."}},
		{"json call", `{"name": "get_weather", "parameters": {"city": "Paris", "unit": "celsius"}}`,
			Result{ToolCalls: []ToolCall{call("get_weather", `{"city": "Paris", "unit": "celsius"}`)}}},
		{"python tag", "<|python_tag|>{\"name\": \"search\", \"parameters\": {\"q\": \"x\"}}",
			Result{ToolCalls: []ToolCall{call("search", `{"q": "x"}`)}}},
		{"content before python tag", "Searching.<|python_tag|>{\"name\": \"search\", \"parameters\": {}}",
			Result{Content: "Searching.", ToolCalls: []ToolCall{call("search", `{}`)}}},
		{"several calls", "{\"name\": \"a\", \"parameters\": {}}; {\"name\": \"b\", \"arguments\": {\"k\": \"v\"}}",
			Result{ToolCalls: []ToolCall{call("a", `{}`), call("b", `{"k": "v"}`)}}},
		{"json that is not a call", `{"answer": 42}`, Result{Content: `{"answer": 42}`}},
		{"json then text is content", `{"name": "a", "parameters": {}} and more`, Result{Content: `{"name": "a", "parameters": {}} and more`}},
		{"think then call", "<think>hmm</think>{\"name\": \"a\", \"parameters\": {\"é\": \"ü\"}}",
			Result{Reasoning: "hmm", ToolCalls: []ToolCall{call("a", `{"é": "ü"}`)}}},
		{"malformed", "<|python_tag|>{\"name\": \"a\", \"parameters\": {", Result{Content: "<|python_tag|>{\"name\": \"a\", \"parameters\": {"}},
	})
}

func TestKimiK2(t *testing.T) {
	const (
		begin = "<|tool_calls_section_begin|>"
		end   = "<|tool_calls_section_end|>"
	)
	one := func(id, args string) string {
		return "<|tool_call_begin|>" + id + "<|tool_call_argument_begin|>" + args + "<|tool_call_end|>"
	}
	check(t, FormatKimiK2, []parseCase{
		{"plain text", "Hi.", Result{Content: "Hi."}},
		{"single call", begin + one("functions.get_weather:0", `{"city": "Paris"}`) + end,
			Result{ToolCalls: []ToolCall{{ID: "functions.get_weather:0", Name: "get_weather", Arguments: `{"city": "Paris"}`}}}},
		{"several calls and content", "Checking both." + begin + one("functions.a:0", `{}`) + "\n" + one("functions.b:1", `{"z": 1, "a": 2}`) + end,
			Result{Content: "Checking both.", ToolCalls: []ToolCall{
				{ID: "functions.a:0", Name: "a", Arguments: `{}`},
				{ID: "functions.b:1", Name: "b", Arguments: `{"z": 1, "a": 2}`}}}},
		{"think then call", "<think>plan</think>" + begin + one("functions.f:0", `{"q": "中文"}`) + end,
			Result{Reasoning: "plan", ToolCalls: []ToolCall{{ID: "functions.f:0", Name: "f", Arguments: `{"q": "中文"}`}}}},
		{"singular section name", "<|tool_call_section_begin|>" + one("functions.f:0", `{}`) + end,
			Result{ToolCalls: []ToolCall{{ID: "functions.f:0", Name: "f", Arguments: `{}`}}}},
		{"singular section names both ends", "<|tool_call_section_begin|>" + one("functions.f:0", `{}`) + "<|tool_call_section_end|>",
			Result{ToolCalls: []ToolCall{{ID: "functions.f:0", Name: "f", Arguments: `{}`}}}},
		{"k2.5: reasoning the prompt opened, text, call", "look it up</think>Checking." + begin + one("functions.get_weather:0", `{"city": "Beijing"}`) + end,
			Result{Reasoning: "look it up", Content: "Checking.", ToolCalls: []ToolCall{{ID: "functions.get_weather:0", Name: "get_weather", Arguments: `{"city": "Beijing"}`}}}},
		{"malformed json left as content", begin + one("functions.f:0", `{"a": `) + end,
			Result{Content: begin + one("functions.f:0", `{"a": `) + end}},
		{"unclosed section with whole calls", begin + one("functions.f:0", `{}`),
			Result{ToolCalls: []ToolCall{{ID: "functions.f:0", Name: "f", Arguments: `{}`}}}},
	})
}

func TestDeepSeekV3(t *testing.T) {
	const (
		begin = "<｜tool▁calls▁begin｜>"
		end   = "<｜tool▁calls▁end｜>"
	)
	v3 := func(name, args string) string {
		return "<｜tool▁call▁begin｜>function<｜tool▁sep｜>" + name + "\n```json\n" + args + "\n```<｜tool▁call▁end｜>"
	}
	v31 := func(name, args string) string {
		return "<｜tool▁call▁begin｜>" + name + "<｜tool▁sep｜>" + args + "<｜tool▁call▁end｜>"
	}
	check(t, FormatDeepSeekV3, []parseCase{
		{"plain text", "Sure.", Result{Content: "Sure."}},
		{"v3 single call", begin + v3("get_weather", `{"city": "Paris"}`) + end,
			Result{ToolCalls: []ToolCall{call("get_weather", `{"city": "Paris"}`)}}},
		{"v3 several calls with content", "Let me look.\n\n" + begin + v3("a", `{}`) + "\n" + v3("b", `{"y": 1, "x": 2}`) + end + "\n",
			Result{Content: "Let me look.", ToolCalls: []ToolCall{call("a", `{}`), call("b", `{"y": 1, "x": 2}`)}}},
		{"v3.1 call", begin + v31("search", `{"q": "ünïcode"}`) + end,
			Result{ToolCalls: []ToolCall{call("search", `{"q": "ünïcode"}`)}}},
		{"v3.1 bare think close then call", "reasoning</think>" + begin + v31("f", `{}`) + end,
			Result{Reasoning: "reasoning", ToolCalls: []ToolCall{call("f", `{}`)}}},
		{"v3 missing fence left as content", begin + "<｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n{}<｜tool▁call▁end｜>" + end,
			Result{Content: begin + "<｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n{}<｜tool▁call▁end｜>" + end}},
		{"junk in section left as content", begin + "junk" + v31("f", `{}`) + end,
			Result{Content: begin + "junk" + v31("f", `{}`) + end}},
	})
}

func TestFormatFor(t *testing.T) {
	t.Parallel()
	for model, want := range map[string]Format{
		"Qwen/Qwen3-8B":                      FormatHermes,
		"NousResearch/Hermes-3-Llama-3.1-8B": FormatHermes,
		"meta-llama/Llama-3.1-8B-Instruct":   FormatLlama3,
		"moonshotai/Kimi-K2-Instruct":        FormatKimiK2,
		"deepseek-ai/DeepSeek-V3.1":          FormatDeepSeekV3,
		"Qwen/Qwen3-30B-A3B:peft:131072":     FormatHermes,
		"some-unknown-model":                 FormatHermes,
	} {
		if got := FormatFor(model); got != want {
			t.Errorf("FormatFor(%q) = %s, want %s", model, got, want)
		}
	}
}

func TestUnknownFormatIsHermes(t *testing.T) {
	t.Parallel()
	got := Parse("<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>", Format("gpt_oss"))
	if len(got.ToolCalls) != 1 || got.ToolCalls[0].Name != "f" {
		t.Fatalf("Parse with unknown format = %+v", got)
	}
}

func TestGeneratedIDsAreDistinct(t *testing.T) {
	t.Parallel()
	id := randomID
	seen := map[string]bool{}
	for range 100 {
		s := id()
		if seen[s] || len(s) != len("call_")+24 {
			t.Fatalf("id %q repeated or malformed", s)
		}
		seen[s] = true
	}
}
