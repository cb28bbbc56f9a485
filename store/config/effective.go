package config

// Effective is what a configuration means once its parts are combined:
// the mode that can actually run and why another could not.
type Effective struct {
	Mode          string   // the mode that runs
	Problems      []string // missing requirements, each a sentence naming the key to set
	ContextWindow int
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
	if c.Mode == "rl" || c.Mode == "madmax" {
		if c.RL.APIKey == "" {
			e.Problems = append(e.Problems, "mode "+c.Mode+" needs rl.api_key (a Tinker-compatible training key); running as skills_only until it is set")
			e.Mode = "skills_only"
		}
	}
	e.ContextWindow = c.ContextWindow
	if e.ContextWindow == 0 {
		e.ContextWindow = 200000
		if e.Mode != "skills_only" {
			e.ContextWindow = 32768
		}
	}
	return e
}
