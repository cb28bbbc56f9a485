package app

import (
	"context"
	"time"

	"github.com/metaclaw/metaclaw/app/learner"
	"github.com/metaclaw/metaclaw/app/learner/backend"
	"github.com/metaclaw/metaclaw/app/learner/tinker"
	"github.com/metaclaw/metaclaw/app/learner/trainer"
	"github.com/metaclaw/metaclaw/app/learner/usage"
)

// startTrainer runs the slow loop when the policy serves (rl, madmax): its
// own Tinker session for training, the judge for group rewards, the
// policy as codec and hot-swap target, and the training windows in madmax.
func (a *App) startTrainer(ctx context.Context) {
	if a.policy == nil {
		return
	}
	cfg := a.Config()
	log := a.log.With("part", "trainer")
	tc, err := backend.New(tinker.Options{Backend: cfg.RL.Backend, BaseURL: cfg.RL.BaseURL, APIKey: cfg.RL.APIKey,
		Tags: []string{"metaclaw", "trainer"}, Logger: log})
	if err != nil {
		log.Error("trainer off", "err", err)
		return
	}
	opts := trainer.Options{DB: a.db, Client: tc, Config: cfg, Codec: a.policy, Paused: a.Paused,
		Publish: a.policy.UseCheckpoint, Logger: log, Outcome: func(err error) { a.meter.Outcome(usage.Trainer, err) }}
	if j := learner.BuildJudge(cfg, cfg.RL.PRMVotes, a.meter, log); j != nil {
		opts.Judge = j
	}
	if s := a.Scheduler(); s != nil {
		opts.Windows = s
	}
	a.trainer = trainer.New(opts)
	a.goService(ctx, "trainer", func(ctx context.Context) error {
		defer tc.Close()
		if !startTinker(ctx, tc, log.Warn) {
			return nil // asked to stop before the service answered
		}
		go tc.Serve(ctx) // heartbeat; returns when ctx ends
		return a.trainer.Serve(ctx)
	})
}

// startTinker creates the training session, retrying with backoff until
// the service answers or ctx ends (reported false).
func startTinker(ctx context.Context, tc backend.Client, warn func(string, ...any)) bool {
	return tc.StartRetrying(ctx, func(err error, next time.Duration) {
		warn("training service not reachable; retrying", "err", err, "in", next)
	})
}

// Trainer returns the trainer, nil when the mode does not train.
func (a *App) Trainer() *trainer.Trainer { return a.trainer }
