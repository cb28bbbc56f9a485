package memory

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/internal/transcript"
	"github.com/metaclaw/metaclaw/proxy/learning"
	"github.com/metaclaw/metaclaw/store"
)

// Defaults of Options.
const (
	DefaultRetryAfter  = 5 * time.Minute
	DefaultMaxAttempts = 12
	DefaultTick        = time.Minute
	maxRetryDelay      = 6 * time.Hour
	decayEvery         = 6 * time.Hour
	decayFloor         = 0.1 // an episode whose effective importance falls below this ends
	compactDelay       = 2 * time.Second
	maxTurnsPerPass    = 200
	sinceKey           = "memory_since" // meta key: sessions ended before it are not caught up
)

// Options configure a Service.
type Options struct {
	DB        *store.DB
	Completer Completer // the extraction model; nil: the rule-based extractor only
	Embedder  Embedder  // nil: keyword retrieval
	Retrieval RetrieveOptions
	// AutoExtract extracts at session end and every FlushEvery main turns
	// that brought the person's words (0: session end only).
	AutoExtract bool
	FlushEvery  int
	// Paused reports whether learning is paused (nil: never); automatic
	// extraction waits meanwhile and catches up later.
	Paused      func() bool
	Now         func() time.Time // nil: time.Now
	Logger      *slog.Logger
	RetryAfter  time.Duration // first retry of a queued model pass; doubles up to 6 h
	MaxAttempts int           // model passes tried before a queued turn is given up
	Tick        time.Duration // how often Serve looks for due work
	// Outcome is told how each model extraction went (nil error: it
	// worked), so that one that keeps failing is seen; nil: nobody.
	Outcome func(err error)
	// Digests caches what is read of the turns' requests, shared with
	// skill evolution (nil: the service's own).
	Digests *transcript.Digests
}

// Service extracts, consolidates and retrieves memories. Its methods are
// safe for concurrent use; Serve runs the background work.
type Service struct {
	opts Options
	db   *store.DB
	ret  *Retriever
	ext  *Extractor // nil without a model
	log  *slog.Logger
	now  func() time.Time
	// digests keeps what extraction read of each turn's request.
	digests *transcript.Digests

	events     chan learning.Event
	compactReq chan struct{}
	dropped    atomic.Int64

	writeMu   sync.Mutex // serialises changes to memories, keeping the indexes in step
	extractMu sync.Mutex // one extraction at a time: a flush and a session end never read the same turns twice
	usedMu    sync.Mutex // guards used
	used      map[int64]int
	freshMu   sync.Mutex     // guards fresh
	fresh     map[string]int // fresh turns per session since its last extraction (this run)
}

// New returns a service.
func New(opts Options) *Service {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.RetryAfter <= 0 {
		opts.RetryAfter = DefaultRetryAfter
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = DefaultMaxAttempts
	}
	if opts.Tick <= 0 {
		opts.Tick = DefaultTick
	}
	if opts.Digests == nil {
		opts.Digests = &transcript.Digests{}
	}
	s := &Service{opts: opts, db: opts.DB, log: opts.Logger, now: opts.Now, digests: opts.Digests,
		events: make(chan learning.Event, 1024), compactReq: make(chan struct{}, 1), used: map[int64]int{}, fresh: map[string]int{}}
	s.ret = NewRetriever(opts.DB, opts.Retrieval, opts.Embedder, opts.Now, opts.Logger)
	if opts.Completer != nil {
		s.ext = NewExtractor(opts.Completer)
	}
	return s
}

// Retriever returns the service's retriever.
func (s *Service) Retriever() *Retriever { return s.ret }

// Notify queues a proxy event for Serve; it never blocks. An event that
// does not fit is dropped and counted: the periodic catch-up finds the
// sessions it concerned.
func (s *Service) Notify(ev learning.Event) {
	select {
	case s.events <- ev:
	default:
		s.dropped.Add(1)
	}
}

// Serve handles events and runs the periodic work (catch-up of sessions
// that ended unextracted, queued model passes, episode decay, usage
// counts, compaction after forget) until ctx ends.
func (s *Service) Serve(ctx context.Context) error {
	s.markSince(ctx)
	s.ret.warm(store.DefaultScope)
	defer s.ret.Close()
	tick := time.NewTicker(s.opts.Tick)
	defer tick.Stop()
	var compactAt <-chan time.Time
	var lastDecay time.Time
	for {
		select {
		case <-ctx.Done():
			s.flushUsage(context.Background())
			if compactAt != nil {
				s.compact(context.Background())
			}
			return nil
		case ev := <-s.events:
			s.handle(ctx, ev)
		case <-s.compactReq:
			compactAt = time.After(compactDelay)
		case <-compactAt:
			compactAt = nil
			s.compact(ctx)
		case <-tick.C:
			s.periodic(ctx, &lastDecay)
		}
	}
}

