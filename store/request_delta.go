package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
)

// Builds of schema version 6 (migration 0006) wrote a delta skeleton when
// a request began with the chunks of the session's last one: "the first
// count chunks of turn base, then these" (skelDelta). Builds since write
// only full skeletons, but databases hold delta ones, so they are read:
// reading one follows the references down to a full skeleton (those
// builds wrote one at least every ninth turn of a session). A base is
// always an earlier turn (a smaller id), committed with or before the turn
// that refers to it; turns are never deleted one by one (code that deletes
// some must delete the turns referring to them too, or rewrite their
// skeletons in full).

// skelDelta is the first byte of a delta skeleton: then the base turn's id
// and the count of its chunks taken, as uvarints, then the hashes of the
// chunks that follow them.
const skelDelta = 2

// skeleton is a parsed skeleton: the first count chunk hashes of turn base
// (none when base is 0), then hashes.
type skeleton struct {
	base   int64
	count  int
	hashes [][sha256.Size]byte
}

// maxSkeletonChunks bounds a delta skeleton's count: a request of this
// many chunks is at least a gigabyte.
const maxSkeletonChunks = 1 << 22

func parseSkeleton(b []byte) (skeleton, error) {
	var s skeleton
	if len(b) == 0 {
		return s, errSkeleton
	}
	rest := b[1:]
	switch b[0] {
	case skelVersion:
	case skelDelta:
		base, n := binary.Uvarint(rest)
		if n <= 0 || base == 0 || base > math.MaxInt64 {
			return s, errSkeleton
		}
		rest = rest[n:]
		count, n := binary.Uvarint(rest)
		if n <= 0 || count == 0 || count > maxSkeletonChunks {
			return s, errSkeleton
		}
		rest = rest[n:]
		s.base, s.count = int64(base), int(count)
	default:
		return s, errSkeleton
	}
	if len(rest)%sha256.Size != 0 {
		return s, errSkeleton
	}
	s.hashes = make([][sha256.Size]byte, len(rest)/sha256.Size)
	for i := range s.hashes {
		s.hashes[i] = [sha256.Size]byte(rest[i*sha256.Size:])
	}
	return s, nil
}

// chunkLists returns the full list of chunk hashes of each turn among
// turns whose request is a skeleton, reading the skeletons of the base
// turns they refer to that are not among them.
func (db *DB) chunkLists(ctx context.Context, turns []Turn) (map[int64][][sha256.Size]byte, error) {
	skels := make(map[int64]skeleton)
	for i := range turns {
		if turns[i].requestForm != formParts {
			continue
		}
		s, err := parseSkeleton(turns[i].Request)
		if err != nil {
			return nil, fmt.Errorf("read request of turn %d: %w", turns[i].ID, err)
		}
		skels[turns[i].ID] = s
	}
	// Read the missing bases, level by level; a base is an earlier turn,
	// so the references end.
	for {
		var missing []int64
		seen := make(map[int64]bool)
		for id, s := range skels {
			if s.base == 0 {
				continue
			}
			if s.base >= id {
				return nil, fmt.Errorf("read request of turn %d: %w (base turn %d)", id, errSkeleton, s.base)
			}
			if _, ok := skels[s.base]; !ok && !seen[s.base] {
				seen[s.base] = true
				missing = append(missing, s.base)
			}
		}
		if len(missing) == 0 {
			break
		}
		if err := db.readSkeletons(ctx, missing, skels); err != nil {
			return nil, err
		}
	}
	lists := make(map[int64][][sha256.Size]byte, len(skels))
	var expand func(id int64) ([][sha256.Size]byte, error)
	expand = func(id int64) ([][sha256.Size]byte, error) {
		if l, ok := lists[id]; ok {
			return l, nil
		}
		s := skels[id]
		l := s.hashes
		if s.base != 0 {
			b, err := expand(s.base)
			if err != nil {
				return nil, err
			}
			if s.count > len(b) {
				return nil, fmt.Errorf("read request of turn %d: %w (takes %d chunks of turn %d's %d)", id, errSkeleton, s.count, s.base, len(b))
			}
			l = append(b[:s.count:s.count], s.hashes...)
		}
		lists[id] = l
		return l, nil
	}
	for i := range turns {
		if turns[i].requestForm == formParts {
			if _, err := expand(turns[i].ID); err != nil {
				return nil, err
			}
		}
	}
	return lists, nil
}

// readSkeletons reads the skeletons of the turns with the given ids into
// skels; a turn that is missing, or whose request is not a skeleton, is an
// error.
func (db *DB) readSkeletons(ctx context.Context, ids []int64, skels map[int64]skeleton) error {
	err := queryRows(ctx, db.sql, "SELECT id, request FROM turns WHERE request_form = 1 AND id IN (SELECT value FROM json_each(?))",
		[]any{idsJSON(ids)}, func(rows *sql.Rows) error {
			var id int64
			var b []byte
			if err := rows.Scan(&id, &b); err != nil {
				return err
			}
			s, err := parseSkeleton(b)
			if err != nil {
				return fmt.Errorf("turn %d: %w", id, err)
			}
			skels[id] = s
			return nil
		})
	if err != nil {
		return fmt.Errorf("read request skeletons: %w", err)
	}
	for _, id := range ids {
		if _, ok := skels[id]; !ok {
			return fmt.Errorf("request skeleton of turn %d: %w", id, ErrNotFound)
		}
	}
	return nil
}
