package learner

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/backend"
	"github.com/metaclaw/metaclaw/app/learner/policy"
	"github.com/metaclaw/metaclaw/app/learner/tinker"
	"github.com/metaclaw/metaclaw/app/learner/trainer"
	"github.com/metaclaw/metaclaw/app/learner/usage"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// Policy is the trained policy as the proxy sees it: its server, with the
// context length of its model, which the proxy cuts long conversations
// to.
type Policy struct {
	*policy.Server
	ctxLen atomic.Int64
}

// ContextLength is the trained model's max_context_length, 0 until the
// training service has said it.
func (p *Policy) ContextLength() int { return int(p.ctxLen.Load()) }

// Problem says why turns are not served by the trained policy, "" when
// they are or there is no policy (nil: the mode does not train). Status
// lists it among the setup problems.
func (p *Policy) Problem() string {
	if p == nil {
		return ""
	}
	if ok, why := p.Ready(); !ok {
		return "training policy not serving (turns go to llm.* and are not trained): " + why
	}
	return ""
}

// Health is the policy's part of /healthz (and so of `metaclaw status
// --json`): nil when there is no policy.
func (p *Policy) Health() map[string]any {
	if p == nil {
		return nil
	}
	st := p.Status()
	return map[string]any{"ready": st.Ready, "reason": st.Reason, "base_model": st.BaseModel, "serving": st.Serving}
}

// buildPolicy makes the server of the trained policy when the effective
// mode trains the weights (rl, madmax), with the service that learns its
// model's context length.
func (l *Learning) buildPolicy(d Deps) {
	if d.Config.Resolve().Mode == config.ModeSkillsOnly {
		return
	}
	srv, err := policy.New(policy.Options{RL: d.Config.RL, DataDir: d.Home, DB: d.DB,
		Logger: d.Logger.With("part", "policy"), HFToken: d.HFToken})
	if err != nil {
		l.log.Error("training policy unavailable; serving from llm.*", "err", err)
		return
	}
	l.Policy = &Policy{Server: srv}
	l.serve("policy", srv.Serve)
	l.serve("policy context", func(ctx context.Context) error {
		l.learnPolicyContext(ctx, d)
		<-ctx.Done()
		return nil
	})
}

// learnPolicyContext asks the training service for the trained model's
// context length (max_context_length), retrying with backoff until it
// answers, and keeps it for the proxy and, in the meta table, for
// `metaclaw connect`.
func (l *Learning) learnPolicyContext(ctx context.Context, d Deps) {
	cfg, log := d.Config, d.Logger.With("part", "policy")
	if n := PolicyContextLength(ctx, d.DB); n > 0 {
		l.Policy.ctxLen.Store(int64(n)) // last run's, until the service answers
	}
	tc, err := tinker.New(tinker.Options{Backend: cfg.RL.Backend, BaseURL: cfg.RL.BaseURL, APIKey: cfg.RL.APIKey, Logger: log})
	if err != nil {
		return
	}
	defer tc.Close()
	for wait := time.Second; ; wait = min(2*wait, 5*time.Minute) {
		n, err := modelContext(ctx, tc, cfg.RL.Model)
		if err == nil {
			l.Policy.ctxLen.Store(int64(n))
			if err := d.DB.SetMeta(context.WithoutCancel(ctx), MetaPolicyContext, strconv.Itoa(n)); err != nil {
				log.Warn("record the policy's context length", "err", err)
			}
			log.Info("trained model's context length", "model", cfg.RL.Model, "max_context_length", n)
			return
		}
		log.Debug("policy context length not known yet", "err", err)
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

// buildTrainer makes the slow loop when the policy serves (rl, madmax):
// its own Tinker session for training, the judge for group rewards, the
// policy as codec and hot-swap target, and the training windows.
func (l *Learning) buildTrainer(d Deps) {
	if l.Policy == nil {
		return
	}
	cfg := d.Config
	log := d.Logger.With("part", "trainer")
	tc, err := backend.New(tinker.Options{Backend: cfg.RL.Backend, BaseURL: cfg.RL.BaseURL, APIKey: cfg.RL.APIKey,
		Tags: []string{"metaclaw", "trainer"}, Logger: log})
	if err != nil {
		log.Error("trainer off", "err", err)
		return
	}
	srv := l.Policy.Server
	opts := trainer.Options{DB: d.DB, Client: tc, Config: cfg, Codec: srv, Paused: d.Paused, Windows: d.Windows,
		Publish: srv.UseCheckpoint, Logger: log, Outcome: func(err error) { l.Meter.Outcome(usage.Trainer, err) }}
	if j := BuildJudge(cfg, cfg.RL.PRMVotes, l.Meter, log); j != nil {
		opts.Judge = j
	}
	l.Trainer = trainer.New(opts)
	l.serve("trainer", func(ctx context.Context) error {
		defer tc.Close()
		if !startTinker(ctx, tc, log.Warn) {
			return nil // asked to stop before the service answered
		}
		go tc.Serve(ctx) // heartbeat; returns when ctx ends
		return l.Trainer.Serve(ctx)
	})
}

// startTinker creates the training session, retrying with backoff until
// the service answers or ctx ends (reported false).
func startTinker(ctx context.Context, tc backend.Client, warn func(string, ...any)) bool {
	return tc.StartRetrying(ctx, func(err error, next time.Duration) {
		warn("training service not reachable; retrying", "err", err, "in", next)
	})
}
