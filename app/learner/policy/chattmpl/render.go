package chattmpl

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/exec"
)

// Template is a compiled chat template. It is safe for concurrent use.
type Template struct {
	tpl *exec.Template
}

// templateConfig is Hugging Face's Jinja environment: trim_blocks and
// lstrip_blocks on, no autoescaping, no trailing newline kept.
func templateConfig() *config.Config {
	c := config.New()
	c.TrimBlocks = true
	c.LeftStripBlocks = true
	return c
}

// Compile parses a chat template.
func Compile(source string) (t *Template, err error) {
	defer func() {
		if p := recover(); p != nil {
			t, err = nil, fmt.Errorf("compile chat template: %v", p)
		}
	}()
	const name = "chat_template"
	loader := nopLoader{name: name, source: rewriteTernaries(source)}
	tpl, err := exec.NewTemplate(name, templateConfig(), loader, environment)
	if err != nil {
		// gonja's message quotes the whole source; keep only the cause.
		if inner := errors.Unwrap(err); inner != nil {
			err = inner
		}
		return nil, fmt.Errorf("compile chat template: %w", err)
	}
	return &Template{tpl: tpl}, nil
}

// Options are the arguments of a rendering besides the messages and
// tools.
type Options struct {
	// AddGenerationPrompt ends the prompt with the header of an assistant
	// turn, for sampling a reply.
	AddGenerationPrompt bool
	// EnableThinking, when set, is passed as enable_thinking (Qwen3 and
	// others); when nil the template sees it undefined.
	EnableThinking *bool
	// Kwargs are further template variables, as JSON-marshalable values
	// (json.RawMessage keeps object key order).
	Kwargs map[string]any
	// SpecialTokens are bos_token, eos_token and the like. A Renderer
	// fills them from tokenizer_config.json.
	SpecialTokens map[string]string
	// Now is the clock of strftime_now; nil means time.Now.
	Now func() time.Time
	// KeepContentParts passes a content given as a list of parts to the
	// template as it is, as transformers does. By default a list of text
	// parts only becomes one string, the texts joined with "\n" as vLLM
	// does, because templates written for string content (Qwen3's among
	// them) would otherwise drop it.
	KeepContentParts bool
	// ParseArguments turns tool-call arguments given as a JSON string into
	// an object, as vLLM does, so that the template renders them itself
	// (Qwen3: with tojson). By default a string is passed as it is, as
	// transformers does, and Qwen-style templates print it verbatim.
	ParseArguments bool
	// TemplateName picks a named template; empty means the default (or
	// "tool_use" when tools are given and the model has one).
	TemplateName string
}

// Render renders a conversation. messages is a JSON array of OpenAI-style
// messages and tools a JSON array of tool definitions (nil or empty JSON
// for none); objects keep the key order of the JSON text. A template that
// calls raise_exception fails with a *RaiseError.
func (t *Template) Render(messages, tools json.RawMessage, opts Options) (string, error) {
	vars, err := renderVars(messages, tools, opts)
	if err != nil {
		return "", err
	}
	return t.execute(vars, opts.Now)
}

// execute runs the template with prepared variables. A panic inside
// gonja (it divides by zero for "%" on strings, for one) is an error.
func (t *Template) execute(vars map[string]any, now func() time.Time) (out string, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = "", fmt.Errorf("render chat template: %v", p)
		}
	}()
	if now == nil {
		now = time.Now
	}
	var raised *RaiseError
	for k, v := range renderGlobals(now, &raised) {
		vars[k] = v
	}
	out, err = t.tpl.ExecuteToString(exec.NewContext(vars))
	if raised != nil {
		return "", raised
	}
	if err != nil {
		return "", fmt.Errorf("render chat template: %s", shortError(err))
	}
	return out, nil
}

// lineRef finds the first line number in a gonja error.
var lineRef = regexp.MustCompile(`at line (\d+)`)

