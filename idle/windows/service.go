// Package windows runs madmax's training windows as one service: the
// idle.Scheduler with its keyboard idle source (or the screen-activity
// fallback) and its Google Calendar signal (idle/calendar), fed the
// learning pause. It follows the stored settings, records the state in
// the store's meta table for other processes (the CLI), and runs the
// calendar connect flow the web page starts. It sits above idle and
// idle/calendar; the app constructs it with New and runs Serve.
package windows

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/metaclaw/metaclaw/idle"
	"github.com/metaclaw/metaclaw/idle/calendar"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

const (
	// StateEvery is how often the state is recorded in the meta table and
	// the stored scheduler settings are read again.
	StateEvery = 30 * time.Second
	// pauseEvery is how often the pause flag is compared, so a pause from
	// another process closes the window within about a second.
	pauseEvery = time.Second
	// detectTimeout bounds the search for a keyboard idle source.
	detectTimeout = 5 * time.Second
)

// Options configure a Service. DB, Config and Paused are required.
type Options struct {
	DB     *store.DB
	Home   string               // the data directory: the default token's place
	Config func() config.Config // the configuration in force
	Paused func() bool          // learning paused: every window shut
	Logger *slog.Logger

	// Tests replace real parts; production leaves them zero.
	Idle       idle.Source        // replaces idle.Detect
	Clock      idle.Clock         // replaces the system clock
	Endpoints  calendar.Endpoints // replaces Google's URLs
	StateEvery time.Duration      // replaces StateEvery
}

// Service is the training windows. After New only Serve's goroutines
// touch cfg.
type Service struct {
	opts   Options
	log    *slog.Logger
	cal    *calendarSignal
	sched  *idle.Scheduler     // nil when training windows are off
	screen *idle.ScreenWatcher // the screen-activity fallback; nil when unused
	idle   idleChoice
	cfg    config.Scheduler // the window settings in force
}

// idleChoice is the keyboard idle signal the scheduler was given.
type idleChoice struct {
	src      idle.Source // nil: no keyboard idle signal
	err      string      // why no keyboard/mouse mechanism answered
	fallback bool        // scheduler.screen_fallback
}

// New builds the training windows from the configuration in force: it
// finds the keyboard idle source (bounded by ctx and a few seconds) and
// evaluates the window once, so Scheduler is ready for the trainer. The
// calendar signal exists even when windows are off, so the web page can
// connect the calendar ahead of time. Nothing runs until Serve.
func New(ctx context.Context, opts Options) *Service {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Service{opts: opts, log: opts.Logger.With("part", "scheduler")}
	s.cal = &calendarSignal{home: opts.Home, config: opts.Config, endpoints: opts.Endpoints,
		log: opts.Logger.With("part", "calendar")}
	cfg := opts.Config()
	if !Enabled(cfg) {
		return s
	}
	wcfg, err := idle.WindowConfigFrom(cfg.Scheduler, nil)
	if err != nil {
		s.log.Error("training windows off", "err", err)
		return s
	}
	s.idle = s.chooseIdle(ctx, cfg.Scheduler)
	s.cal.apply(cfg.Scheduler.Calendar)
	s.cfg = cfg.Scheduler
	s.sched = idle.NewScheduler(idle.SchedulerOptions{Config: wcfg, Idle: s.idle.src, Busy: s.cal,
		Clock: opts.Clock, Paused: opts.Paused, Logger: s.log})
	s.sched.Evaluate(ctx)
	return s
}

// Scheduler returns the training-window scheduler, or nil when windows are
// off (mode rl or skills_only without scheduler.enabled): then training
// needs no window. The trainer subscribes to its transitions and may ask
// Status before each step; it must not call Serve.
func (s *Service) Scheduler() *idle.Scheduler { return s.sched }

// Subscribe returns the training-window transitions and a function that
// ends the subscription; see idle.Scheduler.Subscribe. When windows are
// off the channel is nil, so it never delivers.
func (s *Service) Subscribe() (<-chan idle.Transition, func()) {
	if s.sched == nil {
		return nil, func() {}
	}
	return s.sched.Subscribe()
}

// Wake makes the scheduler evaluate now (learning paused or resumed), so
// a window closes at once.
func (s *Service) Wake() {
	if s.sched != nil {
		s.sched.Wake()
	}
}

// Serve runs the windows until ctx ends: the scheduler, the idle
// fallback, the calendar signal and the loop that follows the settings
// and records the state. It returns nil when ctx ends, and an error when
// a part stops on its own.
func (s *Service) Serve(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	s.cal.serve(ctx)
	defer func() {
		cancel()
		s.cal.wait()
	}()
	if s.sched == nil {
		s.record(ctx)
		<-ctx.Done()
		return nil
	}
	if src := s.idle.src; src != nil {
		defer src.Close()
	}
	parts := map[string]func(context.Context) error{"scheduler": s.sched.Serve, "scheduler-state": s.watch}
	if s.screen != nil {
		parts["screen-watcher"] = s.screen.Serve
	}
	return runParts(ctx, cancel, parts)
}

