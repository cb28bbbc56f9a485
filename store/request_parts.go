package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
)

// Agents send the whole conversation on every turn, so a session's
// requests repeat each other: the system prompt and the tools every time,
// and all of turn n's messages again in turn n+1. Stored whole, a session
// of n turns costs O(n²) bytes; a day of a coding agent's 60 KB requests
// was hundreds of megabytes. So a request is cut into content-defined
// chunks (a gear rolling hash picks the cut points from the bytes
// themselves, so an insertion or a change only moves the cuts next to
// it), each chunk is kept once in request_parts under its SHA-256, and the
// turn keeps the list of its chunks' hashes, its skeleton
// (turns.request_form = formParts). The proxy's injected text in the
// system prompt, the new messages at the end and the cuts next to them
// make a turn's new chunks; the rest is shared with earlier turns, of any
// session. The request read back is byte for byte the one recorded.
// Requests under partsFrom bytes are stored as they are (formRaw), as
// every request was before. Databases written by builds of schema
// version 6 also hold delta skeletons, which are read (request_delta.go)
// but no longer written.
//
// The cutting is hand-written: restic/chunker (Rabin) cuts streams into
// chunks of about a megabyte; these are a kilobyte, cut from a buffer.

// Request forms, in turns.request_form.
const (
	formRaw   = 0 // request holds the body itself
	formParts = 1 // request holds a skeleton (see splitRequest)
)

// Chunk sizes: no cut before chunkMin bytes, one at chunkMax at the
// latest, and in between where the hash's top chunkBits bits are zero, so
// chunks average about chunkMin + 2^chunkBits bytes.
const (
	chunkMin  = 256
	chunkMax  = 8 << 10
	chunkBits = 10
	partsFrom = 2 * chunkMin // smaller requests are stored whole
)

// skelVersion is the first byte of a full skeleton: then each chunk's
// SHA-256 in order (see request_delta.go for the kind older builds wrote).
const skelVersion = 1

// gear is the rolling hash's table: 256 fixed pseudo-random words
// (splitmix64 from a fixed seed). Changing it changes every cut, which
// only costs sharing between requests stored before and after.
var gear = func() (g [256]uint64) {
	x := uint64(0x6d657461636c6177) // "metaclaw"
	for i := range g {
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		g[i] = z ^ (z >> 31)
	}
	return g
}()

// cut returns the length of the first chunk of b.
func cut(b []byte) int {
	if len(b) <= chunkMin {
		return len(b)
	}
	end := min(len(b), chunkMax)
	const mask = 1<<chunkBits - 1
	var h uint64
	for i := chunkMin; i < end; i++ {
		// The hash covers the last 64 bytes: older ones have shifted out.
		h = h<<1 + gear[b[i]]
		if h>>(64-chunkBits)&mask == 0 {
			return i + 1
		}
	}
	return end
}

// chunk is one piece of a request and its SHA-256.
type chunk struct {
	hash [sha256.Size]byte
	body []byte // a view of the request
}

// splitRequest cuts a request into chunks and returns its skeleton
// (skelVersion, then each chunk's SHA-256 in order) and the chunks; it
// reports false for a request to store whole.
func splitRequest(req []byte) (skel []byte, parts []chunk, ok bool) {
	if len(req) < partsFrom {
		return nil, nil, false
	}
	for rest := req; len(rest) > 0; {
		n := cut(rest)
		parts = append(parts, chunk{hash: sha256.Sum256(rest[:n]), body: rest[:n]})
		rest = rest[n:]
	}
	skel = append(make([]byte, 0, 1+len(parts)*sha256.Size), skelVersion)
	for _, p := range parts {
		skel = append(skel, p.hash[:]...)
	}
	return skel, parts, true
}

// errSkeleton reports a skeleton that does not parse.
var errSkeleton = errors.New("malformed request skeleton")

// joinRequest rebuilds a request from its chunks' hashes.
func joinRequest(hs [][sha256.Size]byte, body func([sha256.Size]byte) ([]byte, error)) ([]byte, error) {
	var out []byte
	for _, h := range hs {
		p, err := body(h)
		if err != nil {
			return nil, err
		}
		out = append(out, p...)
	}
	return out, nil
}

