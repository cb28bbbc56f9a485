package app

import (
	"context"
	"errors"
	"os"

	"github.com/metaclaw/metaclaw/app/learner"
	"github.com/metaclaw/metaclaw/store/config"
)

// Paused reports whether learning is paused (learner.Pause).
func (a *App) Paused() bool { return a.pause.Paused() }

// SetPaused pauses or resumes learning; the state persists across
// restarts.
func (a *App) SetPaused(paused bool) error {
	if err := a.pause.Set(context.Background(), paused); err != nil {
		return err
	}
	if a.windows != nil {
		a.windows.Wake() // a pause shuts the training window now
	}
	return nil
}

// learningDeps is what learner.Build needs of the app: the store, the
// configuration, the log, the pause switch, the training windows and the
// proxy's address.
func (a *App) learningDeps(cfg config.Config) learner.Deps {
	d := learner.Deps{DB: a.db, Config: cfg, Home: a.opts.Home, Logger: a.log, Paused: a.Paused,
		HFToken: os.Getenv("HF_TOKEN"), ProxyURL: a.ProxyURL}
	if a.windows != nil {
		if s := a.windows.Scheduler(); s != nil {
			d.Windows = s // a nil *idle.Scheduler would look set to the trainer
		}
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

// WriteSkillAsks has the asks of the skills that have none written now
// (learner.WriteAsks), and those in the person's other languages, the
// languages of the requests so far stored first. The app must be started.
func (a *App) WriteSkillAsks(ctx context.Context) error {
	if a.learn.Learner == nil {
		return errors.New("write skill asks: the app is not started")
	}
	if a.learn.Skills != nil {
		a.learn.Skills.StoreLanguages()
	}
	a.learn.Learner.WriteAsks(ctx)
	return nil
}
