// Package learner is the front door of MetaClaw's learning half. Build
// makes every learning service of a configuration from the store, the
// log and the pause and training-window state: the skill retriever and
// the memory service (the proxy's injectors, in that order), the judge
// and the skill evolver (Learner), in the training modes the policy
// server and the trainer, and when configured the skills folder and
// programmatic rollout. It returns them as a Learning: the injectors, the
// event sink (Notify, Consume), the policy for the proxy, the live
// settings (SetConfig) and one list of Serve services for the app to run.
// The package also owns the person's pause switch (Pause,
// MetaLearningPaused) and the check of the llm.* settings
// (TestConnection).
//
// The Learner is the judging and evolution service: when a main turn is
// recorded it has the judge score the session's previous main turn, with
// this turn as evidence; when a session ends it scores the last main turn
// (evidence "session_end") and then runs the skill evolver on the
// session; with skills.evolution_every_n_turns it also evolves every N
// main turns. Nothing is judged or evolved while learning is paused.
//
// Work is bounded: a capped event queue (events beyond it are dropped and
// counted), a few judge workers, and one evolver at a time. Serve owns
// every goroutine and returns when its context ends, after in-flight work
// finishes or, past a bounded wait, is abandoned.
//
// The app imports this package; it imports store, store/config, assets,
// proxy/learning (the types it shares with the proxy) and its own
// subpackages, never proxy or app.
package learner

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/evolve"
	"github.com/metaclaw/metaclaw/app/learner/internal/transcript"
	"github.com/metaclaw/metaclaw/app/learner/judge"
	"github.com/metaclaw/metaclaw/app/learner/llm"
	"github.com/metaclaw/metaclaw/app/learner/usage"
	"github.com/metaclaw/metaclaw/proxy/learning"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

// Defaults of Options.
const (
	DefaultQueueSize        = 256
	DefaultJudgeConcurrency = 4
	DefaultDrainTimeout     = 10 * time.Second
	// judgeWaitForEvolve bounds how long an evolution waits for the
	// judging of its session to finish.
	judgeWaitForEvolve = 3 * time.Minute
)

// Options configure a Learner.
type Options struct {
	DB               *store.DB
	Config           config.Config
	Logger           *slog.Logger     // nil discards
	Paused           func() bool      // nil = never paused
	Now              func() time.Time // nil = time.Now
	QueueSize        int              // events and judge jobs waiting; 0 = DefaultQueueSize
	JudgeConcurrency int              // turns judged at once; 0 = DefaultJudgeConcurrency
	DrainTimeout     time.Duration    // wait for in-flight work at shutdown; 0 = DefaultDrainTimeout
	// Skills is the skill retriever injection uses; after an evolution it
	// tells which training samples' prompts would now receive other
	// skills (nil: only changed skills they were given count).
	Skills SkillSelector
	// Meter counts and bounds the judge's and the evolver's calls and
	// watches their outcomes (nil: neither).
	Meter *usage.Meter
	// AsksSettle is how long the learner waits after skills change before
	// it has their asks written (0: 3 s), so that changes that come
	// together make one run.
	AsksSettle time.Duration
	// Digests caches what the evolver reads of the turns' requests,
	// shared with memory extraction (nil: the evolver's own, kept
	// across settings changes).
	Digests *transcript.Digests
}

// Stats counts what the learner did since it was made.
type Stats struct {
	Judged             int64 // scores stored
	JudgeFailed        int64 // turns no vote could score, or whose score could not be stored
	Evolutions         int64 // evolutions applied
	EvolutionsRejected int64
	EvolutionsEmpty    int64 // the evolver proposed nothing
	EvolveFailed       int64 // the evolver could not run (model or database error)
	Skipped            int64 // work skipped because learning was paused
	Dropped            int64 // events or jobs dropped because a queue was full
}