// partCache remembers the hashes of parts known to be stored, so that the
// recorder does not offer the system prompt and the history again on
// every turn. It holds at most maxKnownParts hashes and starts over when
// full; forgetting only costs an insert that does nothing. Parts are never
// deleted: code that deletes some must also empty this cache.
type partCache struct {
	mu sync.Mutex
	m  map[[sha256.Size]byte]struct{}
}

const maxKnownParts = 1 << 14

func (c *partCache) has(h [sha256.Size]byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.m[h]
	return ok
}

// add records hashes whose parts a committed transaction stored.
func (c *partCache) add(hs map[[sha256.Size]byte]struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m)+len(hs) > maxKnownParts {
		c.m = make(map[[sha256.Size]byte]struct{}, len(hs))
	}
	for h := range hs {
		c.m[h] = struct{}{}
	}
}

const insertPartSQL = `INSERT INTO request_parts(hash, body) VALUES(?, ?) ON CONFLICT(hash) DO NOTHING`

// storedRequest returns what to store for req and its form, inserting the
// parts it refers to that are neither known to be stored nor in added (the
// parts this transaction inserted), and adding theirs to added.
func (db *DB) storedRequest(ctx context.Context, insert *sql.Stmt, req []byte, added map[[sha256.Size]byte]struct{}) ([]byte, int, error) {
	skel, parts, ok := splitRequest(req)
	if !ok {
		return req, formRaw, nil
	}
	for _, p := range parts {
		if _, ok := added[p.hash]; ok || db.parts.has(p.hash) {
			continue
		}
		if _, err := insert.ExecContext(ctx, p.hash[:], p.body); err != nil {
			return nil, 0, fmt.Errorf("store request part: %w", err)
		}
		added[p.hash] = struct{}{}
	}
	return skel, formParts, nil
}

// joinRequests replaces the skeletons among the turns' requests by the
// requests they were made from, reading the chunks they need in a few
// queries. It runs after the turns' query is closed, since an in-memory
// database has one connection.
func (db *DB) joinRequests(ctx context.Context, turns []Turn) error {
	lists, err := db.chunkLists(ctx, turns)
	if err != nil {
		return err
	}
	bodies := make(map[[sha256.Size]byte][]byte)
	var missing [][sha256.Size]byte
	for i := range turns {
		for _, h := range lists[turns[i].ID] {
			if _, ok := bodies[h]; !ok {
				bodies[h] = nil
				missing = append(missing, h)
			}
		}
	}
	if err := db.readParts(ctx, missing, bodies); err != nil {
		return err
	}
	for i := range turns {
		t := &turns[i]
		if t.requestForm != formParts {
			continue
		}
		req, err := joinRequest(lists[t.ID], func(h [sha256.Size]byte) ([]byte, error) {
			if b := bodies[h]; b != nil {
				return b, nil
			}
			return nil, fmt.Errorf("request part %x: %w", h[:6], ErrNotFound)
		})
		if err != nil {
			return fmt.Errorf("read request of turn %d: %w", t.ID, err)
		}
		t.Request, t.requestForm = req, formRaw
	}
	return nil
}

// readParts reads the chunks with the given hashes into bodies, in one
// query: the hashes go as one JSON array of hex strings, as the store
// passes lists of ids (see idsJSON).
func (db *DB) readParts(ctx context.Context, hashes [][sha256.Size]byte, bodies map[[sha256.Size]byte][]byte) error {
	list := make([]byte, 0, 2+len(hashes)*(2*sha256.Size+3))
	list = append(list, '[')
	for i, h := range hashes {
		if i > 0 {
			list = append(list, ',')
		}
		list = append(hex.AppendEncode(append(list, '"'), h[:]), '"')
	}
	list = append(list, ']')
	err := queryRows(ctx, db.sql, "SELECT hash, body FROM request_parts WHERE hash IN (SELECT unhex(value) FROM json_each(?))",
		[]any{string(list)}, func(rows *sql.Rows) error {
			var h, b []byte
			if err := rows.Scan(&h, &b); err != nil {
				return err
			}
			if len(h) == sha256.Size && b != nil {
				bodies[[sha256.Size]byte(h)] = b
			}
			return nil
		})
	if err != nil {
		return fmt.Errorf("read request parts: %w", err)
	}
	return nil
}
