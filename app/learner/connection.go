package learner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/llm"
	"github.com/metaclaw/metaclaw/store/config"
)

// TestConnection checks that llm.* works: it asks the provider for its
// models (GET /models) with the key, and when the provider has no such
// list, for a one-token answer from llm.model_id. It says what failed: no
// key, a refused key, an unknown model, an unreachable address. The CLI's
// setup and the web page's settings call it.
func TestConnection(ctx context.Context, cfg config.Config) error {
	ep := llm.Endpoint{API: llm.APIOpenAI, BaseURL: cfg.LLM.APIBase, APIKey: cfg.LLM.APIKey, Model: cfg.LLM.ModelID,
		Timeout: 20 * time.Second}
	if p, ok := config.PresetByName(cfg.LLM.Provider); ok {
		if p.API != "" {
			ep.API = p.API
		}
		ep.Headers = p.Headers
	}
	if ep.APIKey == "" && cfg.LLM.Provider != "custom" {
		return errors.New("llm.api_key is not set")
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	status, msg, err := listModels(ctx, ep)
	switch {
	case err != nil:
		return fmt.Errorf("%s is unreachable: %v", ep.BaseURL, err)
	case status == http.StatusOK:
		return nil
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return fmt.Errorf("the provider rejected llm.api_key (HTTP %d): %s", status, msg)
	}
	// No model list here (404, 405...): one token from the model itself.
	_, err = llm.New(ep).Complete(ctx, "", "Say OK.", llm.Options{MaxTokens: 1})
	if err == nil || errors.Is(err, llm.ErrEmpty) {
		return nil
	}
	switch st := llm.StatusOf(err); {
	case st == http.StatusUnauthorized || st == http.StatusForbidden:
		return fmt.Errorf("the provider rejected llm.api_key: %v", err)
	case st == http.StatusNotFound || st == http.StatusBadRequest:
		return fmt.Errorf("the provider refused llm.model_id %q or llm.api_base %s: %v", ep.Model, ep.BaseURL, err)
	}
	return fmt.Errorf("the provider did not answer: %v", err)
}

// listModels asks GET /models and returns the status and the start of the
// body.
func listModels(ctx context.Context, ep llm.Endpoint) (int, string, error) {
	url := strings.TrimRight(ep.BaseURL, "/") + "/models"
	h := llm.BearerHeader(ep.APIKey, ep.Headers)
	if ep.API == llm.APIAnthropic {
		url = llm.AnthropicRoot(ep.BaseURL) + "/v1/models"
		h = http.Header{}
		h.Set("X-Api-Key", ep.APIKey)
		h.Set("Anthropic-Version", llm.AnthropicVersion)
		for k, v := range ep.Headers {
			h.Set(k, v)
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, "", err
	}
	req.Header = h
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 2000))
	return resp.StatusCode, strings.TrimSpace(string(b)), nil
}