// Learner is the learning service. Make it with New.
type Learner struct {
	db       *store.DB
	log      *slog.Logger
	selector SkillSelector
	meter    *usage.Meter
	paused   func() bool
	now      func() time.Time
	opts     Options

	events     chan learning.Event
	judgeJobs  chan judgeJob
	evolveJobs chan evolveJob
	pending    inflight // judge jobs per session, so that evolution waits for them
	work       inflight // under key "": events and jobs queued or running, for Settle
	serving    atomic.Bool

	// sessions is owned by the dispatch goroutine.
	sessions map[string]*sessionState

	mu      sync.Mutex // guards the fields below
	cfg     config.Config
	judge   *judge.Judge    // nil when the judge is off
	evolver *evolve.Evolver // nil when the evolver has no endpoint
	queued  map[string]bool // sessions with an evolution waiting
	ended   map[string]bool // sessions whose end the dispatcher handled, until Settle reads them
	skipLog time.Time       // last "paused" log line
	dropLog time.Time       // last "dropped" log line

	judged, judgeFailed, evolutions, rejected, empty, evolveFailed, skipped, dropped atomic.Int64

	asksMu sync.Mutex // one asks run at a time (the worker, WriteAsks)
	asks   asksState  // guarded by asksMu
}

// New returns a learner; call Serve to run it.
func New(opts Options) *Learner {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Paused == nil {
		opts.Paused = func() bool { return false }
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Digests == nil {
		opts.Digests = &transcript.Digests{}
	}
	opts.QueueSize = defaultInt(opts.QueueSize, DefaultQueueSize)
	opts.JudgeConcurrency = defaultInt(opts.JudgeConcurrency, DefaultJudgeConcurrency)
	if opts.DrainTimeout <= 0 {
		opts.DrainTimeout = DefaultDrainTimeout
	}
	if opts.AsksSettle <= 0 {
		opts.AsksSettle = asksSettle
	}
	l := &Learner{
		db: opts.DB, log: opts.Logger.With("component", "learner"), paused: opts.Paused, now: opts.Now, opts: opts,
		selector: opts.Skills, meter: opts.Meter,
		events:     make(chan learning.Event, opts.QueueSize),
		judgeJobs:  make(chan judgeJob, opts.QueueSize),
		evolveJobs: make(chan evolveJob, 64),
		sessions:   map[string]*sessionState{},
		queued:     map[string]bool{},
		ended:      map[string]bool{},
		asks:       asksState{failed: map[string]int{}},
	}
	l.SetConfig(opts.Config)
	return l
}

func defaultInt(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

// SetConfig applies a new configuration to later work: judge and evolver
// endpoints, votes, auto-evolution and its cadence.
func (l *Learner) SetConfig(cfg config.Config) {
	j := l.buildJudge(cfg)
	ev := l.buildEvolver(cfg)
	l.mu.Lock()
	l.cfg, l.judge, l.evolver = cfg, j, ev
	l.mu.Unlock()
}

func (l *Learner) buildJudge(cfg config.Config) *judge.Judge {
	votes := cfg.RL.PRMVotes
	switch cfg.JudgeMode() {
	case config.JudgeOff:
		l.log.Info("judge off: learning.judge is off")
		return nil
	case config.JudgeSessionEnd:
		if votes > 0 {
			votes = cfg.Learning.SessionVotes
		}
	}
	return BuildJudge(cfg, votes, l.meter, l.log)
}

// BuildJudge makes the judge rl.* configures, asking votes votes per turn,
// its calls metered by meter (nil: not metered), or returns nil (saying
// why in the log) when the judge is off or has no endpoint.
func BuildJudge(cfg config.Config, votes int, meter *usage.Meter, log *slog.Logger) *judge.Judge {
	if votes <= 0 {
		log.Info("judge off: rl.prm_votes is 0")
		return nil
	}
	ep, err := llm.EndpointFor(cfg, llm.RoleJudge)
	if err != nil {
		log.Warn("judge off", "error", err)
		return nil
	}
	return judge.New(judge.Options{Client: meter.Metered(usage.Judge, llm.New(ep)), Model: ep.Model, Votes: votes})
}

func (l *Learner) buildEvolver(cfg config.Config) *evolve.Evolver {
	ep, err := llm.EndpointFor(cfg, llm.RoleEvolver)
	if err != nil {
		l.log.Warn("skill evolver off", "error", err)
		return nil
	}
	return evolve.New(evolve.Options{DB: l.db, Client: l.meter.Metered(usage.Evolver, llm.New(ep)), Logger: l.log,
		Digests: l.opts.Digests})
}

// current returns the configuration and components in use.
func (l *Learner) current() (config.Config, *judge.Judge, *evolve.Evolver) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cfg, l.judge, l.evolver
}

// Notify hands an event to the learner without blocking; when the queue is
// full the event is dropped and counted.
func (l *Learner) Notify(ev learning.Event) {
	l.work.begin("")
	select {
	case l.events <- ev:
	default:
		l.work.end("")
		l.drop("event queue full", "kind", ev.Kind, "session", ev.SessionID)
	}
}

// Stats returns the counters.
func (l *Learner) Stats() Stats {
	return Stats{
		Judged: l.judged.Load(), JudgeFailed: l.judgeFailed.Load(), Evolutions: l.evolutions.Load(),
		EvolutionsRejected: l.rejected.Load(), EvolutionsEmpty: l.empty.Load(), EvolveFailed: l.evolveFailed.Load(),
		Skipped: l.skipped.Load(), Dropped: l.dropped.Load(),
	}
}

// ErrServing is returned by a second, concurrent call of Serve.
var ErrServing = errors.New("learner: already serving")

// Serve runs the learner until ctx ends. It then stops taking work, waits
// up to DrainTimeout for judging and evolution in flight, cancels what is
// left and returns nil once every goroutine it started has ended. Queued
// work that had not started is dropped: the events are in the database and
// a restart does not replay them.
func (l *Learner) Serve(ctx context.Context) error {
	if !l.serving.CompareAndSwap(false, true) {
		return ErrServing
	}
	defer l.serving.Store(false)
	work, cancelWork := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelWork()
	var wg sync.WaitGroup
	for range l.opts.JudgeConcurrency {
		wg.Go(func() { l.judgeWorker(ctx, work) })
	}
	wg.Go(func() { l.evolveWorker(ctx, work) })
	wg.Go(func() { l.checkLeftSamples(work) })
	wg.Go(func() { l.asksWorker(ctx) })
	l.dispatch(ctx)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	timer := time.NewTimer(l.opts.DrainTimeout)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		l.log.Warn("learner: abandoning work in flight at shutdown", "waited", l.opts.DrainTimeout)
		cancelWork()
		<-done
	}
	l.discardJobs()
	return nil
}

// isPaused reports whether learning is paused, counting and (at most once
// a minute) logging the skipped work.
func (l *Learner) isPaused(what string, args ...any) bool {
	if !l.paused() {
		return false
	}
	l.skipped.Add(1)
	if l.throttle(&l.skipLog) {
		l.log.Info("learning paused: skipping "+what, append(args, "skipped_so_far", l.skipped.Load())...)
	}
	return true
}

// drop counts dropped work and logs it at most once a minute.
func (l *Learner) drop(msg string, args ...any) {
	l.dropped.Add(1)
	if l.throttle(&l.dropLog) {
		l.log.Warn("learner: "+msg+"; dropping", append(args, "dropped_so_far", l.dropped.Load())...)
	}
}

// throttle reports whether a minute has passed since *last, and if so
// moves *last to now.
func (l *Learner) throttle(last *time.Time) bool {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if !last.IsZero() && now.Sub(*last) < time.Minute {
		return false
	}
	*last = now
	return true
}
