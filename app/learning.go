package app

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/metaclaw/metaclaw/app/learner"
	"github.com/metaclaw/metaclaw/store"
)

// MetaLearningPaused is the meta key that holds "1" while the person has
// paused learning (the proxy keeps serving; judging, evolution, extraction
// and training stop).
const MetaLearningPaused = "learning_paused"

// pauseCache reads the pause flag at most every two seconds, so CLI, tray
// and web page changes reach the running app without a restart.
type pauseCache struct {
	db      *store.DB
	paused  atomic.Bool
	checked atomic.Int64 // unix nanoseconds of the last read
}

func (p *pauseCache) get() bool {
	now := time.Now().UnixNano()
	if now-p.checked.Load() > int64(2*time.Second) {
		p.checked.Store(now)
		v, err := p.db.Meta(context.Background(), MetaLearningPaused)
		if err == nil {
			p.paused.Store(v == "1")
		}
	}
	return p.paused.Load()
}

// Paused reports whether learning is paused.
func (a *App) Paused() bool { return a.pause.get() }

// SetPaused pauses or resumes learning; the state persists across
// restarts.
func (a *App) SetPaused(paused bool) error {
	v := ""
	if paused {
		v = "1"
	}
	if err := a.db.SetMeta(context.Background(), MetaLearningPaused, v); err != nil {
		return err
	}
	a.pause.paused.Store(paused)
	a.wakeScheduler() // a pause shuts the training window now
	return nil
}

// startLearner runs the judge and skill evolution, fed by the proxy's
// events.
func (a *App) startLearner(ctx context.Context) {
	opts := learner.Options{DB: a.db, Config: a.Config(), Logger: a.log.With("part", "learner"), Paused: a.Paused, Meter: a.meter}
	if a.skills != nil {
		opts.Skills = a.skills
	}
	a.learner = learner.New(opts)
	a.subscribe(a.learner.Notify)
	a.goService(ctx, "learner", a.learner.Serve)
}

// SettleSession waits until the learner has handled the end of session and
// all the judging and skill evolution it caused (learner.Settle). The app
// must be started.
func (a *App) SettleSession(ctx context.Context, session string) error {
	if a.learner == nil {
		return errors.New("settle session: the app is not started")
	}
	return a.learner.Settle(ctx, session)
}