func (s *Service) handle(ctx context.Context, ev learning.Event) {
	var err error
	switch ev.Kind {
	case learning.TurnRecorded:
		if ev.TurnType == store.TurnMain || ev.TurnType == "" {
			err = s.TurnRecorded(ctx, ev.SessionID, ev.Fresh)
		}
	case learning.SessionEnded:
		err = s.SessionEnded(ctx, ev.SessionID)
	}
	if err != nil && ctx.Err() == nil {
		s.log.Warn("memory extraction", "session", ev.SessionID, "event", ev.Kind, "err", err)
	}
}

func (s *Service) periodic(ctx context.Context, lastDecay *time.Time) {
	s.flushUsage(ctx)
	if s.automatic() {
		if err := s.CatchUp(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("memory catch-up", "err", err)
		}
		if err := s.RetryQueued(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("memory model pass", "err", err)
		}
	}
	if now := s.now(); now.Sub(*lastDecay) >= decayEvery {
		*lastDecay = now
		if n, err := s.Decay(ctx); err != nil {
			s.log.Warn("memory decay", "err", err)
		} else if n > 0 {
			s.log.Info("episodes faded from memory", "count", n)
		}
	}
}

// automatic reports whether automatic extraction may run now.
func (s *Service) automatic() bool {
	return s.opts.AutoExtract && (s.opts.Paused == nil || !s.opts.Paused())
}

// TurnRecorded counts a main turn of a session and extracts the session's
// unextracted turns once memory.flush_every of them brought the person's
// words (fresh); the turns of a tool loop in between are extracted with
// them, never on their own.
func (s *Service) TurnRecorded(ctx context.Context, sessionID string, fresh bool) error {
	if !s.automatic() || s.opts.FlushEvery <= 0 || !fresh {
		return nil
	}
	s.freshMu.Lock()
	s.fresh[sessionID]++
	due := s.fresh[sessionID] >= s.opts.FlushEvery
	s.freshMu.Unlock()
	if !due {
		return nil
	}
	_, err := s.ExtractSession(ctx, sessionID)
	return err
}

// SessionEnded extracts what is left of a session.
func (s *Service) SessionEnded(ctx context.Context, sessionID string) error {
	if !s.automatic() {
		return nil
	}
	_, err := s.ExtractSession(ctx, sessionID)
	return err
}

// CatchUp extracts sessions that ended since the service first ran but
// were never (fully) extracted: events dropped, learning paused, a crash.
func (s *Service) CatchUp(ctx context.Context) error {
	since, err := s.since(ctx)
	if err != nil {
		return err
	}
	ids, err := s.db.SessionsToExtract(ctx, since, 20)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if _, err := s.ExtractSession(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// markSince records when memory first ran, so that catch-up leaves older
// sessions alone.
func (s *Service) markSince(ctx context.Context) {
	if v, err := s.db.Meta(ctx, sinceKey); err == nil && v == "" {
		if err := s.db.SetMeta(ctx, sinceKey, strconv.FormatInt(s.now().UnixMilli(), 10)); err != nil {
			s.log.Warn("record memory start", "err", err)
		}
	}
}

func (s *Service) since(ctx context.Context) (time.Time, error) {
	v, err := s.db.Meta(ctx, sinceKey)
	if err != nil || v == "" {
		return s.now(), err
	}
	ms, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return s.now(), nil
	}
	return time.UnixMilli(ms), nil
}

// Select is Retriever.Select, counting which memories were injected (an
// episode in use does not decay).
func (s *Service) Select(ctx context.Context, scope string, msgs []Message) (Selection, error) {
	sel, err := s.ret.Select(ctx, scope, msgs)
	if err == nil && len(sel.Memories) > 0 {
		s.usedMu.Lock()
		for _, m := range sel.Memories {
			s.used[m.ID]++
		}
		s.usedMu.Unlock()
	}
	return sel, err
}

func (s *Service) flushUsage(ctx context.Context) {
	s.usedMu.Lock()
	used := s.used
	s.used = map[int64]int{}
	s.usedMu.Unlock()
	if err := s.db.MarkMemoriesUsed(ctx, used, s.now()); err != nil {
		s.log.Warn("record memory use", "err", err)
	}
}

func (s *Service) compact(ctx context.Context) {
	start := time.Now()
	if _, err := s.db.Compact(ctx); err != nil {
		s.log.Warn("compact after forget", "err", err)
		return
	}
	s.log.Info("database compacted after forget", "took", time.Since(start).Round(time.Millisecond))
}

// Dropped returns how many events did not fit the queue.
func (s *Service) Dropped() int64 { return s.dropped.Load() }
