package app

import (
	"context"
	"os"

	"github.com/metaclaw/metaclaw/app/learner/policy"
	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/store/config"
)

var _ proxy.Policy = (*policy.Server)(nil)

// setupPolicy builds the server of the trained policy when the effective
// mode trains the weights (rl, madmax). It returns a nil proxy.Policy
// otherwise: a typed nil *policy.Server would look set to the proxy.
func (a *App) setupPolicy(cfg config.Config) proxy.Policy {
	if cfg.Resolve().Mode == "skills_only" {
		return nil
	}
	srv, err := policy.New(policy.Options{RL: cfg.RL, DataDir: a.opts.Home, DB: a.db,
		Logger: a.log.With("part", "policy"), HFToken: os.Getenv("HF_TOKEN")})
	if err != nil {
		a.log.Error("training policy unavailable; serving from llm.*", "err", err)
		return nil
	}
	a.policy = srv
	return srv
}

// startPolicy runs the policy server (session, heartbeat, tokenizer,
// sampler swaps) when there is one.
func (a *App) startPolicy(ctx context.Context) {
	if a.policy == nil {
		return
	}
	a.goService(ctx, "policy", a.policy.Serve)
}

// Policy returns the trained policy's server, nil in skills_only.
func (a *App) Policy() *policy.Server { return a.policy }

// policyProblem says why turns are not served by the trained policy, ""
// when they are (or the mode does not train).
func (a *App) policyProblem() string {
	if a.policy == nil {
		return ""
	}
	if ok, why := a.policy.Ready(); !ok {
		return "training policy not serving (turns go to llm.* and are not trained): " + why
	}
	return ""
}

// policyHealth is the policy's part of /healthz (and so of `metaclaw
// status --json`): nil when the mode does not train.
func (a *App) policyHealth() map[string]any {
	if a.policy == nil {
		return nil
	}
	st := a.policy.Status()
	return map[string]any{"ready": st.Ready, "reason": st.Reason, "base_model": st.BaseModel, "serving": st.Serving}
}
