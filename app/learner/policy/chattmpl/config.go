package chattmpl

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// Config is what a model's tokenizer_config.json says about rendering
// chats: its chat templates and special tokens.
type Config struct {
	// Templates are the chat templates by name. A single template is named
	// "default"; a list of {name, template} keeps its names ("default",
	// "tool_use", ...).
	Templates map[string]string
	// SpecialTokens maps bos_token, eos_token, unk_token, pad_token,
	// sep_token, cls_token and mask_token to their text, when set.
	SpecialTokens map[string]string
	// Kimi is set when auto_map names Kimi's tokenizer class
	// (tokenization_kimi.TikTokenTokenizer), whose apply_chat_template
	// prepares the tools before the template runs (see KimiToolsTS).
	Kimi bool
}

// kimiClass is the auto_map entry of Moonshot's Kimi tokenizer.
const kimiClass = "tokenization_kimi.TikTokenTokenizer"

// specialTokenKeys are the special tokens transformers passes to every
// template.
var specialTokenKeys = []string{"bos_token", "eos_token", "unk_token", "pad_token", "sep_token", "cls_token", "mask_token"}

// ParseConfig reads the contents of a tokenizer_config.json.
func ParseConfig(data []byte) (*Config, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("parse tokenizer config: %w", err)
	}
	c := &Config{Templates: map[string]string{}, SpecialTokens: map[string]string{}}
	if t, ok := raw["chat_template"]; ok {
		if err := c.addTemplates(t); err != nil {
			return nil, err
		}
	}
	c.Kimi = namesKimi(raw["auto_map"])
	for _, key := range specialTokenKeys {
		tok, err := tokenText(raw[key])
		if err != nil {
			return nil, fmt.Errorf("parse tokenizer config %s: %w", key, err)
		}
		if tok != "" {
			c.SpecialTokens[key] = tok
		}
	}
	return c, nil
}

// namesKimi reports whether auto_map's AutoTokenizer ([slow, fast] or a
// string) names Kimi's tokenizer class.
func namesKimi(raw json.RawMessage) bool {
	var m struct {
		AutoTokenizer json.RawMessage `json:"AutoTokenizer"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil {
		return false
	}
	var names []*string
	if json.Unmarshal(m.AutoTokenizer, &names) != nil {
		var one string
		if json.Unmarshal(m.AutoTokenizer, &one) != nil {
			return false
		}
		names = []*string{&one}
	}
	for _, n := range names {
		if n != nil && (*n == kimiClass || strings.HasSuffix(*n, "--"+kimiClass)) {
			return true
		}
	}
	return false
}

// addTemplates reads chat_template: a string, or a list of {name,
// template}.
func (c *Config) addTemplates(raw json.RawMessage) error {
	var single string
	if err := json.Unmarshal(raw, &single); err == nil {
		c.Templates["default"] = single
		return nil
	}
	var named []struct {
		Name     string `json:"name"`
		Template string `json:"template"`
	}
	if err := json.Unmarshal(raw, &named); err != nil {
		return fmt.Errorf("parse chat_template (want a string or a list of {name, template}): %w", err)
	}
	for _, n := range named {
		c.Templates[n.Name] = n.Template
	}
	return nil
}

// tokenText reads a special token written as a string or as an
// AddedToken object {"content": ...}; null or absent is "".
func tokenText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var obj struct {
		Content *string `json:"content"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil || obj.Content == nil {
		return "", errors.New("want a string or an object with content")
	}
	return *obj.Content, nil
}

// LoadConfig reads a tokenizer_config.json file.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read tokenizer config: %w", err)
	}
	return ParseConfig(data)
}

// LoadDir reads a model directory's tokenizer_config.json and, where it
// exists, chat_template.jinja, which newer transformers versions write
// instead of the chat_template field and which takes precedence.
func LoadDir(dir string) (*Config, error) {
	c, err := LoadConfig(filepath.Join(dir, "tokenizer_config.json"))
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(dir, "chat_template.jinja"))
	switch {
	case err == nil:
		c.Templates["default"] = string(data)
	case !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("read chat template: %w", err)
	}
	return c, nil
}

// Renderer renders conversations with a model's chat templates and
// special tokens. It is safe for concurrent use.
type Renderer struct {
	templates map[string]*Template
	specials  map[string]string
	kimi      bool // prepare tools as Kimi's tokenizer does
}

// NewRenderer compiles the templates of c.
func NewRenderer(c *Config) (*Renderer, error) {
	if len(c.Templates) == 0 {
		return nil, errors.New("no chat template in the tokenizer config")
	}
	r := &Renderer{templates: map[string]*Template{}, specials: c.SpecialTokens, kimi: c.Kimi}
	for name, src := range c.Templates {
		t, err := Compile(src)
		if err != nil {
			return nil, fmt.Errorf("template %q: %w", name, err)
		}
		r.templates[name] = t
	}
	return r, nil
}

// Template returns the template a rendering uses, chosen as transformers
// does: the named one if name is set, else "tool_use" when there are
// tools and the model has it, else "default".
func (r *Renderer) Template(name string, withTools bool) (*Template, error) {
	switch {
	case name != "":
	case withTools && r.templates["tool_use"] != nil:
		name = "tool_use"
	default:
		name = "default"
	}
	t, ok := r.templates[name]
	if !ok {
		return nil, fmt.Errorf("no chat template named %q", name)
	}
	return t, nil
}

// Render renders a conversation as Template.Render does, with the model's
// special tokens unless opts sets its own.
func (r *Renderer) Render(messages, tools json.RawMessage, opts Options) (string, error) {
	t, err := r.Template(opts.TemplateName, !isEmptyJSON(tools))
	if err != nil {
		return "", err
	}
	if opts.SpecialTokens == nil {
		opts.SpecialTokens = r.specials
	}
	if r.kimi {
		if tools, opts, err = kimiPrepare(tools, opts); err != nil {
			return "", err
		}
	}
	return t.Render(messages, tools, opts)
}

// kimiPrepare does what Kimi's apply_chat_template does before rendering:
// the tools' keys sorted recursively, and tools_ts_str set to their
// TypeScript declaration unless the encoder refuses them (the template
// then prints the JSON). Kimi's switch for reasoning is the thinking
// argument; EnableThinking sets it when the caller did not.
func kimiPrepare(tools json.RawMessage, opts Options) (json.RawMessage, Options, error) {
	kwargs := make(map[string]any, len(opts.Kwargs)+2)
	for k, v := range opts.Kwargs {
		kwargs[k] = v
	}
	if _, set := kwargs["thinking"]; !set && opts.EnableThinking != nil {
		kwargs["thinking"] = *opts.EnableThinking
	}
	opts.Kwargs = kwargs
	if isEmptyJSON(tools) {
		return tools, opts, nil
	}
	v, err := FromJSON(tools)
	if err != nil {
		return nil, opts, fmt.Errorf("tools: %w", err)
	}
	if !truthy(v) {
		return tools, opts, nil
	}
	sorted := SortKeys(v)
	text, err := pyJSON(exec.AsValue(sorted), jsonOptions{itemSep: ",", keySep: ":"})
	if err != nil {
		return nil, opts, fmt.Errorf("tools: %w", err)
	}
	if _, set := kwargs["tools_ts_str"]; !set {
		if ts, err := KimiToolsTS(sorted); err == nil {
			kwargs["tools_ts_str"] = ts
		}
	}
	return json.RawMessage(text), opts, nil
}
