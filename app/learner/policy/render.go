package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/metaclaw/metaclaw/app/learner/policy/chattmpl"
	"github.com/metaclaw/metaclaw/app/learner/policy/tokenizer"
	"github.com/metaclaw/metaclaw/app/learner/policy/toolparse"
	"github.com/metaclaw/metaclaw/app/learner/tinker"
	"github.com/metaclaw/metaclaw/proxy/openai"
)

// runtime is what rendering and decoding need for one model: its
// tokenizer, chat templates, end-of-turn tokens and tool-call format.
type runtime struct {
	tok       *tokenizer.Tokenizer
	tmpl      *chattmpl.Renderer
	stopIDs   []int    // end-of-turn tokens: sampling stops at them
	stopTexts []string // their text
	format    toolparse.Format
}

// endOfTurn are the end-of-turn and end-of-text tokens of the supported
// model families, used as stop tokens when the vocabulary has them as
// special tokens (besides the config's eos_token).
var endOfTurn = []string{"<|im_end|>", "<|eot_id|>", "<|eom_id|>", "<|endoftext|>", "<｜end▁of▁sentence｜>"}

// loadRuntime loads a model directory's tokenizer (tokenizer.json, or
// tiktoken.model for Kimi) and chat template (tokenizer_config.json,
// chat_template.jinja).
func loadRuntime(dir, model string) (*runtime, error) {
	tok, err := loadTokenizer(dir)
	if err != nil {
		return nil, err
	}
	cfg, err := chattmpl.LoadDir(dir)
	if err != nil {
		return nil, err
	}
	tmpl, err := chattmpl.NewRenderer(cfg)
	if err != nil {
		return nil, fmt.Errorf("chat template of %s: %w", dir, err)
	}
	rt := &runtime{tok: tok, tmpl: tmpl, format: toolparse.FormatFor(model)}
	for _, text := range append([]string{cfg.SpecialTokens["eos_token"]}, endOfTurn...) {
		id, ok := tok.TokenID(text)
		if text == "" || !ok || !tok.IsSpecial(id) || slices.Contains(rt.stopIDs, id) {
			continue
		}
		rt.stopIDs, rt.stopTexts = append(rt.stopIDs, id), append(rt.stopTexts, text)
	}
	if len(rt.stopIDs) == 0 {
		return nil, fmt.Errorf("tokenizer of %s has no end-of-turn token (eos_token)", dir)
	}
	return rt, nil
}

// loadTokenizer reads dir's tokenizer.json or, when there is none, a
// tiktoken.model (Kimi's).
func loadTokenizer(dir string) (*tokenizer.Tokenizer, error) {
	path := filepath.Join(dir, "tokenizer.json")
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		if _, err := os.Stat(filepath.Join(dir, tokenizer.TiktokenFile)); err == nil {
			return tokenizer.LoadTiktokenDir(dir)
		}
	}
	return tokenizer.LoadFile(path)
}

// job is a rendered request, ready to sample.
type job struct {
	model        string // the request's model, echoed in the answer
	stream       bool
	includeUsage bool
	prompt       []int
	params       tinker.SamplingParams
	stops        []string // the request's stop strings
	thinking     bool     // the prompt opened a <think> block
	noTools      bool     // tool_choice "none": the answer is read as text
	oneCall      bool     // parallel_tool_calls false: at most one call
}

// httpError is a request the policy answers with an error status.
type httpError struct {
	status int
	code   string
	msg    string
}

func (e *httpError) Error() string { return e.msg }

func badRequest(code, format string, args ...any) *httpError {
	return &httpError{status: http.StatusBadRequest, code: code, msg: fmt.Sprintf(format, args...)}
}

// prepare parses an OpenAI chat request, renders it with the chat
// template and encodes it. maxTokens is the default completion limit.
func (rt *runtime) prepare(body []byte, maxTokens int) (*job, error) {
	req, err := openai.ParseChatRequest(body)
	if err != nil {
		var re *openai.RequestError
		if errors.As(err, &re) {
			return nil, &httpError{status: re.Status, code: re.Code, msg: re.Message}
		}
		return nil, badRequest("invalid_request", "%v", err)
	}
	if err := checkMessages(req); err != nil {
		return nil, err
	}
	if _, err := req.Tools(); err != nil {
		return nil, badRequest("invalid_tools", "invalid 'tools': %v", err)
	}
	noTools, err := checkOptions(req)
	if err != nil {
		return nil, err
	}
	opts, err := templateOptions(req)
	if err != nil {
		return nil, err
	}
	tools := req.Field("tools")
	if noTools {
		tools = nil
	}
	text, err := rt.tmpl.Render(req.Field("messages"), tools, opts)
	if err != nil {
		return nil, badRequest("template_error", "the policy model's chat template cannot render this conversation: %v", err)
	}
	j := &job{model: req.Model(), stream: req.Stream(), includeUsage: req.IncludeUsage(),
		prompt: rt.tok.Encode(text), stops: nonEmpty(req.Stop()), thinking: opensThink(text),
		noTools: noTools, oneCall: string(req.Field("parallel_tool_calls")) == "false"}
	if len(j.prompt) == 0 {
		return nil, badRequest("empty_prompt", "the conversation renders to an empty prompt")
	}
	if j.params, err = rt.samplingParams(req, j.stops, maxTokens); err != nil {
		return nil, err
	}
	return j, nil
}

