package config

// Effective is what a configuration means once its parts are combined:
// the mode that can actually run and why another could not.
type Effective struct {
	Mode     string   // the mode that runs
	Problems []string // missing requirements, each a sentence naming the key to set
}

// Resolve works out the effective mode: a mode whose requirements are
// missing runs as skills_only, and says why.
func (c *Config) Resolve() Effective {
	e := Effective{Mode: c.Mode}
	if c.LLM.APIKey == "" && !c.Proxy.ForwardClientAuth {
		e.Problems = append(e.Problems, "llm.api_key is not set: run `metaclaw setup` or `metaclaw config set llm.api_key ...` (or turn on proxy.forward_client_auth)")
	}
	if c.LLM.APIBase == "" {
		e.Problems = append(e.Problems, "llm.api_base is not set: the proxy has no upstream")
	}
	if c.Mode == ModeRL || c.Mode == ModeMadmax {
		if c.RL.APIKey == "" {
			e.Problems = append(e.Problems, "mode "+c.Mode+" needs rl.api_key (a Tinker-compatible training key); running as skills_only until it is set")
			e.Mode = ModeSkillsOnly
		}
	}
	return e
}

// Context sizes used when nothing better is known.
const (
	// DefaultPolicyContext is the trained model's context length until
	// the training service has told it (max_context_length).
	DefaultPolicyContext = 32768
	// DefaultAgentWindow is the window announced to an agent whose turns
	// MetaClaw never cuts: the provider's model decides.
	DefaultAgentWindow = 200000
	// minPromptLimit keeps a tiny context from cutting everything.
	minPromptLimit = 1024
)

// PromptLimit is the most prompt tokens MetaClaw lets through to the model
// that serves a turn; 0 means no limit. An explicit max_context_tokens
// wins. Otherwise turns to the person's own provider (llm.*, in every
// mode) are never cut — the agent compacts its own history — and turns
// served by the trained policy (toPolicy) are cut to the policy's context:
// policyContext (the service's max_context_length, DefaultPolicyContext
// when 0) minus maxTokens (the turn's completion limit, rl.max_tokens when
// 0).
func (c *Config) PromptLimit(toPolicy bool, policyContext, maxTokens int) int {
	if c.MaxContextTokens > 0 {
		return c.MaxContextTokens
	}
	if !toPolicy {
		return 0
	}
	if policyContext <= 0 {
		policyContext = DefaultPolicyContext
	}
	if maxTokens <= 0 {
		maxTokens = c.RL.MaxTokens
	}
	return max(policyContext-maxTokens, minPromptLimit)
}

// AgentWindow is the context window `metaclaw connect` announces to an
// agent, so that the agent compacts before MetaClaw would have to cut:
// the limit MetaClaw enforces on the effective mode's turns (see
// PromptLimit; policyContext as there), else context_window when set, else
// DefaultAgentWindow. An explicit context_window below the limit wins.
// limit is that enforced limit, 0 when turns are never cut.
func (c *Config) AgentWindow(policyContext int) (window, limit int) {
	limit = c.PromptLimit(c.Resolve().Mode != ModeSkillsOnly, policyContext, 0)
	window = c.ContextWindow
	switch {
	case window == 0 && limit == 0:
		window = DefaultAgentWindow
	case window == 0 || limit > 0 && limit < window:
		window = limit
	}
	return window, limit
}
