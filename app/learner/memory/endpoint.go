package memory

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/llm"
	"github.com/metaclaw/metaclaw/store/config"
)

// ErrNoModel is returned by EndpointFrom when no extraction model can be
// reached with the configuration; extraction then uses the rules.
var ErrNoModel = errors.New("no extraction model configured")

// EndpointFrom resolves the extraction model: the agent's own upstream
// (llm.*: provider preset, base URL, key, model), with memory.extract_api_base,
// memory.extract_api_key and memory.extract_model overriding each part when
// set. A base URL on *.anthropic.com speaks the Anthropic API. The error
// names the keys to set, never their values.
func EndpointFrom(cfg config.Config) (llm.Endpoint, error) {
	ep := llm.Endpoint{API: llm.APIOpenAI, BaseURL: cfg.LLM.APIBase, APIKey: cfg.LLM.APIKey, Model: cfg.LLM.ModelID,
		Timeout: ExtractTimeout / 2}
	if p, ok := config.PresetByName(cfg.LLM.Provider); ok {
		if p.API != "" {
			ep.API = p.API
		}
		ep.Headers = p.Headers
	}
	m := cfg.Memory
	if m.ExtractAPIBase != "" && m.ExtractAPIBase != ep.BaseURL {
		ep.BaseURL, ep.API, ep.Headers = m.ExtractAPIBase, apiOf(m.ExtractAPIBase), nil
	}
	if m.ExtractAPIKey != "" {
		ep.APIKey = m.ExtractAPIKey
	}
	if m.ExtractModel != "" {
		ep.Model = m.ExtractModel
	}
	if ep.BaseURL == "" || ep.APIKey == "" || ep.Model == "" {
		return ep, fmt.Errorf("%w: set llm.api_key (or memory.extract_api_key, with memory.extract_api_base and memory.extract_model)", ErrNoModel)
	}
	return ep, nil
}

func apiOf(base string) string {
	u, err := url.Parse(base)
	if err == nil && (u.Hostname() == "api.anthropic.com" || strings.HasSuffix(u.Hostname(), ".anthropic.com")) {
		return llm.APIAnthropic
	}
	return llm.APIOpenAI
}

// OptionsFrom reads the service's options from the configuration; the
// caller adds the database, the model client, the embedder and the clock.
func OptionsFrom(cfg config.Config) Options {
	ro := RetrieveOptionsFrom(cfg.Memory)
	ro.HalfLife = time.Duration(cfg.Memory.EpisodeHalfLife) * 24 * time.Hour
	return Options{Retrieval: ro, AutoExtract: cfg.Memory.AutoExtract, FlushEvery: cfg.Memory.FlushEvery}
}
