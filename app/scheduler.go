package app

import (
	"cmp"
	"context"
	"time"

	"github.com/metaclaw/metaclaw/idle"
	"github.com/metaclaw/metaclaw/idle/calendar"
	"github.com/metaclaw/metaclaw/store/config"
)

// This file runs madmax's training windows: the idle.Scheduler with its
// keyboard idle source and calendar signal, fed the learning pause, and a
// goroutine that follows the settings and records the state for the CLI.

const (
	// schedStateEvery is how often the state is recorded in the meta table
	// and the stored scheduler settings are read again.
	schedStateEvery = 30 * time.Second
	// schedPauseEvery is how often the pause flag is compared, so a pause
	// from the CLI closes the window within about a second.
	schedPauseEvery = time.Second
	// schedDetectTimeout bounds the search for a keyboard idle source.
	schedDetectTimeout = 5 * time.Second
)

// schedRun is the training-window part of the app. Start fills it; hooks
// are set by tests before Start. After Start only the scheduler-state
// goroutine touches cfg.
type schedRun struct {
	hooks schedHooks
	sched *idle.Scheduler // nil when training windows are off
	cal   *calendarSignal // nil before Start
	idle  idleChoice
	cfg   config.Scheduler // the window settings in force
}

// schedHooks replace real parts in tests; production leaves them zero.
type schedHooks struct {
	idle      idle.Source        // replaces idle.Detect
	clock     idle.Clock         // replaces the system clock
	endpoints calendar.Endpoints // replaces Google's URLs
	every     time.Duration      // replaces schedStateEvery
}

// idleChoice is the keyboard idle signal the scheduler was given.
type idleChoice struct {
	src      idle.Source // nil: no keyboard idle signal
	err      string      // why no keyboard/mouse mechanism answered
	fallback bool        // scheduler.screen_fallback
}

// Scheduler returns the training-window scheduler, or nil when windows are
// off (mode rl or skills_only without scheduler.enabled): then training
// needs no window. The trainer subscribes to its transitions and may ask
// Status before each step; it must not call Serve.
func (a *App) Scheduler() *idle.Scheduler { return a.sched.sched }

// SubscribeWindows returns the training-window transitions (window opened,
// with reason and end; window closing now) and a function that ends the
// subscription; see idle.Scheduler.Subscribe. When windows are off the
// channel is nil, so it never delivers: check Scheduler first.
func (a *App) SubscribeWindows() (<-chan idle.Transition, func()) {
	if a.sched.sched == nil {
		return nil, func() {}
	}
	return a.sched.sched.Subscribe()
}

// wakeScheduler makes the scheduler evaluate now (learning paused or
// resumed), so a window closes at once.
func (a *App) wakeScheduler() {
	if s := a.sched.sched; s != nil {
		s.Wake()
	}
}

// startScheduler builds the training windows from the configuration and
// starts their services. The calendar signal exists even when windows are
// off, so the web page can connect the calendar ahead of time.
func (a *App) startScheduler(ctx context.Context, cfg config.Config) {
	r := &a.sched
	r.cal = newCalendarSignal(a, ctx, r.hooks.endpoints)
	if !SchedulerEnabled(cfg) {
		a.recordScheduler(ctx)
		return
	}
	wcfg, err := idle.WindowConfigFrom(cfg.Scheduler, nil)
	if err != nil {
		a.log.Error("training windows off", "err", err)
		a.recordScheduler(ctx)
		return
	}
	r.idle = a.chooseIdle(ctx, cfg.Scheduler)
	r.cal.apply(cfg.Scheduler.Calendar)
	r.cfg = cfg.Scheduler
	r.sched = idle.NewScheduler(idle.SchedulerOptions{Config: wcfg, Idle: r.idle.src, Busy: r.cal,
		Clock: r.hooks.clock, Paused: a.Paused, Logger: a.log.With("part", "scheduler")})
	r.sched.Evaluate(ctx)
	a.goService(ctx, "scheduler", func(ctx context.Context) error {
		if src := r.idle.src; src != nil {
			defer src.Close()
		}
		return r.sched.Serve(ctx)
	})
	a.goService(ctx, "scheduler-state", a.watchScheduler)
}

