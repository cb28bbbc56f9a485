package store

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

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

// recordOneByOne records reqs as turns 1, 2, ... of session, each in its
// own batch, and returns their ids.
func recordOneByOne(t *testing.T, db *DB, session string, reqs [][]byte) []int64 {
	t.Helper()
	var ids []int64
	for i, r := range reqs {
		tr := &Turn{SessionID: session, TurnNum: i + 1, Request: r}
		if err := db.RecordTurns(context.Background(), []*Turn{tr}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tr.ID)
	}
	return ids
}

// TestDeltaSkeletons: a session's turns refer to the one before, with a
// full skeleton at least every maxDeltaDepth+1 turns; every turn reads
// back byte for byte alone (its bases read from the database), in a
// session, and in a list; and through a tool loop (the injected text the
// same on every turn) the skeletons cost a fraction of full ones.
func TestDeltaSkeletons(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	reqs := agentSession(3*(maxDeltaDepth+1)+2, false)
	for i, r := range reqs {
		reqs[i] = skillOfTurn.ReplaceAll(r, []byte("Skill chosen for this request"))
	}
	ids := recordOneByOne(t, db, "s", reqs)
	kinds, depths := skeletonKinds(t, db)
	deltas := 0
	for i := range kinds {
		if depths[i] > maxDeltaDepth {
			t.Fatalf("turn %d follows %d references", i+1, depths[i])
		}
		if kinds[i] == skelDelta {
			deltas++
		}
	}
	if deltas < len(reqs)*maxDeltaDepth/(maxDeltaDepth+1)-1 {
		t.Errorf("%d of %d skeletons are deltas (%v)", deltas, len(reqs), kinds)
	}
	for i, id := range ids { // alone: every base comes from the database
		got, err := db.TurnByID(ctx, id)
		if err != nil || !bytes.Equal(got.Request, reqs[i]) {
			t.Fatalf("turn %d alone: %v (request differs: %v)", i+1, err, !bytes.Equal(got.Request, reqs[i]))
		}
	}
	some, err := db.TurnsByID(ctx, []int64{ids[len(ids)-1], ids[maxDeltaDepth+3], ids[1]})
	if err != nil || len(some) != 3 {
		t.Fatalf("TurnsByID: %d, %v", len(some), err)
	}
	for _, g := range some {
		if !bytes.Equal(g.Request, reqs[g.TurnNum-1]) {
			t.Fatalf("turn %d in a list differs", g.TurnNum)
		}
	}
	all, err := db.SessionTurns(ctx, "s")
	if err != nil || len(all) != len(reqs) {
		t.Fatalf("SessionTurns: %d, %v", len(all), err)
	}
	for _, g := range all {
		if !bytes.Equal(g.Request, reqs[g.TurnNum-1]) {
			t.Fatalf("turn %d in the session differs", g.TurnNum)
		}
	}
	var skelBytes, chunks int64
	if err := db.sql.QueryRow(`SELECT sum(length(request)) FROM turns`).Scan(&skelBytes); err != nil {
		t.Fatal(err)
	}
	for _, r := range reqs {
		_, parts, _ := splitRequest(r)
		chunks += int64(len(parts))
	}
	if full := chunks * 32; skelBytes*4 > full {
		t.Errorf("skeletons take %d bytes, full ones would take %d", skelBytes, full)
	}
}

// TestDeltaAfterFailedBatch: a turn in a batch that rolled back is never
// a base, and turns of one batch may refer to each other.
func TestDeltaAfterFailedBatch(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	reqs := agentSession(5, false)
	if err := db.RecordTurns(ctx, []*Turn{{SessionID: "s", TurnNum: 1, Request: reqs[0]}}); err != nil {
		t.Fatal(err)
	}
	bad := []*Turn{{SessionID: "s", TurnNum: 2, Request: reqs[1]}, {SessionID: "s", TurnNum: 3, Type: "weird"}}
	if err := db.RecordTurns(ctx, bad); err == nil {
		t.Fatal("a turn of type 'weird' was accepted")
	}
	batch := []*Turn{{SessionID: "s", TurnNum: 2, Request: reqs[1]}, {SessionID: "s", TurnNum: 3, Request: reqs[2]},
		{SessionID: "s", TurnNum: 4, Request: reqs[3]}}
	if err := db.RecordTurns(ctx, batch); err != nil {
		t.Fatal(err)
	}
	if kinds, _ := skeletonKinds(t, db); !bytes.Equal(kinds, []byte{skelVersion, skelVersion, skelDelta, skelDelta}) {
		t.Errorf("skeleton kinds %v: after the failed batch a full one, then deltas within the batch", kinds)
	}
	all, err := db.SessionTurns(ctx, "s")
	if err != nil || len(all) != 4 {
		t.Fatalf("SessionTurns: %d, %v", len(all), err)
	}
	for _, g := range all {
		if !bytes.Equal(g.Request, reqs[g.TurnNum-1]) {
			t.Fatalf("turn %d differs", g.TurnNum)
		}
	}
}

// TestDeltaRandomSessions records sessions whose requests change at random
// (grown at the end, edited in the middle, cut short, sent again, replaced
// by another conversation), in batches of random size, some failing, and
// reads every turn back byte for byte, alone and by session.
func TestDeltaRandomSessions(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	want := map[int64][]byte{}
	for seed := range uint64(3) {
		rng := rand.New(rand.NewPCG(seed, 99))
		pool := agentSessionSeed(6, seed == 1, seed)
		cur := bytes.Clone(pool[0])
		session := fmt.Sprint("r", seed)
		num := 0
		for range 12 {
			var batch []*Turn
			for range 1 + rng.IntN(4) {
				switch rng.IntN(5) {
				case 0: // grown at the end
					cur = append(cur, bytes.Repeat([]byte("more history "), 50+rng.IntN(400))...)
				case 1: // edited in the middle
					at := rng.IntN(len(cur))
					cur = slices.Concat(cur[:at], []byte("edited"), cur[at:])
				case 2: // cut short
					cur = bytes.Clone(cur[:len(cur)/2+rng.IntN(len(cur)/2+1)])
				case 3: // sent again
				default: // another conversation
					cur = bytes.Clone(pool[rng.IntN(len(pool))])
				}
				num++
				batch = append(batch, &Turn{SessionID: session, TurnNum: num, Request: bytes.Clone(cur)})
			}
			if rng.IntN(5) == 0 { // a batch that fails and rolls back
				num++
				failing := append(slices.Clone(batch), &Turn{SessionID: session, TurnNum: num, Type: "weird"})
				if err := db.RecordTurns(ctx, failing); err == nil {
					t.Fatal("a turn of type 'weird' was accepted")
				}
				for _, tr := range batch {
					tr.ID = 0
				}
			}
			if err := db.RecordTurns(ctx, batch); err != nil {
				t.Fatal(err)
			}
			for _, tr := range batch {
				want[tr.ID] = tr.Request
			}
		}
		got, err := db.SessionTurns(ctx, session)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range got {
			if !bytes.Equal(g.Request, want[g.ID]) {
				t.Fatalf("session %s turn %d differs", session, g.TurnNum)
			}
		}
	}
	for id, req := range want {
		g, err := db.TurnByID(ctx, id)
		if err != nil || !bytes.Equal(g.Request, req) {
			t.Fatalf("turn %d alone: %v", id, err)
		}
	}
	if kinds, _ := skeletonKinds(t, db); !bytes.Contains(kinds, []byte{skelDelta}) {
		t.Errorf("no delta skeleton written: %v", kinds)
	}
}