// checkMessages refuses content the policy cannot take: anything but text
// (images, audio) is answered 501 so that the proxy serves the turn from
// llm.* instead.
func checkMessages(req *openai.ChatRequest) error {
	msgs, err := req.Messages()
	if err != nil {
		return badRequest(openai.CodeInvalidMessages, "%v", err)
	}
	if len(msgs) == 0 {
		return badRequest(openai.CodeInvalidMessages, "'messages' is empty")
	}
	for i, m := range msgs {
		for _, p := range m.Content.Parts {
			if p.Type != "text" {
				return &httpError{status: http.StatusNotImplemented, code: "unsupported_content",
					msg: fmt.Sprintf("messages[%d] has a %q part; the policy model takes text only", i, p.Type)}
			}
		}
	}
	return nil
}

// checkOptions refuses the options the policy model cannot honour, with
// 501 so that the proxy serves the turn from llm.* instead (not trainable,
// but answered as asked): more than one choice (n), a forced tool call
// (tool_choice "required" or a named function), structured output
// (response_format other than text) and log-probabilities. It reports
// whether tool_choice is "none", which the policy honours: the
// conversation is rendered without its tools and the answer read as text.
func checkOptions(req *openai.ChatRequest) (noTools bool, err error) {
	unsupported := func(format string, args ...any) error {
		return &httpError{status: http.StatusNotImplemented, code: "unsupported_parameter", msg: fmt.Sprintf(format, args...)}
	}
	if raw := req.Field("n"); given(raw) {
		var n int
		if json.Unmarshal(raw, &n) != nil || n != 1 {
			return false, unsupported("'n' is %s; the policy model gives one choice", raw)
		}
	}
	if raw := req.Field("response_format"); given(raw) {
		var rf struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(raw, &rf) != nil || rf.Type != "text" {
			return false, unsupported("'response_format' %s: the policy model cannot constrain its output", raw)
		}
	}
	if raw := req.Field("logprobs"); given(raw) && string(raw) != "false" {
		return false, unsupported("'logprobs': the policy does not return log-probabilities")
	}
	if raw := req.Field("tool_choice"); given(raw) {
		tc, ok := req.ToolChoice()
		switch {
		case ok && tc.Mode == "none":
			return true, nil
		case !ok || tc.Mode != "auto":
			// "required", a named function, allowed_tools, custom tools, or
			// a shape llm.* may know and the policy does not.
			return false, unsupported("'tool_choice' %s: the policy model cannot be made to call a tool", raw)
		}
	}
	return false, nil
}

// given reports whether a member is present and not null.
func given(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

// templateOptions reads chat_template_kwargs (a vLLM extension, e.g.
// {"enable_thinking": false}) into the rendering options.
func templateOptions(req *openai.ChatRequest) (chattmpl.Options, error) {
	opts := chattmpl.Options{AddGenerationPrompt: true}
	raw := req.Field("chat_template_kwargs")
	if !given(raw) {
		return opts, nil
	}
	var kw map[string]json.RawMessage
	if err := json.Unmarshal(raw, &kw); err != nil {
		return opts, badRequest(openai.CodeInvalidType, "'chat_template_kwargs' must be an object")
	}
	opts.Kwargs = map[string]any{}
	for k, v := range kw {
		if k == "enable_thinking" {
			var on bool
			if err := json.Unmarshal(v, &on); err != nil {
				return opts, badRequest(openai.CodeInvalidType, "'chat_template_kwargs.enable_thinking' must be a boolean")
			}
			opts.EnableThinking = &on
			continue
		}
		opts.Kwargs[k] = v
	}
	return opts, nil
}

// samplingParams maps the request's sampling members. Without stop
// strings sampling stops at the end-of-turn tokens; with them, the
// end-of-turn tokens' texts join the stop strings (the service takes
// tokens or strings, not both).
func (rt *runtime) samplingParams(req *openai.ChatRequest, stops []string, maxTokens int) (tinker.SamplingParams, error) {
	if n, ok := req.MaxCompletionTokens(); ok {
		maxTokens = n
	} else if n, ok := req.MaxTokens(); ok {
		maxTokens = n
	}
	if maxTokens < 1 {
		return tinker.SamplingParams{}, badRequest(openai.CodeInvalidType, "max_tokens must be at least 1")
	}
	p := tinker.DefaultSamplingParams(maxTokens)
	if t, ok := req.Temperature(); ok {
		if t < 0 {
			return p, badRequest(openai.CodeInvalidType, "temperature must not be negative")
		}
		p.Temperature = t
	}
	if v, ok := req.TopP(); ok && v > 0 {
		p.TopP = v
	}
	var topK int
	if json.Unmarshal(req.Field("top_k"), &topK) == nil && topK > 0 {
		p.TopK = topK
	}
	var seed int64
	if json.Unmarshal(req.Field("seed"), &seed) == nil {
		p.Seed = &seed
	}
	if len(stops) > 0 {
		p.StopStrings = append(slices.Clone(stops), rt.stopTexts...)
	} else {
		p.StopTokens = slices.Clone(rt.stopIDs)
	}
	return p, nil
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// opensThink reports whether a rendered prompt ends inside an open
// <think> block (Qwen3 thinking models, DeepSeek V3.1), so that the
// completion starts with reasoning.
func opensThink(prompt string) bool {
	return strings.HasSuffix(strings.TrimRight(prompt, " \n"), "<think>")
}