// runParts runs each part on its own goroutine until ctx ends or one
// returns; then it ends the others and waits for them.
func runParts(ctx context.Context, cancel context.CancelFunc, parts map[string]func(context.Context) error) error {
	var wg sync.WaitGroup
	errc := make(chan error, len(parts))
	for name, serve := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := serve(ctx)
			if ctx.Err() == nil {
				errc <- fmt.Errorf("%s stopped: %w", name, cmp.Or(err, errors.New("returned early")))
				cancel()
			}
		}()
	}
	wg.Wait()
	select {
	case err := <-errc:
		return err
	default:
		return nil
	}
}

// chooseIdle finds the keyboard idle source, saying which one it uses; when
// none answers it falls back to watching the screen if
// scheduler.screen_fallback allows, and otherwise runs without an idle
// signal and says so.
func (s *Service) chooseIdle(ctx context.Context, sc config.Scheduler) idleChoice {
	ch := idleChoice{fallback: sc.ScreenFallback}
	if src := s.opts.Idle; src != nil {
		ch.src = src
		return ch
	}
	dctx, cancel := context.WithTimeout(ctx, detectTimeout)
	src, err := idle.Detect(dctx)
	cancel()
	if err == nil {
		s.log.Info("keyboard idle source", "source", src.Name())
		ch.src = src
		return ch
	}
	ch.err = err.Error()
	if !sc.ScreenFallback {
		s.log.Warn("no keyboard idle signal: idle windows stay shut (scheduler.screen_fallback is off)", "err", err)
		return ch
	}
	poll := time.Duration(sc.ScreenPollSeconds) * time.Second
	w, werr := idle.NewScreenWatcher(idle.ScreenOptions{Interval: poll, Clock: s.opts.Clock})
	if werr != nil {
		s.log.Warn("no keyboard idle signal: idle windows stay shut", "err", err, "fallback", werr)
		return ch
	}
	s.log.Info("keyboard idle source: screen-activity fallback (frames stay in memory)", "why", err, "interval", poll)
	s.screen, ch.src = w, w
	return ch
}

// watch records the state on every transition and every StateEvery, wakes
// the scheduler when learning is paused or resumed from another process,
// and applies changed settings.
func (s *Service) watch(ctx context.Context) error {
	trs, unsubscribe := s.sched.Subscribe()
	defer unsubscribe()
	state := time.NewTicker(cmp.Or(s.opts.StateEvery, StateEvery))
	defer state.Stop()
	pause := time.NewTicker(pauseEvery)
	defer pause.Stop()
	paused := s.opts.Paused()
	s.record(ctx)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-trs:
			s.record(ctx)
		case <-pause.C:
			if p := s.opts.Paused(); p != paused {
				paused = p
				s.sched.Wake()
			}
		case <-state.C:
			s.reload(ctx)
			s.cal.checkToken()
			s.record(ctx)
		}
	}
}

// reload applies changed scheduler settings from the database: the window
// settings and the calendar signal take effect at once; the idle source is
// chosen at start only.
func (s *Service) reload(ctx context.Context) {
	cfg, _, err := config.Load(ctx, s.opts.DB)
	if err != nil {
		s.log.Warn("reread scheduler settings", "err", err)
		return
	}
	s.cal.apply(cfg.Scheduler.Calendar)
	if windowSettings(cfg.Scheduler) == windowSettings(s.cfg) {
		return
	}
	wcfg, err := idle.WindowConfigFrom(cfg.Scheduler, nil)
	if err != nil {
		s.log.Warn("scheduler settings not applied", "err", err)
		return
	}
	s.cfg = cfg.Scheduler
	s.sched.UpdateConfig(wcfg)
	s.log.Info("training window settings changed", "sleep", wcfg.SleepHours().String(),
		"idle_threshold", wcfg.IdleThreshold, "min_window", wcfg.MinWindow)
}

// windowSettings is the part of the scheduler settings UpdateConfig takes.
func windowSettings(s config.Scheduler) [4]any {
	return [4]any{s.SleepStart, s.SleepEnd, s.IdleThresholdMinutes, s.MinWindowMinutes}
}

// Status returns the training-window state (the last evaluation; it asks
// no source).
func (s *Service) Status() State {
	st := State{UpdatedAt: s.now(), Paused: s.opts.Paused(), Calendar: "off"}
	st.Calendar, st.CalendarConnected = s.cal.status()
	if s.sched == nil {
		st.Detail = OffDetail(s.opts.Config())
		return st
	}
	st.Enabled, st.IdleError, st.ScreenFallback = true, s.idle.err, s.idle.fallback
	if s.idle.src != nil {
		st.IdleSource = s.idle.src.Name()
	}
	return st.WithWindow(s.sched.Status())
}

func (s *Service) now() time.Time {
	if c := s.opts.Clock; c != nil {
		return c.Now()
	}
	return time.Now()
}

// record writes the state to the meta table for the CLI.
func (s *Service) record(ctx context.Context) {
	if err := writeState(ctx, s.opts.DB, s.Status()); err != nil && ctx.Err() == nil {
		s.log.Warn("record training window state", "err", err)
	}
}
