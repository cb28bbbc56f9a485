package app

import (
	"context"

	"github.com/metaclaw/metaclaw/app/learner"
	"github.com/metaclaw/metaclaw/app/learner/policy"
	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/store"
)

var (
	_ proxy.Policy        = (*learner.Policy)(nil)
	_ proxy.PolicyContext = (*learner.Policy)(nil)
)

// proxyPolicy is the trained policy for the proxy: nil (not a typed nil,
// which would look set) unless the mode trains and its server was made.
func (a *App) proxyPolicy() proxy.Policy {
	if a.learn.Policy == nil {
		return nil
	}
	return a.learn.Policy
}

// Policy returns the trained policy's server, nil in skills_only.
func (a *App) Policy() *policy.Server {
	if a.learn.Policy == nil {
		return nil
	}
	return a.learn.Policy.Server
}

// policyProblem says why turns are not served by the trained policy, ""
// when they are (or the mode does not train).
func (a *App) policyProblem() string {
	p := a.Policy()
	if p == nil {
		return ""
	}
	if ok, why := p.Ready(); !ok {
		return "training policy not serving (turns go to llm.* and are not trained): " + why
	}
	return ""
}

// policyHealth is the policy's part of /healthz (and so of `metaclaw
// status --json`): nil when the mode does not train.
func (a *App) policyHealth() map[string]any {
	p := a.Policy()
	if p == nil {
		return nil
	}
	st := p.Status()
	return map[string]any{"ready": st.Ready, "reason": st.Reason, "base_model": st.BaseModel, "serving": st.Serving}
}

// MetaPolicyContext is the meta key holding the trained model's context
// length (learner.MetaPolicyContext).
const MetaPolicyContext = learner.MetaPolicyContext

// PolicyContextLength reads the trained model's context length a running
// MetaClaw recorded, 0 when unknown.
func PolicyContextLength(ctx context.Context, db *store.DB) int {
	return learner.PolicyContextLength(ctx, db)
}
