// Package llm is the learner's client for one-shot, non-streaming
// completions: the judge, the skill evolver and memory extraction ask a
// model one question and read one answer. It speaks OpenAI Chat
// Completions or the Anthropic Messages API over net/http (see Poster),
// with a timeout per attempt and up to two retries with backoff on 408,
// 409, 429, 5xx and transport errors, honouring Retry-After. It also
// resolves the judge's and the evolver's endpoints from the configuration.
//
// The official SDKs are deliberately not linked into the binary (their
// package inits and code cost ~10 MB of idle memory); the tests use them
// as reference clients instead.
//
// It may be imported by the packages of app/learner; it imports only
// store/config.
package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
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

// MaxRetryDelay caps the wait between attempts; a Retry-After above it
// ends the retries.
const MaxRetryDelay = 30 * time.Second

// DefaultMaxTokens is used when Options.MaxTokens is zero.
const DefaultMaxTokens = 1024

// AnthropicVersion is the anthropic-version header sent to Messages APIs.
const AnthropicVersion = "2023-06-01"

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
	ep   Endpoint
	post *Poster
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
	return &Client{ep: ep, post: &Poster{Header: headersFor(ep), Secret: ep.APIKey, Timeout: ep.Timeout,
		MaxRetries: MaxRetries, MaxRetryDelay: MaxRetryDelay}}
}

// headersFor returns the credential and provider headers of ep: the key as
// a bearer token for OpenAI-style APIs; as x-api-key, which Anthropic and
// its compatible providers take (as in the proxy's own upstream calls),
// with anthropic-version for Anthropic.
func headersFor(ep Endpoint) http.Header {
	if ep.API != APIAnthropic {
		return BearerHeader(ep.APIKey, ep.Headers)
	}
	h := http.Header{}
	h.Set("Anthropic-Version", AnthropicVersion)
	if ep.APIKey != "" {
		h.Set("X-Api-Key", ep.APIKey)
	}
	for k, v := range ep.Headers {
		h.Set(k, v)
	}
	return h
}

// AnthropicRoot turns a configured Anthropic base URL into the API root
// that "/v1/messages" is appended to: MetaClaw's configuration (like the
// proxy) names the base with its /v1 suffix, but may also omit it.
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

// Usage is the tokens one completion took, as the provider reported them
// (zero when it did not).
type Usage struct {
	PromptTokens, CompletionTokens int
}

// Complete sends one system and one user message and returns the answer's
// text. ctx bounds the whole call, retries included.
func (c *Client) Complete(ctx context.Context, system, user string, opts Options) (string, error) {
	text, _, err := c.CompleteUsage(ctx, system, user, opts)
	return text, err
}

// CompleteUsage is Complete that also returns the tokens the answer took.
func (c *Client) CompleteUsage(ctx context.Context, system, user string, opts Options) (string, Usage, error) {
	if opts.MaxTokens <= 0 {
		opts.MaxTokens = DefaultMaxTokens
	}
	var text string
	var u Usage
	var err error
	if c.ep.API == APIAnthropic {
		text, u, err = c.completeAnthropic(ctx, system, user, opts)
	} else {
		text, u, err = c.completeOpenAI(ctx, system, user, opts)
	}
	if err != nil {
		return "", u, fmt.Errorf("%s completion (%s): %w", c.ep.API, c.ep.Model, err)
	}
	if strings.TrimSpace(text) == "" {
		return "", u, fmt.Errorf("%s completion (%s): %w", c.ep.API, c.ep.Model, ErrEmpty)
	}
	return text, u, nil
}

func (c *Client) completeOpenAI(ctx context.Context, system, user string, opts Options) (string, Usage, error) {
	req := chatRequest{
		Model:    c.ep.Model,
		Messages: []chatMessage{{Role: "system", Content: system}, {Role: "user", Content: user}},
	}
	if ReasoningModel(c.ep.Model) {
		// Reasoning models reject temperature and max_tokens; their limit
		// also covers hidden reasoning, so leave room for it.
		req.MaxCompletionTokens = opts.MaxTokens * 4
	} else {
		req.Temperature = &opts.Temperature
		req.MaxTokens = opts.MaxTokens
	}
	if opts.JSON {
		req.ResponseFormat = &responseFormat{Type: "json_object"}
	}
	url := strings.TrimRight(c.ep.BaseURL, "/") + "/chat/completions"
	var res chatResponse
	err := c.post.PostJSON(ctx, url, req, &res)
	if err != nil && opts.JSON && StatusOf(err) == 400 {
		// Some OpenAI-compatible servers reject response_format; the
		// prompts ask for JSON anyway.
		req.ResponseFormat = nil
		err = c.post.PostJSON(ctx, url, req, &res)
	}
	if err != nil {
		return "", Usage{}, err
	}
	u := Usage{PromptTokens: res.Usage.PromptTokens, CompletionTokens: res.Usage.CompletionTokens}
	if len(res.Choices) == 0 {
		return "", u, errors.New("no choices in response")
	}
	return res.Choices[0].Message.Content, u, nil
}

func (c *Client) completeAnthropic(ctx context.Context, system, user string, opts Options) (string, Usage, error) {
	req := messagesRequest{
		Model:     c.ep.Model,
		MaxTokens: opts.MaxTokens,
		Messages:  []anthropicMessage{{Role: "user", Content: []textBlock{{Type: "text", Text: user}}}},
	}
	if system != "" {
		req.System = []textBlock{{Type: "text", Text: system}}
	}
	var res messagesResponse
	if err := c.post.PostJSON(ctx, AnthropicRoot(c.ep.BaseURL)+"/v1/messages", req, &res); err != nil {
		return "", Usage{}, err
	}
	var b strings.Builder
	for _, blk := range res.Content {
		if blk.Type == "text" {
			b.WriteString(blk.Text)
		}
	}
	return b.String(), Usage{PromptTokens: res.Usage.InputTokens, CompletionTokens: res.Usage.OutputTokens}, nil
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
