package proxy

import (
	"slices"

	"github.com/metaclaw/metaclaw/store/config"
)

// live is what a running proxy takes from the configuration and can swap
// without a restart (SetConfig): everything read per request — the
// upstreams and their client, model mapping, keys, timeouts, limits. The
// listening address, proxy.max_body_bytes, proxy.session_idle_minutes and
// the mode (whether the policy serves) stay as the proxy started with.
type live struct {
	cfg      config.Config
	client   *client
	primary  *upstream
	fallback *upstream // nil when none is configured
	models   *modelCache
	origins  map[string]bool // proxy.allowed_origins, lower-cased
	secrets  []string        // the configured credentials, removed from recorded turns
}

func newLive(cfg config.Config, models *modelCache) *live {
	lv := &live{cfg: cfg, client: newClient(cfg.Proxy),
		primary: newUpstream("primary", cfg.LLM.Provider, cfg.LLM.APIBase, cfg.LLM.APIKey, cfg.LLM.ModelID)}
	if cfg.Proxy.FallbackAPIBase != "" {
		lv.fallback = newUpstream("fallback", cfg.Proxy.FallbackProvider, cfg.Proxy.FallbackAPIBase,
			cfg.Proxy.FallbackAPIKey, firstNonEmpty(cfg.Proxy.FallbackModelID, cfg.LLM.ModelID))
	}
	if models == nil || models.mapping != cfg.Proxy.ModelMapping || models.configured != cfg.LLM.ModelID {
		models = newModelCache(cfg.Proxy.ModelMapping, cfg.LLM.ModelID)
	}
	lv.models = models
	lv.origins = parseOrigins(cfg.Proxy.AllowedOrigins)
	lv.secrets = secretsOf(&cfg)
	return lv
}

// secretsOf returns the values of the configuration's credentials (the
// keys marked secret) long enough to look for in text, each once.
func secretsOf(cfg *config.Config) []string {
	var out []string
	for _, f := range config.Fields() {
		if !f.Secret {
			continue
		}
		if v, err := cfg.Get(f.Key); err == nil && len(v) >= minSecret && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// cur returns the configuration in force; a request reads it once.
func (s *Server) cur() *live { return s.lv.Load() }

// conf returns the configuration in force.
func (s *Server) conf() *config.Config { return &s.lv.Load().cfg }

// SetConfig applies a changed configuration to the requests that start
// from now on (see live for what it covers); requests in flight finish as
// they began.
func (s *Server) SetConfig(cfg config.Config) {
	old := s.cur()
	lv := newLive(cfg, old.models)
	s.lv.Store(lv)
	old.client.http.CloseIdleConnections()
	if lv.models != old.models {
		select {
		case s.modelsKick <- struct{}{}:
		default:
		}
	}
}
