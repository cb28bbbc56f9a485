package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// testdata/delta_v6.db was written by the builds of schema version 6,
// which stored a turn's request as a delta skeleton when it began like
// the session's last one (see request_delta.go). Each of its turns'
// response_text is the SHA-256 of the request recorded. It holds 27 turns:
// session loop, a tool loop recorded turn by turn (turns 1 and 10 full
// skeletons, the others deltas up to eight references deep), interleaved
// with session mixed (deltas and full skeletons, a request stored whole
// and an empty one), and session batch, five turns recorded in one batch
// whose deltas refer to each other.

// openDeltaFixture opens a copy of testdata/delta_v6.db, migrated to the
// current version, and returns it with the SHA-256 (hex) of each turn's
// request by id.
func openDeltaFixture(t *testing.T) (*DB, map[int64]string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "delta_v6.db"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "metaclaw.db")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := Open(path)
	if err != nil {
		t.Fatalf("open the version 6 fixture: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	want := map[int64]string{}
	rows, err := db.sql.Query(`SELECT id, response_text FROM turns`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var sum string
		if err := rows.Scan(&id, &sum); err != nil {
			t.Fatal(err)
		}
		want[id] = sum
	}
	if err := rows.Err(); err != nil || len(want) != 27 {
		t.Fatalf("the fixture holds %d turns, %v", len(want), err)
	}
	return db, want
}

// skeletonKinds returns, in id order, each turn's skeleton kind (0 for a
// request stored whole) and the length of its chain of references.
func skeletonKinds(t *testing.T, db *DB) (kinds []byte, depths []int) {
	t.Helper()
	rows, err := db.sql.Query(`SELECT id, request, request_form FROM turns ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	depth := map[int64]int{}
	for rows.Next() {
		var id int64
		var b []byte
		var form int
		if err := rows.Scan(&id, &b, &form); err != nil {
			t.Fatal(err)
		}
		if form != formParts {
			kinds, depths = append(kinds, 0), append(depths, 0)
			continue
		}
		s, err := parseSkeleton(b)
		if err != nil {
			t.Fatalf("turn %d: %v", id, err)
		}
		if s.base != 0 {
			depth[id] = depth[s.base] + 1
		}
		kinds, depths = append(kinds, b[0]), append(depths, depth[id])
	}
	return kinds, depths
}

// checkRequests fails unless every turn's request has the SHA-256 the
// fixture recorded for it.
func checkRequests(t *testing.T, how string, got []Turn, want map[int64]string) {
	t.Helper()
	for _, g := range got {
		sum := sha256.Sum256(g.Request)
		if hex.EncodeToString(sum[:]) != want[g.ID] {
			t.Errorf("%s: turn %d (%s/%d) read back differs from the request recorded", how, g.ID, g.SessionID, g.TurnNum)
		}
	}
}

// encodeDelta is a delta skeleton: the first count chunks of turn base,
// then hashes. Only tests write them now, to damage the fixture's.
func encodeDelta(base int64, count int, hashes [][sha256.Size]byte) []byte {
	b := binary.AppendUvarint(binary.AppendUvarint([]byte{skelDelta}, uint64(base)), uint64(count))
	for _, h := range hashes {
		b = append(b, h[:]...)
	}
	return b
}

// TestReadDeltaFixture: a database written with delta skeletons reads
// back byte for byte, turn by turn (each base read from the database),
// in lists that hold a turn but not its bases, by session and the last
// turns of a session; and a turn recorded in it now reads back too.
func TestReadDeltaFixture(t *testing.T) {
	t.Parallel()
	db, want := openDeltaFixture(t)
	ctx := context.Background()
	kinds, depths := skeletonKinds(t, db)
	if deltas := bytes.Count(kinds, []byte{skelDelta}); deltas < 18 || depths[16] != 8 {
		t.Fatalf("the fixture holds %d delta skeletons (%v), turn 17 follows %d references", deltas, kinds, depths[16])
	}
	for id := range want {
		g, err := db.TurnByID(ctx, id)
		if err != nil {
			t.Fatalf("TurnByID(%d): %v", id, err)
		}
		checkRequests(t, "TurnByID", []Turn{g}, want)
	}
	some, err := db.TurnsByID(ctx, []int64{27, 17, 8, 22, 18})
	if err != nil || len(some) != 5 {
		t.Fatalf("TurnsByID = %d turns, %v", len(some), err)
	}
	checkRequests(t, "TurnsByID", some, want)
	for session, n := range map[string]int{"loop": 12, "mixed": 10, "batch": 5} {
		all, err := db.SessionTurns(ctx, session)
		if err != nil || len(all) != n {
			t.Fatalf("SessionTurns(%s) = %d turns, %v", session, len(all), err)
		}
		checkRequests(t, "SessionTurns", all, want)
	}
	recent, err := db.RecentSessionTurns(ctx, "loop", "", 2)
	if err != nil || len(recent) != 2 {
		t.Fatalf("RecentSessionTurns = %d turns, %v", len(recent), err)
	}
	checkRequests(t, "RecentSessionTurns", recent, want)

	last, err := db.TurnByID(ctx, 22)
	if err != nil {
		t.Fatal(err)
	}
	next := &Turn{SessionID: "loop", TurnNum: 13, Request: append(bytes.Clone(last.Request[:len(last.Request)-2]), `,{"role":"user","content":"go on"}]}`...)}
	if err := db.RecordTurns(ctx, []*Turn{next}); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(next.Request)
	want[next.ID] = hex.EncodeToString(sum[:])
	all, err := db.SessionTurns(ctx, "loop")
	if err != nil || len(all) != 13 {
		t.Fatalf("SessionTurns after a new turn = %d turns, %v", len(all), err)
	}
	checkRequests(t, "SessionTurns after a new turn", all, want)
}

// TestBrokenDeltaChains: a delta whose base is missing, stored whole,
// later than it, itself, shorter than it claims, or damaged is reported,
// not read as a wrong request.
func TestBrokenDeltaChains(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// Turn 22 (loop 12) takes its first chunks from turn 21 (loop 11).
	for _, tc := range []struct {
		name   string
		damage string // SQL run on the fixture; ? is the delta skeleton of base and count
		base   int64
		count  int
		want   error
	}{
		{"base missing", `DELETE FROM turns WHERE id = 21`, 0, 0, ErrNotFound},
		{"base stored whole", `UPDATE turns SET request = ? WHERE id = 22`, 18, 2, ErrNotFound},
		{"later base", `UPDATE turns SET request = ? WHERE id = 22`, 23, 2, errSkeleton},
		{"own id", `UPDATE turns SET request = ? WHERE id = 22`, 22, 2, errSkeleton},
		{"too many", `UPDATE turns SET request = ? WHERE id = 22`, 21, 100000, errSkeleton},
		{"damaged base", `UPDATE turns SET request = X'0200' WHERE id = 21`, 0, 0, errSkeleton},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db, _ := openDeltaFixture(t)
			var skel []byte
			if err := db.sql.QueryRow(`SELECT request FROM turns WHERE id = 22`).Scan(&skel); err != nil {
				t.Fatal(err)
			}
			s, err := parseSkeleton(skel)
			if err != nil || s.base != 21 {
				t.Fatalf("turn 22's skeleton: base %d, %v", s.base, err)
			}
			var args []any
			if tc.base != 0 {
				args = append(args, encodeDelta(tc.base, tc.count, s.hashes))
			}
			if _, err := db.sql.Exec(tc.damage, args...); err != nil {
				t.Fatal(err)
			}
			if got, err := db.TurnByID(ctx, 22); !errors.Is(err, tc.want) {
				t.Errorf("TurnByID = %d bytes, %v; want %v", len(got.Request), err, tc.want)
			}
			if _, err := db.SessionTurns(ctx, "loop"); !errors.Is(err, tc.want) {
				t.Errorf("SessionTurns: %v; want %v", err, tc.want)
			}
		})
	}
}

// TestParseRejectsBrokenSkeletons shows a damaged skeleton, full or
// delta, is an error, not a panic.
func TestParseRejectsBrokenSkeletons(t *testing.T) {
	t.Parallel()
	db, _ := openDeltaFixture(t)
	var full, delta []byte
	if err := db.sql.QueryRow(`SELECT request FROM turns WHERE id = 1`).Scan(&full); err != nil {
		t.Fatal(err)
	}
	if err := db.sql.QueryRow(`SELECT request FROM turns WHERE id = 9`).Scan(&delta); err != nil {
		t.Fatal(err)
	}
	if s, err := parseSkeleton(full); err != nil || s.base != 0 || len(s.hashes) != (len(full)-1)/sha256.Size {
		t.Fatalf("full skeleton read back as %d, %d hashes, %v", s.base, len(s.hashes), err)
	}
	s, err := parseSkeleton(delta)
	if err != nil || s.base != 7 || s.count == 0 || len(s.hashes) == 0 {
		t.Fatalf("delta skeleton read back as %d, %d, %d hashes, %v", s.base, s.count, len(s.hashes), err)
	}
	if again := encodeDelta(s.base, s.count, s.hashes); !bytes.Equal(again, delta) {
		t.Fatalf("encodeDelta does not write the fixture's skeleton")
	}
	for name, b := range map[string][]byte{
		"empty": nil, "version": append([]byte{9}, full[1:]...), "truncated": full[:len(full)-1],
		"delta truncated": delta[:len(delta)-1], "delta without base": {skelDelta}, "delta base 0": encodeDelta(0, 3, s.hashes),
		"delta count 0": encodeDelta(7, 0, s.hashes), "delta count huge": encodeDelta(7, maxSkeletonChunks+1, s.hashes),
		"delta bad varint": {skelDelta, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
	} {
		if got, err := parseSkeleton(b); err == nil {
			t.Errorf("%s: parsed as %d, %d, %d hashes", name, got.base, got.count, len(got.hashes))
		}
	}
}
