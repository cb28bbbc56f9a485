package tinker

import (
	"net/url"
	"strings"
)

// Backend names accepted in rl.backend.
const (
	BackendAuto   = "auto"
	BackendTinker = "tinker"
	BackendMinT   = "mint"
	BackendWeaver = "weaver"
)

// Default base URLs of the known services. Every endpoint is the base URL
// followed by /api/v1/<name>.
const (
	// TinkerBaseURL is Thinking Machines' hosted Tinker service.
	TinkerBaseURL = "https://tinker.thinkingmachines.dev/services/tinker-prod"
	// MinTBaseURL is MinT's global endpoint. MinT runs the Tinker protocol
	// (its Python package is the Tinker SDK 0.22.0 plus a key-prefix patch)
	// under a /train prefix, so endpoints are <base>/api/v1/<name> as for
	// Tinker. mindlab-toolkit 0.2.0 names this URL its default and calls the
	// older https://mint.macaron.xin, which the reference README shows,
	// obsolete.
	MinTBaseURL = "https://mint.macaron.im/train"
	// MinTChinaBaseURL is MinT's mainland-China endpoint.
	MinTChinaBaseURL = "https://mintcn.macaron.xin/train"
	// WeaverBaseURL is Nex-AGI Weaver's console. Weaver speaks its own
	// REST protocol, which package weaver implements; package backend
	// picks that client for rl.backend weaver, not this one.
	WeaverBaseURL = "https://weaver-console.nex-agi.cn"
)

// ResolveBackend turns rl.backend into a concrete service name. "auto" (or
// empty) picks weaver when the base URL's host names weaver, mint when the
// host names mint or the key starts with "sk-mint-", and tinker otherwise.
// An explicit backend is returned lower-cased as given.
func ResolveBackend(backend, apiKey, baseURL string) string {
	b := strings.ToLower(strings.TrimSpace(backend))
	if b != "" && b != BackendAuto {
		return b
	}
	host := ""
	if u, err := url.Parse(strings.TrimSpace(baseURL)); err == nil {
		host = strings.ToLower(u.Host)
	}
	switch {
	case strings.Contains(host, "weaver"):
		return BackendWeaver
	case strings.Contains(host, "mint") || strings.HasPrefix(strings.TrimSpace(apiKey), "sk-mint-"):
		return BackendMinT
	}
	return BackendTinker
}

// DefaultBaseURL is the base URL to use when rl.base_url is empty: the
// default of the backend, with "auto" resolved from the key as in
// ResolveBackend (an "sk-mint-" key means MinT, anything else Tinker).
func DefaultBaseURL(backend, apiKey string) string {
	switch ResolveBackend(backend, apiKey, "") {
	case BackendMinT:
		return MinTBaseURL
	case BackendWeaver:
		return WeaverBaseURL
	}
	return TinkerBaseURL
}