// chooseIdle finds the keyboard idle source, saying which one it uses; when
// none answers it falls back to watching the screen if
// scheduler.screen_fallback allows, and otherwise runs without an idle
// signal and says so.
func (a *App) chooseIdle(ctx context.Context, sc config.Scheduler) idleChoice {
	ch := idleChoice{fallback: sc.ScreenFallback}
	if src := a.sched.hooks.idle; src != nil {
		ch.src = src
		return ch
	}
	dctx, cancel := context.WithTimeout(ctx, schedDetectTimeout)
	src, err := idle.Detect(dctx)
	cancel()
	if err == nil {
		a.log.Info("keyboard idle source", "source", src.Name())
		ch.src = src
		return ch
	}
	ch.err = err.Error()
	if !sc.ScreenFallback {
		a.log.Warn("no keyboard idle signal: idle windows stay shut (scheduler.screen_fallback is off)", "err", err)
		return ch
	}
	poll := time.Duration(sc.ScreenPollSeconds) * time.Second
	w, werr := idle.NewScreenWatcher(idle.ScreenOptions{Interval: poll, Clock: a.sched.hooks.clock})
	if werr != nil {
		a.log.Warn("no keyboard idle signal: idle windows stay shut", "err", err, "fallback", werr)
		return ch
	}
	a.goService(ctx, "screen-watcher", w.Serve)
	a.log.Info("keyboard idle source: screen-activity fallback (frames stay in memory)", "why", err, "interval", poll)
	ch.src = w
	return ch
}

// watchScheduler records the state on every transition and every
// schedStateEvery, wakes the scheduler when learning is paused or resumed
// from another process, and applies changed settings.
func (a *App) watchScheduler(ctx context.Context) error {
	r := &a.sched
	trs, unsubscribe := r.sched.Subscribe()
	defer unsubscribe()
	state := time.NewTicker(cmp.Or(r.hooks.every, schedStateEvery))
	defer state.Stop()
	pause := time.NewTicker(schedPauseEvery)
	defer pause.Stop()
	paused := a.Paused()
	a.recordScheduler(ctx)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-trs:
			a.recordScheduler(ctx)
		case <-pause.C:
			if p := a.Paused(); p != paused {
				paused = p
				r.sched.Wake()
			}
		case <-state.C:
			a.reloadScheduler(ctx)
			r.cal.checkToken()
			a.recordScheduler(ctx)
		}
	}
}

// reloadScheduler applies changed scheduler settings from the database:
// the window settings and the calendar signal take effect at once; the
// idle source is chosen at start only.
func (a *App) reloadScheduler(ctx context.Context) {
	cfg, _, err := config.Load(ctx, a.db)
	if err != nil {
		a.log.Warn("reread scheduler settings", "err", err)
		return
	}
	r := &a.sched
	r.cal.apply(cfg.Scheduler.Calendar)
	if windowSettings(cfg.Scheduler) == windowSettings(r.cfg) {
		return
	}
	wcfg, err := idle.WindowConfigFrom(cfg.Scheduler, nil)
	if err != nil {
		a.log.Warn("scheduler settings not applied", "err", err)
		return
	}
	r.cfg = cfg.Scheduler
	r.sched.UpdateConfig(wcfg)
	a.log.Info("training window settings changed", "sleep", wcfg.SleepHours().String(),
		"idle_threshold", wcfg.IdleThreshold, "min_window", wcfg.MinWindow)
}

// windowSettings is the part of the scheduler settings UpdateConfig takes.
func windowSettings(s config.Scheduler) [4]any {
	return [4]any{s.SleepStart, s.SleepEnd, s.IdleThresholdMinutes, s.MinWindowMinutes}
}

// SchedulerStatus returns the training-window state (the last evaluation;
// it asks no source).
func (a *App) SchedulerStatus() SchedulerState {
	r := &a.sched
	st := SchedulerState{UpdatedAt: a.schedNow(), Paused: a.Paused(), Calendar: "off"}
	if r.cal != nil {
		st.Calendar, st.CalendarConnected = r.cal.status()
	}
	if r.sched == nil {
		st.Detail = SchedulerOffDetail(a.Config())
		return st
	}
	st.Enabled, st.IdleError, st.ScreenFallback = true, r.idle.err, r.idle.fallback
	if r.idle.src != nil {
		st.IdleSource = r.idle.src.Name()
	}
	return st.WithWindow(r.sched.Status())
}

func (a *App) schedNow() time.Time {
	if c := a.sched.hooks.clock; c != nil {
		return c.Now()
	}
	return time.Now()
}

// recordScheduler writes the state to the meta table for the CLI.
func (a *App) recordScheduler(ctx context.Context) {
	if err := writeSchedulerState(ctx, a.db, a.SchedulerStatus()); err != nil && ctx.Err() == nil {
		a.log.Warn("record training window state", "err", err)
	}
}
