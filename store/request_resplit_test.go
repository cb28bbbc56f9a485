package store

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// FuzzSplitAfterAgrees: cutting a request after another (taking the
// chunks of their common prefix from the first) gives exactly the
// skeleton and chunks that cutting it alone gives, whatever the two
// requests share: all, a prefix, nothing; the second longer, shorter or
// edited in the middle.
func FuzzSplitAfterAgrees(f *testing.F) {
	for _, b := range agentSession(3, false) {
		f.Add(b, uint8(1), uint32(len(b)/2), []byte(`,{"role":"tool","content":"ok"}`))
	}
	f.Add([]byte(strings.Repeat("a", 3*chunkMax)), uint8(0), uint32(0), []byte(nil))
	f.Add([]byte(strings.Repeat("ab", 700)), uint8(2), uint32(900), []byte(nil))
	f.Add([]byte(strings.Repeat("xyz ", 900)), uint8(3), uint32(17), []byte("changed"))
	f.Fuzz(func(t *testing.T, base []byte, op uint8, pos uint32, ins []byte) {
		at := 0
		if len(base) > 0 {
			at = int(pos % uint32(len(base)+1))
		}
		var next []byte
		switch op % 5 {
		case 0: // the same request again
			next = bytes.Clone(base)
		case 1: // more at the end
			next = append(bytes.Clone(base), ins...)
		case 2: // cut short
			next = bytes.Clone(base[:at])
		case 3: // replaced from at on
			next = append(bytes.Clone(base[:at]), ins...)
		default: // inserted at at
			next = slices.Concat(base[:at], ins, base[at:])
		}
		var memo *splitMemo
		if _, parts, ok := splitRequest(base); ok {
			memo = memo.remember(base, parts, 0)
		}
		wantSkel, wantParts, wantOK := splitRequest(next)
		gotSkel, gotParts, gotOK := splitRequestAfter(next, memo)
		if gotOK != wantOK || !bytes.Equal(gotSkel, wantSkel) || len(gotParts) != len(wantParts) {
			t.Fatalf("after: ok %v, %d parts; alone: ok %v, %d parts", gotOK, len(gotParts), wantOK, len(wantParts))
		}
		for i := range wantParts {
			if gotParts[i].hash != wantParts[i].hash || !bytes.Equal(gotParts[i].body, wantParts[i].body) {
				t.Fatalf("part %d differs", i)
			}
		}
	})
}

// TestSplitMemosBounded: the remembered requests stay within two
// generations of maxMemoSessions sessions and maxMemoBytes, the oldest are
// forgotten first, a taken memo is gone until put back, and a request too
// large to remember is not kept.
func TestSplitMemosBounded(t *testing.T) {
	var ms splitMemos
	memo := func(n int) *splitMemo { return &splitMemo{req: make([]byte, n)} }
	for i := range 3 * maxMemoSessions {
		ms.put(fmt.Sprint("s", i), memo(1<<10))
		if n := len(ms.cur) + len(ms.prev); n > 2*maxMemoSessions {
			t.Fatalf("%d sessions remembered", n)
		}
	}
	if ms.take("s0") != nil {
		t.Error("the oldest session is still remembered")
	}
	old := fmt.Sprint("s", 2*maxMemoSessions-1) // in the previous generation
	m := ms.take(old)
	if m == nil || ms.take(old) != nil {
		t.Fatal("a memo of the previous generation was not taken, or taken twice")
	}
	ms.put(old, m)
	if ms.cur[old] != m {
		t.Error("a memo put back is not in the current generation")
	}
	for i := range 40 {
		ms.put(fmt.Sprint("big", i), memo(maxMemoBytes/8))
		if ms.curBytes > maxMemoBytes {
			t.Fatalf("%d bytes in the current generation", ms.curBytes)
		}
	}
	ms.put("huge", memo(maxMemoBytes/8+1))
	if ms.take("huge") != nil {
		t.Error("a request too large was remembered")
	}
}

// TestRecordSessionReusesCuts: recording a session's turns one after
// another, each request is read back byte for byte, whether its memo was
// used (the same session), missing (a new session) or stale (the session's
// requests changed from the start).
func TestRecordSessionReusesCuts(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	reqs := agentSession(6, false)
	other := agentSessionSeed(3, true, 9)
	var turns []*Turn
	for i, r := range reqs {
		turns = append(turns, &Turn{SessionID: "a", TurnNum: i + 1, Request: r})
		if i < len(other) {
			turns = append(turns, &Turn{SessionID: "a", TurnNum: 100 + i, Request: other[i]}) // a different conversation under the same id
		}
	}
	for _, tr := range turns {
		if err := db.RecordTurns(ctx, []*Turn{tr}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.SessionTurns(ctx, "a")
	if err != nil || len(got) != len(turns) {
		t.Fatalf("read back %d turns, %v", len(got), err)
	}
	want := map[int][]byte{}
	for _, tr := range turns {
		want[tr.TurnNum] = tr.Request
	}
	for _, g := range got {
		if !bytes.Equal(g.Request, want[g.TurnNum]) {
			t.Fatalf("turn %d read back differs", g.TurnNum)
		}
	}
	if m := db.memos.take("a"); m == nil {
		t.Error("the session's last request is not remembered")
	} else {
		db.memos.put("a", m)
	}
	if _, err := db.EndSession(ctx, "a", "done", time.Now()); err != nil {
		t.Fatal(err)
	}
	if db.memos.take("a") != nil {
		t.Error("an ended session's request is still remembered")
	}
}

// TestConcurrentRecordingOfOneSession: recordings of one session at the
// same time (each takes the memo or finds none) store every request byte
// for byte.
func TestConcurrentRecordingOfOneSession(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	want := map[int][]byte{}
	var mu sync.Mutex
	for w := range 4 {
		reqs := agentSessionSeed(8, w%2 == 1, uint64(w))
		wg.Go(func() {
			for i, r := range reqs {
				num := w*100 + i + 1 // 0 would ask the store to number it
				mu.Lock()
				want[num] = r
				mu.Unlock()
				if err := db.RecordTurns(ctx, []*Turn{{SessionID: "shared", TurnNum: num, Request: r}}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	got, err := db.SessionTurns(ctx, "shared")
	if err != nil || len(got) != len(want) {
		t.Fatalf("read back %d of %d turns, %v", len(got), len(want), err)
	}
	for _, g := range got {
		if !bytes.Equal(g.Request, want[g.TurnNum]) {
			t.Fatalf("turn %d read back differs", g.TurnNum)
		}
	}
}
