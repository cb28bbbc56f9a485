package chattmpl

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/metaclaw/metaclaw/app/learner/policy/tokenizer"
)

func loadRenderer(t *testing.T, dir string) *Renderer {
	t.Helper()
	cfg, err := LoadDir(filepath.Join(testdata, dir))
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRenderer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRenderTokensGolden renders the conversations with tiny-qwen's own
// tokenizer_config.json and tokenizes the prompt with its tokenizer.json:
// both must equal what @huggingface/jinja and tokenizers.js produce.
func TestRenderTokensGolden(t *testing.T) {
	t.Parallel()
	r := loadRenderer(t, "tiny-qwen")
	tok, err := tokenizer.LoadFile(filepath.Join(testdata, "tiny-qwen", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := expectedRenderings(t)["qwen3-style.jinja"]
	for i, c := range loadConversations(t) {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			opts := Options{AddGenerationPrompt: c.AddGenerationPrompt, KeepContentParts: true, Kwargs: map[string]any{}}
			for k, v := range c.Kwargs {
				opts.Kwargs[k] = v
			}
			text, err := r.Render(c.Messages, c.Tools, opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want[i].Text, text); diff != "" {
				t.Fatalf("rendering (-want +got):\n%s", diff)
			}
			if want[i].IDs == nil {
				t.Fatal("golden has no token ids")
			}
			if diff := cmp.Diff(want[i].IDs, tok.Encode(text)); diff != "" {
				t.Errorf("token ids differ from tokenizers.js (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseConfigForms(t *testing.T) {
	t.Parallel()
	cfg, err := LoadConfig(filepath.Join(testdata, "tiny-llama3", "tokenizer_config.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.SpecialTokens["bos_token"]; got != "<|begin_of_text|>" {
		t.Errorf("bos_token from an AddedToken object = %q", got)
	}
	if len(cfg.Templates) != 2 || cfg.Templates["tool_use"] == "" {
		t.Errorf("named templates = %v", keys(cfg.Templates))
	}
	r, err := NewRenderer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	msgs := json.RawMessage(`[{"role": "user", "content": "hi"}]`)
	tools := json.RawMessage(`[{"type": "function", "function": {"name": "f", "parameters": {}}}]`)
	plain, err := r.Render(msgs, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	withTools, err := r.Render(msgs, tools, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(plain, "<|begin_of_text|>") || strings.Contains(plain, "(tool_use)") {
		t.Errorf("default template not used without tools: %q", plain)
	}
	if !strings.Contains(withTools, "Environment: ipython (tool_use)") {
		t.Errorf("tool_use template not used with tools: %q", withTools)
	}
	if _, err := r.Render(msgs, nil, Options{TemplateName: "missing"}); err == nil {
		t.Error("unknown template name accepted")
	}
	for _, bad := range []string{`{"chat_template": 3}`, `{"eos_token": 5}`, `not json`} {
		if _, err := ParseConfig([]byte(bad)); err == nil {
			t.Errorf("ParseConfig(%s) accepted", bad)
		}
	}
	if _, err := NewRenderer(&Config{}); err == nil {
		t.Error("NewRenderer without templates accepted")
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestLoadDirPrefersChatTemplateFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg, err := os.ReadFile(filepath.Join(testdata, "tiny-qwen", "tokenizer_config.json"))
	if err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), cfg, 0o600))
	must(t, os.WriteFile(filepath.Join(dir, "chat_template.jinja"), []byte("{{ eos_token }}-from-file"), 0o600))
	r := loadRendererAt(t, dir)
	out, err := r.Render(json.RawMessage(`[]`), nil, Options{})
	if err != nil || out != "<|im_end|>-from-file" {
		t.Errorf("Render = %q, %v; want the chat_template.jinja file", out, err)
	}
}

func loadRendererAt(t *testing.T, dir string) *Renderer {
	t.Helper()
	cfg, err := LoadDir(dir)
	must(t, err)
	r, err := NewRenderer(cfg)
	must(t, err)
	return r
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// conversationNamed returns a case of conversations.json.
func conversationNamed(t *testing.T, name string) conversation {
	for _, c := range loadConversations(t) {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no conversation %s", name)
	return conversation{}
}

func TestContentPartsFlattened(t *testing.T) {
	t.Parallel()
	r := loadRenderer(t, "tiny-qwen")
	c := conversationNamed(t, "content_parts")
	flat, err := r.Render(c.Messages, nil, Options{AddGenerationPrompt: true})
	must(t, err)
	asString := strings.Replace(string(c.Messages),
		`[{"type": "text", "text": "Part one."}, {"type": "text", "text": " Part two."}]`, `"Part one.\n Part two."`, 1)
	want, err := r.Render(json.RawMessage(asString), nil, Options{AddGenerationPrompt: true})
	must(t, err)
	if flat != want || !strings.Contains(flat, "Part one.\n Part two.") {
		t.Errorf("flattened rendering %q, want %q", flat, want)
	}
	kept, err := r.Render(c.Messages, nil, Options{AddGenerationPrompt: true, KeepContentParts: true})
	must(t, err)
	if strings.Contains(kept, "Part one.") {
		t.Errorf("KeepContentParts: the Qwen template drops list content, as in transformers; got %q", kept)
	}
	image := json.RawMessage(`[{"role": "user", "content": [{"type": "text", "text": "see"}, {"type": "image_url", "image_url": {"url": "x"}}]}]`)
	mixed, err := r.Render(image, nil, Options{})
	must(t, err)
	if strings.Contains(mixed, "see") {
		t.Errorf("a list with an image part must stay a list: %q", mixed)
	}
}

func TestArgumentsAndThinkingOptions(t *testing.T) {
	t.Parallel()
	r := loadRenderer(t, "tiny-qwen")
	c := conversationNamed(t, "tools_and_calls")
	raw, err := r.Render(c.Messages, c.Tools, Options{})
	must(t, err)
	if !strings.Contains(raw, `"arguments": {"unit":"celsius","city":"Zürich"}}`) {
		t.Errorf("string arguments must be printed verbatim: %q", raw)
	}
	parsed, err := r.Render(c.Messages, c.Tools, Options{ParseArguments: true})
	must(t, err)
	if !strings.Contains(parsed, `"arguments": {"unit": "celsius", "city": "Zürich"}}`) {
		t.Errorf("ParseArguments must render the object with tojson in key order: %q", parsed)
	}
	off := false
	msgs := json.RawMessage(`[{"role": "user", "content": "hi"}]`)
	out, err := r.Render(msgs, nil, Options{AddGenerationPrompt: true, EnableThinking: &off})
	must(t, err)
	if !strings.HasSuffix(out, "<|im_start|>assistant\n<think>\n\n</think>\n\n") {
		t.Errorf("enable_thinking=false: %q", out)
	}
}