// shortError cuts gonja's nested error message down to the first line
// reference and the innermost cause.
func shortError(err error) string {
	msg := err.Error()
	cause := msg
	for {
		i := strings.Index(strings.ToLower(cause), "unable to ")
		if i < 0 {
			break
		}
		next := strings.Index(cause[i:], ": ")
		if next < 0 {
			break
		}
		cause = cause[i+next+2:]
	}
	if m := lineRef.FindStringSubmatch(msg); m != nil {
		return "line " + m[1] + ": " + cause
	}
	return cause
}

// renderVars builds the variables apply_chat_template passes: messages,
// tools (None when absent), documents (None), add_generation_prompt, the
// special tokens and the keyword arguments.
func renderVars(messages, tools json.RawMessage, opts Options) (map[string]any, error) {
	msgs, err := decodeMessages(messages, opts)
	if err != nil {
		return nil, err
	}
	vars := map[string]any{
		"messages":              msgs,
		"tools":                 noneValue,
		"documents":             noneValue,
		"add_generation_prompt": opts.AddGenerationPrompt,
	}
	if !isEmptyJSON(tools) {
		tv, err := FromJSON(tools)
		if err != nil {
			return nil, fmt.Errorf("tools: %w", err)
		}
		vars["tools"] = tv
	}
	for k, v := range opts.SpecialTokens {
		vars[k] = v
	}
	if opts.EnableThinking != nil {
		vars["enable_thinking"] = *opts.EnableThinking
	}
	for k, v := range opts.Kwargs {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("template argument %s: %w", k, err)
		}
		if vars[k], err = FromJSON(raw); err != nil {
			return nil, fmt.Errorf("template argument %s: %w", k, err)
		}
	}
	return vars, nil
}

func isEmptyJSON(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s == "" || s == "null"
}

// decodeMessages decodes the messages and applies the content and
// argument options.
func decodeMessages(raw json.RawMessage, opts Options) ([]any, error) {
	v, err := FromJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("messages: %w", err)
	}
	msgs, ok := v.([]any)
	if !ok {
		return nil, errors.New("messages: not a JSON array")
	}
	for i, m := range msgs {
		d, ok := m.(*exec.Dict)
		if !ok {
			return nil, fmt.Errorf("message %d: not a JSON object", i)
		}
		if !opts.KeepContentParts {
			flattenContent(d)
		}
		if opts.ParseArguments {
			parseArguments(d)
		}
	}
	return msgs, nil
}

// flattenContent replaces a content that is a list of text parts with the
// texts joined by "\n". A list with any other part is left alone.
func flattenContent(msg *exec.Dict) {
	content, ok := dictGet(msg, "content")
	if !ok {
		return
	}
	parts, ok := content.Interface().([]any)
	if !ok {
		return
	}
	texts := make([]string, 0, len(parts))
	for _, p := range parts {
		d, ok := asDict(p)
		if !ok {
			return
		}
		typ, _ := dictGet(d, "type")
		text, ok := dictGet(d, "text")
		if typ == nil || typ.String() != "text" || !ok || !text.IsString() {
			return
		}
		texts = append(texts, text.String())
	}
	setKey(msg, "content", strings.Join(texts, "\n"))
}

// parseArguments turns each tool call's function.arguments that is a
// JSON object written as a string into that object.
func parseArguments(msg *exec.Dict) {
	calls, ok := dictGet(msg, "tool_calls")
	if !ok {
		return
	}
	list, _ := calls.Interface().([]any)
	for _, c := range list {
		call, ok := asDict(c)
		if !ok {
			continue
		}
		if fn, ok := dictGet(call, "function"); ok {
			if d, ok := asDict(fn.Interface()); ok {
				call = d
			}
		}
		args, ok := dictGet(call, "arguments")
		if !ok || !args.IsString() {
			continue
		}
		if v, err := FromJSON([]byte(args.String())); err == nil {
			if _, isObj := v.(*exec.Dict); isObj {
				setKey(call, "arguments", v)
			}
		}
	}
}
