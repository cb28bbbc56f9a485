package idle

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Scheduler defaults and limits.
const (
	// DefaultSchedulerPoll is how often Serve asks the idle source and
	// evaluates the window when SchedulerOptions.Poll is zero.
	DefaultSchedulerPoll = 5 * time.Second
	// DefaultBusyPoll is how often Serve asks the busy source when
	// SchedulerOptions.BusyPoll is zero.
	DefaultBusyPoll = time.Minute

	schedIdleTimeout = 2 * time.Second // longest wait for one idle reading
	schedBusyTimeout = 5 * time.Second // longest wait for the busy times
	schedBusyBehind  = 12 * time.Hour  // busy times asked for before now
	schedBusyAhead   = 48 * time.Hour  // and after now
	schedNotYet      = "not evaluated yet"
)

// ErrSchedulerServing is returned by a second, concurrent call of Serve.
var ErrSchedulerServing = errors.New("scheduler: already serving")

// SchedulerOptions configures a Scheduler. Only Config is required.
type SchedulerOptions struct {
	Config WindowConfig
	// Idle reports keyboard idle time; nil means no idle signal.
	Idle Source
	// Busy lists calendar busy times; nil means no meeting signal.
	Busy BusySource
	// Clock decides every time; nil means SystemClock.
	Clock Clock
	// Paused reports whether the person paused learning; nil means never.
	Paused func() bool
	// Poll is how often Serve asks the idle source and evaluates; zero
	// means DefaultSchedulerPoll.
	Poll time.Duration
	// BusyPoll is how often Serve asks the busy source; zero means
	// DefaultBusyPoll. Evaluate always asks.
	BusyPoll time.Duration
	// Logger receives transitions and source failures; nil means
	// slog.Default().
	Logger *slog.Logger
	// Ticker returns the channel that paces Serve and a function that
	// stops it; nil means a time.Ticker. Tests pass a channel they drive.
	Ticker func(d time.Duration) (<-chan time.Time, func())
}

// Transition is a change of the training window, as published to
// subscribers and logged.
type Transition struct {
	// Opened is true when a window is open: newly, or with a new reason or
	// end. It is false when the window closes now (input returned, sleep
	// or meeting ended, learning paused).
	Opened bool
	Window Window    // the state after the change
	Prev   Window    // the state before it
	At     time.Time // the evaluation that saw the change
}

// Scheduler watches the signals and says when a training window opens and
// closes. Serve polls; Status, Evaluate, Subscribe, UpdateConfig and Wake
// are safe to call from any goroutine.
type Scheduler struct {
	opts    SchedulerOptions // read-only after NewScheduler, except Config
	clock   Clock
	log     *slog.Logger
	wake    chan struct{}
	serving atomic.Bool

	stepMu  sync.Mutex // serialises evaluations so transitions leave in order; guards the fields below
	busy    []Interval // last busy times read
	busyAt  time.Time  // when they were read; zero before the first read
	idleErr string     // last idle source error logged, "" when it works
	busyErr string     // last busy source error logged, "" when it works

	mu        sync.Mutex // guards the fields below
	cfg       WindowConfig
	last      Window // the last evaluation
	evaluated bool   // whether last holds one
	lastTr    Transition
	hasTr     bool // whether lastTr holds one
	subs      map[int]chan Transition
	nextSub   int
}

// NewScheduler returns a Scheduler; call Serve to start polling.
func NewScheduler(opts SchedulerOptions) *Scheduler {
	if opts.Clock == nil {
		opts.Clock = SystemClock{}
	}
	if opts.Poll <= 0 {
		opts.Poll = DefaultSchedulerPoll
	}
	if opts.BusyPoll <= 0 {
		opts.BusyPoll = DefaultBusyPoll
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Ticker == nil {
		opts.Ticker = func(d time.Duration) (<-chan time.Time, func()) {
			t := time.NewTicker(d)
			return t.C, t.Stop
		}
	}
	return &Scheduler{
		opts: opts, clock: opts.Clock, log: opts.Logger, cfg: opts.Config,
		wake: make(chan struct{}, 1), subs: make(map[int]chan Transition),
	}
}

// Serve evaluates at once and then every Poll (asking the busy source
// every BusyPoll) until ctx ends, when it returns nil.
func (s *Scheduler) Serve(ctx context.Context) error {
	if !s.serving.CompareAndSwap(false, true) {
		return ErrSchedulerServing
	}
	defer s.serving.Store(false)
	ticks, stop := s.opts.Ticker(s.opts.Poll)
	defer stop()
	s.step(ctx, true)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ticks:
			s.step(ctx, false)
		case <-s.wake:
			s.step(ctx, false)
		}
	}
}

// Evaluate asks every source now, evaluates, publishes a transition if
// the state changed, and returns the window.
func (s *Scheduler) Evaluate(ctx context.Context) Window {
	return s.step(ctx, true)
}

// Status returns the window of the last evaluation without asking any
// source; before the first one it is shut with Detail "not evaluated yet".
func (s *Scheduler) Status() Window {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.evaluated {
		return Window{Detail: schedNotYet}
	}
	return s.last
}

// NextWindow asks the busy source now and returns the next sleep or
// meeting window long enough to count (see the NextWindow function).
func (s *Scheduler) NextWindow(ctx context.Context) Window {
	s.stepMu.Lock()
	now := s.clock.Now()
	s.refreshBusy(ctx, now)
	busy := s.busy
	s.stepMu.Unlock()
	return NextWindow(now, s.Config(), busy)
}

// Config returns the configuration in use.
func (s *Scheduler) Config() WindowConfig {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg
}

// UpdateConfig replaces the configuration; Serve re-evaluates at once.
func (s *Scheduler) UpdateConfig(cfg WindowConfig) {
	s.mu.Lock()
	s.cfg = cfg
	s.mu.Unlock()
	s.Wake()
}

// Wake makes Serve evaluate now rather than at the next poll, say after
// learning was paused or resumed. It never blocks.
func (s *Scheduler) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Subscribe returns a channel of transitions and a function that ends the
// subscription and closes the channel. Publishing never waits: the channel
// holds one transition, and a newer one replaces one not yet received, so
// a slow subscriber skips intermediate changes but always finds the latest
// state. Read each Transition as the current state, not as a delta. A new
// subscriber finds the latest transition, if any, already waiting.
func (s *Scheduler) Subscribe() (<-chan Transition, func()) {
	ch := make(chan Transition, 1)
	s.mu.Lock()
	id := s.nextSub
	s.nextSub++
	s.subs[id] = ch
	if s.hasTr {
		ch <- s.lastTr
	}
	s.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			s.mu.Lock()
			delete(s.subs, id)
			close(ch)
			s.mu.Unlock()
		})
	}
}
