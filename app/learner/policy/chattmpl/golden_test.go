package chattmpl

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testdata is the fixture directory shared by the policy packages.
const testdata = "../testdata"

// conversation is one case of testdata/cases/conversations.json.
type conversation struct {
	Name                string          `json:"name"`
	Messages            json.RawMessage `json:"messages"`
	Tools               json.RawMessage `json:"tools"`
	AddGenerationPrompt bool            `json:"add_generation_prompt"`
	Kwargs              map[string]json.RawMessage
}

// rendering is one expected result of a golden file.
type rendering struct {
	Name  string `json:"name"`
	Text  string `json:"text"`
	Error string `json:"error"`
	IDs   []int  `json:"ids"`
}

func readJSON(t testing.TB, v any, path ...string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(append([]string{testdata}, path...)...))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", filepath.Join(path...), err)
	}
}

func loadTemplate(t testing.TB, file string) *Template {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(testdata, "templates", file))
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := Compile(string(src))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return tmpl
}

func loadConversations(t testing.TB) []conversation {
	var convs []conversation
	readJSON(t, &convs, "cases", "conversations.json")
	return convs
}

// expectedRenderings returns, per template file, the reference renderings:
// @huggingface/jinja's, replaced by Python Jinja2's where they differ
// (transformers runs Python Jinja2).
func expectedRenderings(t testing.TB) map[string][]rendering {
	var js, py struct {
		Templates map[string][]rendering `json:"templates"`
	}
	readJSON(t, &js, "golden", "render.json")
	readJSON(t, &py, "golden", "render_python.json")
	for file, overrides := range py.Templates {
		for _, o := range overrides {
			for i := range js.Templates[file] {
				if js.Templates[file][i].Name == o.Name {
					js.Templates[file][i] = o
				}
			}
		}
	}
	return js.Templates
}

// renderCase renders a conversation as the golden generators do.
func renderCase(t testing.TB, tmpl *Template, c conversation) (string, error) {
	t.Helper()
	kwargs := map[string]any{"date_string": "29 Nov 2025"}
	for k, v := range c.Kwargs {
		kwargs[k] = v
	}
	return tmpl.Render(c.Messages, c.Tools, Options{
		AddGenerationPrompt: c.AddGenerationPrompt,
		Kwargs:              kwargs,
		SpecialTokens:       map[string]string{"bos_token": "<|endoftext|>", "eos_token": "<|im_end|>"},
		KeepContentParts:    true, // as transformers, which the goldens follow
	})
}

func TestRenderGolden(t *testing.T) {
	t.Parallel()
	convs := loadConversations(t)
	for file, want := range expectedRenderings(t) {
		src, err := os.ReadFile(filepath.Join(testdata, "templates", file))
		if err != nil {
			t.Fatal(err)
		}
		tmpl, err := Compile(string(src))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for i, c := range convs {
			t.Run(strings.TrimSuffix(file, ".jinja")+"/"+c.Name, func(t *testing.T) {
				got, err := renderCase(t, tmpl, c)
				if want[i].Error != "" {
					var raised *RaiseError
					if !errors.As(err, &raised) || raised.Message != want[i].Error {
						t.Fatalf("error = %v, want raise_exception(%q)", err, want[i].Error)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want[i].Text, got); diff != "" {
					t.Errorf("rendering differs from the reference (-want +got):\n%s", diff)
				}
			})
		}
	}
}
