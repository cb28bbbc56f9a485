package chattmpl

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/metaclaw/metaclaw/app/learner/policy/tokenizer"
)

// kimiPython is testdata/golden/kimi_python.json: Moonshot's own tool
// encoder (tool_declaration_ts.py) and Python Jinja2, as
// tokenization_kimi.py's apply_chat_template runs them.
type kimiPython struct {
	ToolsTS []struct {
		Name  string  `json:"name"`
		TS    *string `json:"ts"`
		Error string  `json:"error"`
	} `json:"tools_ts"`
	Renderings []struct {
		Name  string `json:"name"`
		Text  string `json:"text"`
		Error string `json:"error"`
	} `json:"renderings"`
}

// kimiJS is the renderings part of testdata/golden/kimi.json:
// @huggingface/jinja's text and tiktoken's ids of the reference text.
type kimiJS struct {
	Renderings []struct {
		Name      string `json:"name"`
		JSText    string `json:"jinja_js_text"`
		JSError   string `json:"jinja_js_error"`
		PythonIDs []int  `json:"python_ids"`
	} `json:"renderings"`
}

func TestKimiToolsTSGolden(t *testing.T) {
	t.Parallel()
	var cases []struct {
		Name  string          `json:"name"`
		Tools json.RawMessage `json:"tools"`
	}
	readJSON(t, &cases, "cases", "kimi_tools.json")
	var py kimiPython
	readJSON(t, &py, "golden", "kimi_python.json")
	if len(py.ToolsTS) != len(cases) {
		t.Fatalf("%d goldens for %d cases: rerun testdata/hfref/kimi_ref.py", len(py.ToolsTS), len(cases))
	}
	for i, c := range cases {
		want := py.ToolsTS[i]
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			v, err := FromJSON(c.Tools)
			if err != nil {
				t.Fatal(err)
			}
			got, err := KimiToolsTS(SortKeys(v))
			if want.TS == nil {
				if !errors.Is(err, errTS) {
					t.Fatalf("got %q, %v; Moonshot's encoder raises %s", got, err, want.Error)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(*want.TS, got); diff != "" {
				t.Errorf("differs from Moonshot's encoder (-want +got):\n%s", diff)
			}
		})
	}
}

// kimiConversation is one case of testdata/cases/kimi_conversations.json.
type kimiConversation struct {
	Name                string          `json:"name"`
	Messages            json.RawMessage `json:"messages"`
	Tools               json.RawMessage `json:"tools"`
	AddGenerationPrompt bool            `json:"add_generation_prompt"`
	Kwargs              map[string]json.RawMessage
}

func TestKimiRenderGolden(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(testdata, "tiny-kimi")
	cfg, err := LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Kimi {
		t.Fatal("tiny-kimi's auto_map names Kimi's tokenizer, Config.Kimi is false")
	}
	r, err := NewRenderer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.LoadTiktokenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var convs []kimiConversation
	readJSON(t, &convs, "cases", "kimi_conversations.json")
	var py kimiPython
	readJSON(t, &py, "golden", "kimi_python.json")
	var js kimiJS
	readJSON(t, &js, "golden", "kimi.json")
	if len(py.Renderings) != len(convs) || len(js.Renderings) != len(convs) {
		t.Fatal("goldens out of date: rerun kimi_ref.py and regen.sh")
	}
	for i, c := range convs {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			want := py.Renderings[i]
			if want.Error != "" || js.Renderings[i].JSError != "" {
				t.Fatalf("reference failed: %s %s", want.Error, js.Renderings[i].JSError)
			}
			if js.Renderings[i].JSText != want.Text {
				t.Fatal("@huggingface/jinja and Python Jinja2 disagree; decide which is right before testing")
			}
			kwargs := map[string]any{}
			for k, v := range c.Kwargs {
				kwargs[k] = v
			}
			got, err := r.Render(c.Messages, c.Tools, Options{AddGenerationPrompt: c.AddGenerationPrompt,
				Kwargs: kwargs, KeepContentParts: true})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want.Text, got); diff != "" {
				t.Fatalf("rendering differs from Kimi's apply_chat_template (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(js.Renderings[i].PythonIDs, tok.Encode(got)); diff != "" {
				t.Errorf("ids differ from tiktoken's (-want +got):\n%s", diff)
			}
		})
	}
}

func TestKimiThinkingOption(t *testing.T) {
	t.Parallel()
	cfg, err := LoadDir(filepath.Join(testdata, "tiny-kimi"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRenderer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	msgs := json.RawMessage(`[{"role":"user","content":"hi"}]`)
	off := false
	tests := []struct {
		name   string
		opts   Options
		suffix string
	}{
		{"default on", Options{AddGenerationPrompt: true}, "<|im_middle|><think>"},
		{"enable_thinking false", Options{AddGenerationPrompt: true, EnableThinking: &off}, "<think></think>"},
		{"thinking kwarg wins", Options{AddGenerationPrompt: true, EnableThinking: &off, Kwargs: map[string]any{"thinking": true}}, "<|im_middle|><think>"},
	}
	for _, tt := range tests {
		got, err := r.Render(msgs, nil, tt.opts)
		if err != nil || !strings.HasSuffix(got, tt.suffix) {
			t.Errorf("%s: %q, %v; want a prompt ending %q", tt.name, got, err, tt.suffix)
		}
	}
}

func TestKimiConfigDetection(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		config string
		kimi   bool
	}{
		{`{"auto_map": {"AutoTokenizer": ["tokenization_kimi.TikTokenTokenizer", null]}}`, true},
		{`{"auto_map": {"AutoTokenizer": "moonshotai/Kimi-K2.5--tokenization_kimi.TikTokenTokenizer"}}`, true},
		{`{"tokenizer_class": "TikTokenTokenizer"}`, false},
		{`{"auto_map": {"AutoTokenizer": ["tokenization_other.Tok", null]}}`, false},
		{`{"auto_map": "odd"}`, false},
	} {
		c, err := ParseConfig([]byte(tc.config))
		if err != nil {
			t.Fatal(err)
		}
		if c.Kimi != tc.kimi {
			t.Errorf("%s: Kimi = %v, want %v", tc.config, c.Kimi, tc.kimi)
		}
	}
}

// FuzzKimiToolsTS checks that any JSON either encodes or is refused with
// errTS (the template then falls back to JSON), never a panic, and that a
// declaration is deterministic.
func FuzzKimiToolsTS(f *testing.F) {
	for _, s := range []string{
		`[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"a":{"type":"array","items":{"$ref":"#"}}}}}}]`,
		`[{"type":"function","function":{"parameters":{"$defs":{"X":true},"properties":{"x":{"$ref":"#/$defs/X"}},"additionalProperties":{}}}}]`,
		`[{"type":"function","function":{"name":1,"description":2}}]`, `{}`, `[1]`, `[{"type":"function","function":[1]}]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := FromJSON([]byte(s))
		if err != nil {
			return
		}
		out, err := KimiToolsTS(SortKeys(v))
		if err != nil && !errors.Is(err, errTS) {
			t.Fatalf("%q: %v", s, err)
		}
		again, _ := KimiToolsTS(SortKeys(v))
		if again != out {
			t.Fatalf("%q: not deterministic", s)
		}
	})
}
