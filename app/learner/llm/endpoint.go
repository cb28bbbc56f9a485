package llm

import (
	"errors"
	"fmt"

	"github.com/metaclaw/metaclaw/store/config"
)

// Roles EndpointFor resolves.
const (
	RoleJudge   = "judge"
	RoleEvolver = "evolver"
)

// ErrNotConfigured is returned by EndpointFor when the role has no usable
// endpoint (no key, base URL or model).
var ErrNotConfigured = errors.New("not configured")

// EndpointFor resolves the endpoint of a role from the configuration.
//
// The judge uses rl.prm_url, rl.prm_model and rl.prm_api_key; when
// rl.prm_api_key is empty it falls back to the agent's own upstream
// (llm.api_base, llm.model_id, llm.api_key, llm.provider). The evolver
// uses rl.evolver_api_base (empty = llm.api_base), rl.evolver_model and
// rl.evolver_api_key, with the same fallback to llm.* when its key is
// empty. The API of a fallback endpoint is the provider preset's; that of
// a dedicated endpoint is Anthropic for *.anthropic.com and OpenAI
// otherwise.
//
// The endpoint is returned even with an error, so that callers can say
// what is missing; the error wraps ErrNotConfigured and names the keys to
// set, never their values.
func EndpointFor(cfg config.Config, role string) (Endpoint, error) {
	var ep Endpoint
	switch role {
	case RoleJudge:
		ep = Endpoint{BaseURL: cfg.RL.PRMURL, APIKey: cfg.RL.PRMAPIKey, Model: cfg.RL.PRMModel}
	case RoleEvolver:
		ep = Endpoint{BaseURL: cfg.RL.EvolverAPIBase, APIKey: cfg.RL.EvolverAPIKey, Model: cfg.RL.EvolverModel}
		if ep.BaseURL == "" {
			ep.BaseURL = cfg.LLM.APIBase
		}
	default:
		return Endpoint{}, fmt.Errorf("unknown llm role %q", role)
	}
	if ep.APIKey == "" {
		ep = upstreamEndpoint(cfg.LLM)
	} else {
		ep.API = apiForURL(ep.BaseURL)
	}
	if ep.APIKey == "" || ep.BaseURL == "" || ep.Model == "" {
		return ep, fmt.Errorf("%s endpoint %w: set %s", role, ErrNotConfigured, keysFor(role))
	}
	return ep, nil
}

// upstreamEndpoint is the agent's own provider, from llm.*.
func upstreamEndpoint(c config.LLM) Endpoint {
	ep := Endpoint{API: APIOpenAI, BaseURL: c.APIBase, APIKey: c.APIKey, Model: c.ModelID}
	if p, ok := config.PresetByName(c.Provider); ok {
		if p.API != "" {
			ep.API = p.API
		}
		ep.Headers = p.Headers
	}
	return ep
}

func keysFor(role string) string {
	if role == RoleJudge {
		return "rl.prm_api_key (with rl.prm_url and rl.prm_model) or llm.api_key"
	}
	return "rl.evolver_api_key (with rl.evolver_model) or llm.api_key"
}
