package app

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/policy"
	"github.com/metaclaw/metaclaw/app/learner/tinker"
	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

var (
	_ proxy.Policy        = (*policy.Server)(nil)
	_ proxy.PolicyContext = servedPolicy{}
)

// servedPolicy is the policy as the proxy sees it: with the context length
// of its model, which the proxy cuts long conversations to.
type servedPolicy struct {
	*policy.Server
	ctxLen *atomic.Int64
}

// ContextLength is the trained model's max_context_length, 0 until the
// training service has said it.
func (p servedPolicy) ContextLength() int { return int(p.ctxLen.Load()) }

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
	return servedPolicy{Server: srv, ctxLen: &a.policyCtx}
}

// startPolicy runs the policy server (session, heartbeat, tokenizer,
// sampler swaps) when there is one.
func (a *App) startPolicy(ctx context.Context) {
	if a.policy == nil {
		return
	}
	a.goService(ctx, "policy", a.policy.Serve)
	a.wg.Go(func() { a.learnPolicyContext(ctx) })
}

// learnPolicyContext asks the training service for the trained model's
// context length (max_context_length), retrying with backoff until it
// answers, and keeps it for the proxy and, in the meta table, for
// `metaclaw connect`.
func (a *App) learnPolicyContext(ctx context.Context) {
	cfg := a.Config()
	if n := PolicyContextLength(ctx, a.db); n > 0 {
		a.policyCtx.Store(int64(n)) // last run's, until the service answers
	}
	tc, err := tinker.New(tinker.Options{Backend: cfg.RL.Backend, BaseURL: cfg.RL.BaseURL, APIKey: cfg.RL.APIKey,
		Logger: a.log.With("part", "policy")})
	if err != nil {
		return
	}
	defer tc.Close()
	for wait := time.Second; ; wait = min(2*wait, 5*time.Minute) {
		n, err := modelContext(ctx, tc, cfg.RL.Model)
		if err == nil {
			a.policyCtx.Store(int64(n))
			if err := a.db.SetMeta(context.WithoutCancel(ctx), MetaPolicyContext, strconv.Itoa(n)); err != nil {
				a.log.Warn("record the policy's context length", "err", err)
			}
			a.log.Info("trained model's context length", "model", cfg.RL.Model, "max_context_length", n)
			return
		}
		a.log.Debug("policy context length not known yet", "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// modelContext returns model's max_context_length from the service's
// capabilities.
func modelContext(ctx context.Context, tc *tinker.Client, model string) (int, error) {
	caps, err := tc.GetServerCapabilities(ctx)
	if err != nil {
		return 0, err
	}
	for _, m := range caps.SupportedModels {
		if strings.EqualFold(m.ModelName, model) && m.MaxContextLength > 0 {
			return m.MaxContextLength, nil
		}
	}
	return 0, fmt.Errorf("the training service lists no context length for %s", model)
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

// MetaPolicyContext is the meta key holding the trained model's context
// length (max_context_length) as the training service reported it.
const MetaPolicyContext = "policy_context_length"

// PolicyContextLength reads the trained model's context length a running
// MetaClaw recorded, 0 when unknown.
func PolicyContextLength(ctx context.Context, db *store.DB) int {
	v, err := db.Meta(ctx, MetaPolicyContext)
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(v)
	return n
}
