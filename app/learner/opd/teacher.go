package opd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/internal/wait"
)

// Defaults of Options.
const (
	DefaultTimeout  = 2 * time.Minute
	DefaultAttempts = 3
)

// Options configure a Teacher.
type Options struct {
	// BaseURL is opd.teacher_url: an OpenAI-compatible base URL, usually
	// ending in /v1; "/completions" is added unless it ends with it.
	BaseURL string
	Model   string // opd.teacher_model
	APIKey  string // opd.teacher_api_key, sent as a bearer token; never logged
	// TokenText returns the policy tokenizer's text of a token, to check
	// the teacher's tokens against ("" or nil: not checked by text).
	TokenText func(id int) string
	// HTTPClient does the requests (default: one with Timeout).
	HTTPClient *http.Client
	Timeout    time.Duration // one request; 0 = DefaultTimeout
	Attempts   int           // tries on 429, 5xx and connection errors; 0 = DefaultAttempts
	// Sleep waits between attempts (tests inject a fake; default honours ctx).
	Sleep func(ctx context.Context, d time.Duration) error
}

// Teacher asks a teacher model for the log-probs of token sequences. It is
// safe for concurrent use.
type Teacher struct {
	opts Options
	url  string
}

// New checks the options and returns a teacher. It does no I/O.
func New(opts Options) (*Teacher, error) {
	base := strings.TrimRight(strings.TrimSpace(opts.BaseURL), "/")
	switch {
	case base == "":
		return nil, errors.New("opd: no teacher URL (opd.teacher_url)")
	case strings.TrimSpace(opts.Model) == "":
		return nil, errors.New("opd: no teacher model (opd.teacher_model)")
	}
	if !strings.HasSuffix(base, "/completions") {
		base += "/completions"
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{Timeout: opts.Timeout}
	}
	if opts.Attempts <= 0 {
		opts.Attempts = DefaultAttempts
	}
	if opts.Sleep == nil {
		opts.Sleep = wait.Sleep
	}
	return &Teacher{opts: opts, url: base}, nil
}

// completionRequest asks for the prompt's log-probs and (at most) one
// generated token, which Align ignores.
type completionRequest struct {
	Model       string  `json:"model"`
	Prompt      []int   `json:"prompt"`
	Echo        bool    `json:"echo"`
	Logprobs    int     `json:"logprobs"`
	MaxTokens   int     `json:"max_tokens"`
	Temperature float64 `json:"temperature"`
}

type completionResponse struct {
	Choices []struct {
		Logprobs *Echo `json:"logprobs"`
	} `json:"choices"`
}

// Logprobs returns the teacher's log-prob of every token of seq given the
// tokens before it, NaN for the first (see Align). A teacher whose tokens
// do not align is refused with an error wrapping ErrMisaligned.
func (t *Teacher) Logprobs(ctx context.Context, seq []int) ([]float64, error) {
	if len(seq) < 2 {
		return nil, fmt.Errorf("opd: %d tokens: nothing to score", len(seq))
	}
	body, _ := json.Marshal(completionRequest{Model: t.opts.Model, Prompt: seq, Echo: true, Logprobs: 1, MaxTokens: 1})
	var resp completionResponse
	if err := t.post(ctx, body, &resp); err != nil {
		return nil, err
	}
	if len(resp.Choices) == 0 || resp.Choices[0].Logprobs == nil {
		return nil, errors.New("opd: teacher answer has no choices[0].logprobs (does the endpoint support echo with logprobs?)")
	}
	return Align(seq, *resp.Choices[0].Logprobs, t.opts.TokenText)
}

// post sends body, retrying 429, 5xx and connection errors with back-off.
func (t *Teacher) post(ctx context.Context, body []byte, out any) error {
	var err error
	for attempt := range t.opts.Attempts {
		if attempt > 0 {
			if serr := t.opts.Sleep(ctx, time.Duration(1<<attempt)*time.Second); serr != nil {
				return fmt.Errorf("opd: teacher: %w", serr)
			}
		}
		var retry bool
		retry, err = t.postOnce(ctx, body, out)
		if err == nil || !retry {
			return err
		}
	}
	return err
}

func (t *Teacher) postOnce(ctx context.Context, body []byte, out any) (retry bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(body))
	if err != nil {
		return false, fmt.Errorf("opd: teacher request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if t.opts.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+t.opts.APIKey)
	}
	resp, err := t.opts.HTTPClient.Do(req)
	if err != nil {
		return ctx.Err() == nil, fmt.Errorf("opd: teacher unreachable: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return true, fmt.Errorf("opd: read teacher answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		retry = resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
		return retry, fmt.Errorf("opd: teacher: http %d: %s", resp.StatusCode, t.redact(snippet(data)))
	}
	if err := json.Unmarshal(data, out); err != nil {
		return false, fmt.Errorf("opd: decode teacher answer: %w", err)
	}
	return false, nil
}

// redact removes the API key from a server message, in case it echoes it.
func (t *Teacher) redact(msg string) string {
	if k := t.opts.APIKey; len(k) >= 4 {
		msg = strings.ReplaceAll(msg, k, "[redacted]")
	}
	return msg
}

func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
