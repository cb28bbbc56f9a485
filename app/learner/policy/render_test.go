package policy

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/metaclaw/metaclaw/app/learner/policy/chattmpl"
	"github.com/metaclaw/metaclaw/app/learner/tinker"
)

// testRuntime loads the tiny Qwen-style fixture.
func testRuntime(t *testing.T) *runtime {
	t.Helper()
	rt, err := loadRuntime("testdata/tiny-qwen", "Qwen/Qwen3-8B")
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

const weatherTools = `[{"type":"function","function":{"name":"get_weather","description":"weather for a city","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]`

func TestLoadRuntimeStopTokens(t *testing.T) {
	t.Parallel()
	rt := testRuntime(t)
	if diff := cmp.Diff([]string{"<|im_end|>", "<|endoftext|>"}, rt.stopTexts); diff != "" {
		t.Errorf("stop texts (-want +got):\n%s", diff)
	}
	for i, id := range rt.stopIDs {
		if tok, _ := rt.tok.Token(id); tok != rt.stopTexts[i] {
			t.Errorf("stop id %d is %q, want %q", id, tok, rt.stopTexts[i])
		}
	}
}

// TestPreparePromptIsTheTemplate checks that the prompt tokens are the
// chat template's rendering of the request's messages and tools, encoded.
func TestPreparePromptIsTheTemplate(t *testing.T) {
	t.Parallel()
	rt := testRuntime(t)
	msgs := `[{"role":"system","content":"Be brief.\n\n## Skills\nuse metric units"},{"role":"user","content":"weather in Paris?"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\": \"Paris\"}"}}]},` +
		`{"role":"tool","tool_call_id":"call_1","content":"{\"temp\":21}"}]`
	body := `{"model":"m","messages":` + msgs + `,"tools":` + weatherTools + `}`
	j, err := rt.prepare([]byte(body), 64)
	if err != nil {
		t.Fatal(err)
	}
	text, err := rt.tmpl.Render(json.RawMessage(msgs), json.RawMessage(weatherTools), chattmpl.Options{AddGenerationPrompt: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rt.tok.Encode(text), j.prompt); diff != "" {
		t.Errorf("prompt tokens (-want +got):\n%s", diff)
	}
	prompt := rt.tok.Decode(j.prompt)
	for _, want := range []string{"## Skills\nuse metric units", `"name": "get_weather"`,
		"<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
		"<tool_response>\n{\"temp\":21}\n</tool_response>", "<|im_start|>assistant\n"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("prompt lacks %q:\n%s", want, prompt)
		}
	}
	if !strings.HasSuffix(prompt, "<|im_start|>assistant\n") {
		t.Errorf("prompt does not end with the generation prompt: %q", prompt)
	}
}

func TestPrepareSamplingParams(t *testing.T) {
	t.Parallel()
	rt := testRuntime(t)
	seed := int64(7)
	tests := []struct {
		name  string
		extra string
		want  tinker.SamplingParams
	}{
		{"defaults", ``, tinker.SamplingParams{MaxTokens: 99, Temperature: 1, TopK: -1, TopP: 1, StopTokens: rt.stopIDs}},
		{"max_tokens", `,"max_tokens":10`, tinker.SamplingParams{MaxTokens: 10, Temperature: 1, TopK: -1, TopP: 1, StopTokens: rt.stopIDs}},
		{"max_completion_tokens wins", `,"max_tokens":10,"max_completion_tokens":20`,
			tinker.SamplingParams{MaxTokens: 20, Temperature: 1, TopK: -1, TopP: 1, StopTokens: rt.stopIDs}},
		{"temperature top_p top_k seed", `,"temperature":0.2,"top_p":0.9,"top_k":40,"seed":7`,
			tinker.SamplingParams{MaxTokens: 99, Temperature: 0.2, TopK: 40, TopP: 0.9, Seed: &seed, StopTokens: rt.stopIDs}},
		{"greedy", `,"temperature":0`, tinker.SamplingParams{MaxTokens: 99, Temperature: 0, TopK: -1, TopP: 1, StopTokens: rt.stopIDs}},
		{"stop string", `,"stop":"END"`,
			tinker.SamplingParams{MaxTokens: 99, Temperature: 1, TopK: -1, TopP: 1, StopStrings: []string{"END", "<|im_end|>", "<|endoftext|>"}}},
		{"stop list", `,"stop":["A","","B"]`,
			tinker.SamplingParams{MaxTokens: 99, Temperature: 1, TopK: -1, TopP: 1, StopStrings: []string{"A", "B", "<|im_end|>", "<|endoftext|>"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			j, err := rt.prepare([]byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]`+tc.extra+`}`), 99)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, j.params); diff != "" {
				t.Errorf("params (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPrepareOptions(t *testing.T) {
	t.Parallel()
	rt := testRuntime(t)
	j, err := rt.prepare([]byte(`{"model":"my-model","stream":true,"stream_options":{"include_usage":true},`+
		`"chat_template_kwargs":{"enable_thinking":false},"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`), 9)
	if err != nil {
		t.Fatal(err)
	}
	if j.model != "my-model" || !j.stream || !j.includeUsage || j.thinking {
		t.Errorf("job %+v", j)
	}
	if p := rt.tok.Decode(j.prompt); !strings.HasSuffix(p, "<|im_start|>assistant\n<think>\n\n</think>\n\n") || !strings.Contains(p, "user\nhi<|im_end|>") {
		t.Errorf("enable_thinking=false not rendered: %q", p)
	}
}

// TestPrepareToolChoice: "auto", n 1, a text response_format and logprobs
// false are served; "none" renders the conversation without its tools;
// parallel_tool_calls false allows one call.
func TestPrepareToolChoice(t *testing.T) {
	t.Parallel()
	rt := testRuntime(t)
	const tools = `"tools":[{"type":"function","function":{"name":"get_weather","description":"Weather of a city","parameters":{"type":"object"}}}]`
	render := func(extra string) (*job, string) {
		t.Helper()
		j, err := rt.prepare([]byte(`{"messages":[{"role":"user","content":"hi"}],`+tools+extra+`}`), 9)
		if err != nil {
			t.Fatalf("%s: %v", extra, err)
		}
		return j, rt.tok.Decode(j.prompt)
	}
	_, plain := render("")
	if !strings.Contains(plain, "get_weather") {
		t.Fatalf("tools not rendered: %q", plain)
	}
	for _, extra := range []string{`,"tool_choice":"auto"`, `,"n":1`, `,"response_format":{"type":"text"}`, `,"logprobs":false`, `,"n":null`} {
		if j, p := render(extra); p != plain || j.noTools || j.oneCall {
			t.Errorf("%s: prompt %q, job %+v", extra, p, j)
		}
	}
	j, none := render(`,"tool_choice":"none"`)
	if !j.noTools || strings.Contains(none, "get_weather") || !strings.Contains(none, "user\nhi<|im_end|>") {
		t.Errorf("tool_choice none: noTools %v, prompt %q", j.noTools, none)
	}
	if j, _ := render(`,"parallel_tool_calls":false`); !j.oneCall {
		t.Error("parallel_tool_calls false not kept")
	}
}

func TestPrepareErrors(t *testing.T) {
	t.Parallel()
	rt := testRuntime(t)
	tests := []struct {
		name   string
		body   string
		status int
		code   string
	}{
		{"not json", `{"model":`, http.StatusBadRequest, "invalid_json"},
		{"no messages", `{"model":"m"}`, http.StatusBadRequest, "missing_messages"},
		{"empty messages", `{"model":"m","messages":[]}`, http.StatusBadRequest, "invalid_messages"},
		{"image", `{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:,"}}]}]}`,
			http.StatusNotImplemented, "unsupported_content"},
		{"bad tools", `{"messages":[{"role":"user","content":"hi"}],"tools":{"x":1}}`, http.StatusBadRequest, "invalid_tools"},
		{"bad kwargs", `{"messages":[{"role":"user","content":"hi"}],"chat_template_kwargs":[1]}`, http.StatusBadRequest, "invalid_type"},
		{"negative temperature", `{"messages":[{"role":"user","content":"hi"}],"temperature":-1}`, http.StatusBadRequest, "invalid_type"},
		{"zero max tokens", `{"messages":[{"role":"user","content":"hi"}],"max_tokens":0}`, http.StatusBadRequest, "invalid_type"},
		{"two choices", `{"messages":[{"role":"user","content":"hi"}],"n":2}`, http.StatusNotImplemented, "unsupported_parameter"},
		{"n not a number", `{"messages":[{"role":"user","content":"hi"}],"n":"1"}`, http.StatusNotImplemented, "unsupported_parameter"},
		{"json output", `{"messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_object"}}`, http.StatusNotImplemented, "unsupported_parameter"},
		{"schema output", `{"messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":{}}}}`,
			http.StatusNotImplemented, "unsupported_parameter"},
		{"logprobs", `{"messages":[{"role":"user","content":"hi"}],"logprobs":true}`, http.StatusNotImplemented, "unsupported_parameter"},
		{"required tool", `{"messages":[{"role":"user","content":"hi"}],"tool_choice":"required"}`, http.StatusNotImplemented, "unsupported_parameter"},
		{"named tool", `{"messages":[{"role":"user","content":"hi"}],"tool_choice":{"type":"function","function":{"name":"f"}}}`,
			http.StatusNotImplemented, "unsupported_parameter"},
		{"allowed tools", `{"messages":[{"role":"user","content":"hi"}],"tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"auto","tools":[]}}}`,
			http.StatusNotImplemented, "unsupported_parameter"},
		{"unknown tool choice", `{"messages":[{"role":"user","content":"hi"}],"tool_choice":"sometimes"}`, http.StatusNotImplemented, "unsupported_parameter"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := rt.prepare([]byte(tc.body), 9)
			var he *httpError
			if !errors.As(err, &he) || he.status != tc.status || he.code != tc.code {
				t.Fatalf("err = %#v, want status %d code %s", err, tc.status, tc.code)
			}
		})
	}
}

func TestPrepareTemplateErrorIs400(t *testing.T) {
	t.Parallel()
	tmpl, err := chattmpl.NewRenderer(&chattmpl.Config{Templates: map[string]string{
		"default": `{% if messages[0].role != 'user' %}{{ raise_exception('first message must be from the user') }}{% endif %}x`}})
	if err != nil {
		t.Fatal(err)
	}
	rt := testRuntime(t)
	rt2 := *rt
	rt2.tmpl = tmpl
	_, err = rt2.prepare([]byte(`{"messages":[{"role":"assistant","content":"hi"}]}`), 9)
	var he *httpError
	if !errors.As(err, &he) || he.status != http.StatusBadRequest || !strings.Contains(he.msg, "first message must be from the user") {
		t.Fatalf("err = %#v", err)
	}
}

func TestOpensThink(t *testing.T) {
	t.Parallel()
	for prompt, want := range map[string]bool{
		"<|im_start|>assistant\n<think>\n":               true,
		"<|im_start|>assistant\n":                        false,
		"<|im_start|>assistant\n<think>\n\n</think>\n\n": false,
		"<｜Assistant｜><think>":                           true,
	} {
		if got := opensThink(prompt); got != want {
			t.Errorf("opensThink(%q) = %v", prompt, got)
		}
	}
	if !slices.Equal(nonEmpty([]string{"", "a"}), []string{"a"}) {
		t.Error("nonEmpty")
	}
}
