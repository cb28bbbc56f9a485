package transcript

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/metaclaw/metaclaw/store"
)

// Digest is what the learner reads, every few turns, out of a stored
// turn's request: the person's instruction and the words they added.
type Digest struct {
	Read        bool     // the request could be read (Open)
	Instruction string   // Conversation.Instruction
	NewUser     []string // Conversation.NewUserTexts
}

// DigestOf reads the digest of a request body. Its texts are copies: a
// digest kept in a cache must not keep the whole request alive.
func DigestOf(body []byte) Digest {
	c, err := Open(body)
	if err != nil {
		return Digest{}
	}
	d := Digest{Read: true, Instruction: strings.Clone(c.Instruction())}
	for _, t := range c.NewUserTexts() {
		d.NewUser = append(d.NewUser, strings.Clone(t))
	}
	return d
}

// maxDigests bounds a Digests; when it is full it starts over.
const maxDigests = 4096

// Digests caches the digests of turns. Memory extraction (every
// memory.flush_every turns) and skill evolution (every
// skills.evolution_every_n_turns) both read a session's latest turns, so
// sharing one Digests reads each request — tens of kilobytes for an
// agent — from the database and parses it once rather than once each.
// A turn's request never changes once recorded; the key also holds the
// session and the time of the turn, so that a turn id SQLite reuses after
// a deletion is not mistaken for the old turn. It is safe for concurrent
// use; the zero value is empty and ready.
type Digests struct {
	mu sync.Mutex
	m  map[turnKey]Digest
}

type turnKey struct {
	id      int64
	session string
	at      time.Time
}

func keyOf(t store.Turn) turnKey { return turnKey{t.ID, t.SessionID, t.CreatedAt} }

// Of returns the digests of turns, in order. The turns need not carry
// their requests (a brief query): those not cached are read from their
// Request, or when it is nil with db.TurnsByID. A turn deleted meanwhile
// gets a zero Digest.
func (d *Digests) Of(ctx context.Context, db *store.DB, turns []store.Turn) ([]Digest, error) {
	out, missing := d.cached(turns)
	if len(missing) == 0 {
		return out, nil
	}
	read := make(map[turnKey]Digest, len(missing))
	var ids []int64
	for _, t := range missing {
		if t.Request != nil {
			read[keyOf(t)] = DigestOf(t.Request)
		} else {
			ids = append(ids, t.ID)
		}
	}
	if len(ids) > 0 {
		full, err := db.TurnsByID(ctx, ids)
		if err != nil {
			return nil, err
		}
		for _, t := range full {
			read[keyOf(t)] = DigestOf(t.Request)
		}
	}
	d.store(read)
	for i, t := range turns {
		if dg, ok := read[keyOf(t)]; ok {
			out[i] = dg
		}
	}
	return out, nil
}

// cached returns the digests cached for turns and the other turns.
func (d *Digests) cached(turns []store.Turn) ([]Digest, []store.Turn) {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]Digest, len(turns))
	var missing []store.Turn
	for i, t := range turns {
		dg, ok := d.m[keyOf(t)]
		if !ok {
			missing = append(missing, t)
		}
		out[i] = dg
	}
	return out, missing
}

func (d *Digests) store(read map[turnKey]Digest) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.m == nil || len(d.m)+len(read) > maxDigests {
		d.m = make(map[turnKey]Digest, len(read))
	}
	for k, dg := range read {
		d.m[k] = dg
	}
}
