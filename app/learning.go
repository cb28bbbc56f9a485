package app

import (
	"context"
	"errors"
	"os"
	"sync/atomic"
	"time"

	"github.com/metaclaw/metaclaw/app/learner"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
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

// learningDeps is what learner.Build needs of the app: the store, the
// configuration, the log, the pause switch and the training windows.
func (a *App) learningDeps(cfg config.Config) learner.Deps {
	d := learner.Deps{DB: a.db, Config: cfg, Home: a.opts.Home, Logger: a.log, Paused: a.Paused, HFToken: os.Getenv("HF_TOKEN")}
	if s := a.Scheduler(); s != nil {
		d.Windows = s // a nil *idle.Scheduler would look set to the trainer
	}
	return d
}

// SettleSession waits until the learner has handled the end of session and
// all the judging and skill evolution it caused (learner.Settle). The app
// must be started.
func (a *App) SettleSession(ctx context.Context, session string) error {
	if a.learn.Learner == nil {
		return errors.New("settle session: the app is not started")
	}
	return a.learn.Learner.Settle(ctx, session)
}
