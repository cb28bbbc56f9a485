// Package llm is the learner's client for one-shot, non-streaming
// completions: the judge and the skill evolver ask a model one question and
// read one answer. It speaks OpenAI Chat Completions (openai-go) or the
// Anthropic Messages API (anthropic-sdk-go), with a timeout per attempt and
// up to two retries with backoff on 429, 5xx and transport errors (the SDKs'
// own retry logic, which honours Retry-After). It also resolves the judge's
// and the evolver's endpoints from the configuration.
//
// It may be imported by the packages of app/learner; it imports only
// store/config and the two SDKs.
package llm

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	anoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	oaoption "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// APIs an Endpoint may speak.
const (
	APIOpenAI    = "openai"
	APIAnthropic = "anthropic"
)

// DefaultTimeout bounds one attempt when Endpoint.Timeout is zero.
const DefaultTimeout = 90 * time.Second

// MaxRetries is the number of retries after a failed attempt (429, 5xx,
// 408/409 or a transport error).
const MaxRetries = 2

// DefaultMaxTokens is used when Options.MaxTokens is zero.
const DefaultMaxTokens = 1024

// Endpoint is where and how to ask a model.
type Endpoint struct {
	API     string // APIOpenAI (default) or APIAnthropic
	BaseURL string // e.g. https://api.openai.com/v1; for Anthropic with or without /v1
	APIKey  string
	Model   string
	Timeout time.Duration     // per attempt; 0 = DefaultTimeout
	Headers map[string]string // extra headers (a provider preset's)
}

// Options tune one completion.
type Options struct {
	// Temperature is sent to OpenAI-style endpoints, except to reasoning
	// models (o1, o3, o4, gpt-5), which only take the default; the
	// Anthropic API is left at its default.
	Temperature float64
	MaxTokens   int  // 0 = DefaultMaxTokens
	JSON        bool // ask for a JSON object (OpenAI response_format; Anthropic relies on the prompt)
}

// Client asks one endpoint for completions. It is safe for concurrent use.
type Client struct {
	ep Endpoint
	oa openai.Client
	an anthropic.Client
}

// New returns a client for ep. Credentials and base URLs come only from ep,
// never from OPENAI_* or ANTHROPIC_* environment variables.
func New(ep Endpoint) *Client {
	if ep.API == "" {
		ep.API = APIOpenAI
	}
	if ep.Timeout <= 0 {
		ep.Timeout = DefaultTimeout
	}
	c := &Client{ep: ep}
	if ep.API == APIAnthropic {
		c.an = anthropic.NewClient(anthropicOptions(ep)...)
	} else {
		c.oa = openai.NewClient(openaiOptions(ep)...)
	}
	return c
}

func openaiOptions(ep Endpoint) []oaoption.RequestOption {
	opts := []oaoption.RequestOption{
		oaoption.WithBaseURL(ep.BaseURL), oaoption.WithAPIKey(ep.APIKey),
		oaoption.WithRequestTimeout(ep.Timeout), oaoption.WithMaxRetries(MaxRetries),
		oaoption.WithMaxRetryDelay(30 * time.Second),
		// Ambient OPENAI_ORG_ID / OPENAI_PROJECT_ID belong to another account.
		oaoption.WithHeaderDel("OpenAI-Organization"), oaoption.WithHeaderDel("OpenAI-Project"),
	}
	for k, v := range ep.Headers {
		opts = append(opts, oaoption.WithHeader(k, v))
	}
	return opts
}

func anthropicOptions(ep Endpoint) []anoption.RequestOption {
	opts := []anoption.RequestOption{
		anoption.WithoutEnvironmentDefaults(),
		anoption.WithBaseURL(AnthropicRoot(ep.BaseURL)), anoption.WithAPIKey(ep.APIKey),
		// The SDK sends the key as a bearer token; Anthropic-compatible
		// providers (and the proxy's own upstream calls) use x-api-key.
		anoption.WithHeader("x-api-key", ep.APIKey),
		anoption.WithRequestTimeout(ep.Timeout), anoption.WithMaxRetries(MaxRetries),
	}
	for k, v := range ep.Headers {
		opts = append(opts, anoption.WithHeader(k, v))
	}
	return opts
}

// AnthropicRoot turns a configured Anthropic base URL into the SDK's root:
// the SDK appends "v1/messages" itself, while MetaClaw's configuration (like
// the proxy) names the base with its /v1 suffix.
func AnthropicRoot(base string) string {
	base = strings.TrimRight(base, "/")
	return strings.TrimSuffix(base, "/v1")
}

