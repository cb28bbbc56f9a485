package proxy

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/metaclaw/metaclaw/proxy/learning"
	"github.com/metaclaw/metaclaw/store"
)

// Recorder stores turns and session ends. The proxy calls it only from its
// own background goroutine, never on a request's path; *store.DB is the
// implementation.
type Recorder interface {
	RecordTurns(ctx context.Context, turns []*store.Turn) error
	EndSession(ctx context.Context, id, reason string, at time.Time) (bool, error)
	IdleSessions(ctx context.Context, before time.Time) ([]string, error)
}

var _ Recorder = (*store.DB)(nil)

// RecorderStats counts what the background recorder did.
type RecorderStats struct {
	Queued        int   `json:"queued"`         // waiting to be written now
	Recorded      int64 `json:"recorded"`       // turns written
	Dropped       int64 `json:"dropped"`        // turns lost because the queue was full
	Failed        int64 `json:"failed"`         // turns lost because the store refused them
	EventsDropped int64 `json:"events_dropped"` // events nobody read in time
}

type recordItem struct {
	turn        *store.Turn
	sessionDone bool
	fresh       bool // the request ends with the person's words (learning.Event.Fresh)
	// fill, when set, completes the turn on the recorder's goroutine (e.g.
	// parsing a response body), keeping that work off the request path.
	fill func(*store.Turn)
	// done is called once the turn is written, or dropped.
	done func()
}

// asyncRecorder writes turns in batches on one goroutine. Enqueue never
// blocks: when the queue is full the turn is dropped and counted.
type asyncRecorder struct {
	rec    Recorder
	log    *slog.Logger
	queue  chan recordItem
	events chan learning.Event
	now    func() time.Time

	recorded, dropped, failed, eventsDropped atomic.Int64
}

func newAsyncRecorder(rec Recorder, log *slog.Logger, size int, now func() time.Time) *asyncRecorder {
	return &asyncRecorder{rec: rec, log: log, queue: make(chan recordItem, size), events: make(chan learning.Event, 1024), now: now}
}

func (r *asyncRecorder) enqueue(it recordItem) {
	select {
	case r.queue <- it:
	default:
		r.dropped.Add(1)
		it.finish()
	}
}

func (it recordItem) finish() {
	if it.done != nil {
		it.done()
	}
}

func (r *asyncRecorder) stats() RecorderStats {
	return RecorderStats{Queued: len(r.queue), Recorded: r.recorded.Load(), Dropped: r.dropped.Load(),
		Failed: r.failed.Load(), EventsDropped: r.eventsDropped.Load()}
}

func (r *asyncRecorder) publish(ev learning.Event) {
	select {
	case r.events <- ev:
	default:
		r.eventsDropped.Add(1)
	}
}

// recordLinger is how long the recorder waits for more turns before it
// commits a batch that is not full. Each SQLite commit costs about as much
// as the inserts of a dozen turns, so under load a few milliseconds of
// waiting turn many small commits into a few large ones; a lone turn is
// stored a few milliseconds later, off the request path either way.
const recordLinger = 5 * time.Millisecond

// run writes queued turns until ctx ends, then drains what is left (bounded
// by drain).
func (r *asyncRecorder) run(ctx context.Context, drain time.Duration) {
	batch := make([]recordItem, 0, 64)
	linger := time.NewTimer(time.Hour)
	linger.Stop()
	for {
		select {
		case it := <-r.queue:
			batch = r.collect(append(batch[:0], it))
			if len(batch) < cap(batch) {
				batch = r.lingerFor(ctx, linger, batch)
			}
			r.write(context.Background(), batch)
			clear(batch) // the written turns (and their requests) can go
		case <-ctx.Done():
			r.drain(drain)
			return
		}
	}
}

// lingerFor adds turns that arrive within recordLinger to batch, until it
// is full.
func (r *asyncRecorder) lingerFor(ctx context.Context, t *time.Timer, batch []recordItem) []recordItem {
	t.Reset(recordLinger)
	defer t.Stop()
	for len(batch) < cap(batch) {
		select {
		case it := <-r.queue:
			batch = append(batch, it)
		case <-t.C:
			return batch
		case <-ctx.Done():
			return batch
		}
	}
	return batch
}

func (r *asyncRecorder) collect(batch []recordItem) []recordItem {
	for len(batch) < cap(batch) {
		select {
		case it := <-r.queue:
			batch = append(batch, it)
		default:
			return batch
		}
	}
	return batch
}

func (r *asyncRecorder) drain(limit time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	batch := make([]recordItem, 0, 64)
	for ctx.Err() == nil {
		batch = r.collect(batch[:0])
		if len(batch) == 0 {
			return
		}
		r.write(ctx, batch)
		clear(batch)
	}
}

func (r *asyncRecorder) write(ctx context.Context, batch []recordItem) {
	turns := make([]*store.Turn, len(batch))
	for i, it := range batch {
		if it.fill != nil {
			it.fill(it.turn)
		}
		turns[i] = it.turn
	}
	err := r.rec.RecordTurns(ctx, turns)
	for _, it := range batch {
		it.turn.Request = nil // stored; it may be large
		it.finish()
	}
	if err != nil {
		r.failed.Add(int64(len(turns)))
		r.log.Error("record turns", "count", len(turns), "err", err)
		return
	}
	r.recorded.Add(int64(len(turns)))
	for _, it := range batch {
		t := it.turn
		r.publish(learning.Event{Kind: learning.TurnRecorded, SessionID: t.SessionID, TurnID: t.ID, TurnType: t.Type, Fresh: it.fresh, At: t.CreatedAt})
		if it.sessionDone {
			r.endSession(ctx, t.SessionID, "done")
		}
	}
}

func (r *asyncRecorder) endSession(ctx context.Context, id, reason string) {
	ended, err := r.rec.EndSession(ctx, id, reason, r.now())
	if err != nil {
		r.log.Error("end session", "session", id, "err", err)
		return
	}
	if ended {
		r.publish(learning.Event{Kind: learning.SessionEnded, SessionID: id, Reason: reason, At: r.now()})
	}
}

// reap ends sessions that have been quiet for idle, every interval, until
// ctx ends.
func (r *asyncRecorder) reap(ctx context.Context, idle, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			r.reapOnce(ctx, idle)
		}
	}
}

func (r *asyncRecorder) reapOnce(ctx context.Context, idle time.Duration) {
	ids, err := r.rec.IdleSessions(ctx, r.now().Add(-idle))
	if err != nil {
		r.log.Error("find idle sessions", "err", err)
		return
	}
	for _, id := range ids {
		r.endSession(ctx, id, "idle")
	}
}
