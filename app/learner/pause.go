package learner

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/metaclaw/metaclaw/store"
)

// MetaLearningPaused is the meta key that holds "1" while the person has
// paused learning (the proxy keeps serving; judging, evolution, extraction
// and training stop). The CLI, the tray and the web page set it; the
// running app reads it through a Pause.
const MetaLearningPaused = "learning_paused"

// pauseEvery is how stale Pause lets the flag get: a change made by
// another process reaches the running app within it, without a restart.
const pauseEvery = 2 * time.Second

// Pause is the person's pause switch as the running app sees it: the
// stored flag, read at most every pauseEvery so that the hot paths asking
// it (every judged turn, every window evaluation) do not query the
// database each time.
type Pause struct {
	db      *store.DB
	paused  atomic.Bool
	checked atomic.Int64 // unix nanoseconds of the last read
}

// NewPause returns the pause switch stored in db.
func NewPause(db *store.DB) *Pause { return &Pause{db: db} }

// Paused reports whether learning is paused.
func (p *Pause) Paused() bool {
	now := time.Now().UnixNano()
	if now-p.checked.Load() > int64(pauseEvery) {
		p.checked.Store(now)
		v, err := p.db.Meta(context.Background(), MetaLearningPaused)
		if err == nil {
			p.paused.Store(v == "1")
		}
	}
	return p.paused.Load()
}

// Set pauses or resumes learning; the state persists across restarts and
// this process sees it at once.
func (p *Pause) Set(ctx context.Context, paused bool) error {
	v := ""
	if paused {
		v = "1"
	}
	if err := p.db.SetMeta(ctx, MetaLearningPaused, v); err != nil {
		return err
	}
	p.paused.Store(paused)
	return nil
}