// Endpoint returns the client's endpoint.
func (c *Client) Endpoint() Endpoint { return c.ep }

// Model returns the model the client asks.
func (c *Client) Model() string { return c.ep.Model }

// ErrEmpty is returned when the model answered with no text.
var ErrEmpty = errors.New("empty completion")

// Complete sends one system and one user message and returns the answer's
// text. ctx bounds the whole call, retries included.
func (c *Client) Complete(ctx context.Context, system, user string, opts Options) (string, error) {
	if opts.MaxTokens <= 0 {
		opts.MaxTokens = DefaultMaxTokens
	}
	var text string
	var err error
	if c.ep.API == APIAnthropic {
		text, err = c.completeAnthropic(ctx, system, user, opts)
	} else {
		text, err = c.completeOpenAI(ctx, system, user, opts)
	}
	if err != nil {
		return "", fmt.Errorf("%s completion (%s): %w", c.ep.API, c.ep.Model, err)
	}
	if strings.TrimSpace(text) == "" {
		return "", fmt.Errorf("%s completion (%s): %w", c.ep.API, c.ep.Model, ErrEmpty)
	}
	return text, nil
}

func (c *Client) completeOpenAI(ctx context.Context, system, user string, opts Options) (string, error) {
	p := openai.ChatCompletionNewParams{
		Model:    c.ep.Model,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(system), openai.UserMessage(user)},
	}
	if ReasoningModel(c.ep.Model) {
		// Reasoning models reject temperature and max_tokens; their limit
		// also covers hidden reasoning, so leave room for it.
		p.MaxCompletionTokens = openai.Int(int64(opts.MaxTokens) * 4)
	} else {
		p.Temperature = openai.Float(opts.Temperature)
		p.MaxTokens = openai.Int(int64(opts.MaxTokens))
	}
	if opts.JSON {
		p.ResponseFormat.OfJSONObject = &shared.ResponseFormatJSONObjectParam{}
	}
	res, err := c.oa.Chat.Completions.New(ctx, p)
	if err != nil && opts.JSON && statusOf(err) == 400 {
		// Some OpenAI-compatible servers reject response_format; the
		// prompts ask for JSON anyway.
		p.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{}
		res, err = c.oa.Chat.Completions.New(ctx, p)
	}
	if err != nil {
		return "", err
	}
	if len(res.Choices) == 0 {
		return "", errors.New("no choices in response")
	}
	return res.Choices[0].Message.Content, nil
}

func (c *Client) completeAnthropic(ctx context.Context, system, user string, opts Options) (string, error) {
	p := anthropic.MessageNewParams{
		Model:     anthropic.Model(c.ep.Model),
		MaxTokens: int64(opts.MaxTokens),
		System:    []anthropic.TextBlockParam{{Text: system}},
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(user))},
	}
	res, err := c.an.Messages.New(ctx, p)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, blk := range res.Content {
		if blk.Type == "text" {
			b.WriteString(blk.Text)
		}
	}
	return b.String(), nil
}

// statusOf returns the HTTP status of an SDK error, or 0.
func statusOf(err error) int {
	var oe *openai.Error
	if errors.As(err, &oe) {
		return oe.StatusCode
	}
	var ae *anthropic.Error
	if errors.As(err, &ae) {
		return ae.StatusCode
	}
	return 0
}

// ReasoningModel reports whether an OpenAI model id names a reasoning model
// (o1, o3, o4-mini, gpt-5…), which takes max_completion_tokens and only the
// default temperature.
func ReasoningModel(model string) bool {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:] // openrouter-style "openai/gpt-5"
	}
	for _, p := range []string{"o1", "o3", "o4", "gpt-5"} {
		if m == p || strings.HasPrefix(m, p+"-") || strings.HasPrefix(m, p+".") {
			return true
		}
	}
	return false
}

// apiForURL guesses the API of a base URL that has no provider preset:
// Anthropic's own host speaks Anthropic, everything else OpenAI.
func apiForURL(base string) string {
	u, err := url.Parse(base)
	if err == nil && (u.Hostname() == "api.anthropic.com" || strings.HasSuffix(u.Hostname(), ".anthropic.com")) {
		return APIAnthropic
	}
	return APIOpenAI
}
