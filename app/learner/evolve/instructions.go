package evolve

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/internal/transcript"
	"github.com/metaclaw/metaclaw/store"
)

// maxCachedInstructions bounds instructionCache; when it is full it starts
// over.
const maxCachedInstructions = 4096

// instructionCache holds the instruction of turns already read. A turn's
// request never changes once recorded; the key also holds the session and
// the time of the turn, so that a turn id SQLite reuses after a deletion
// is not mistaken for the old turn.
type instructionCache struct {
	mu sync.Mutex
	m  map[turnKey]string
}

type turnKey struct {
	id      int64
	session string
	at      time.Time
}

func keyOf(t store.Turn) turnKey { return turnKey{t.ID, t.SessionID, t.CreatedAt} }

// get returns the cached instruction of t ("" when there is none).
func (c *instructionCache) get(t store.Turn) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[keyOf(t)]
}

// fill reads the requests of the turns not cached yet and caches their
// instructions ("" when a request cannot be read).
func (c *instructionCache) fill(ctx context.Context, db *store.DB, turns []store.Turn) error {
	c.mu.Lock()
	var missing []int64
	for _, t := range turns {
		if _, ok := c.m[keyOf(t)]; !ok {
			missing = append(missing, t.ID)
		}
	}
	c.mu.Unlock()
	if len(missing) == 0 {
		return nil
	}
	full, err := db.TurnsByID(ctx, missing)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m)+len(full) > maxCachedInstructions {
		c.m = make(map[turnKey]string, len(full))
	}
	for _, t := range full {
		instruction := ""
		if conv, err := transcript.Open(t.Request); err == nil {
			// A copy: the text may share the request's memory, which the
			// cache must not keep.
			instruction = strings.Clone(conv.Instruction())
		}
		c.m[keyOf(t)] = instruction
	}
	return nil
}
