package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// agentSession returns the requests of an n-turn agent session as a
// coding agent sends them: every turn repeats a 16 KB system prompt, 12
// tools and the whole history, then adds a tool call and a 1.5 KB tool
// result. The system prompt ends with text injected for that turn, as the
// proxy sends it upstream.
func agentSession(n int, anthropic bool) [][]byte { return agentSessionSeed(n, anthropic, 1) }

// agentSessionSeed is agentSession with the history's text drawn from
// seed: sessions of the same agent share the system prompt and the tools,
// not the conversation.
func agentSessionSeed(n int, anthropic bool, seed uint64) [][]byte {
	type obj = map[string]any
	words := strings.Fields("the agent reads edits files runs tests in repository store proxy func error context " +
		"turns session database locked busy timeout writer reader chunk request response model tool call result")
	rng := rand.New(rand.NewPCG(7, 7))
	text := func(size int) string {
		var b strings.Builder
		for b.Len() < size {
			b.WriteString(words[rng.IntN(len(words))])
			if rng.IntN(12) == 0 {
				b.WriteString(".\n")
			} else {
				b.WriteByte(' ')
			}
		}
		return b.String()
	}
	system := text(16 << 10)
	rng = rand.New(rand.NewPCG(seed, uint64(n)))
	var tools []any
	for i := range 12 {
		tools = append(tools, obj{"type": "function", "function": obj{"name": fmt.Sprintf("tool_%d", i),
			"description": "Reads, searches or edits files in the user's repository; returns the result as text.",
			"parameters":  obj{"type": "object", "properties": obj{"path": obj{"type": "string"}}}}})
	}
	var history []any
	var out [][]byte
	for turn := range n {
		id := fmt.Sprintf("call_%02d", turn)
		history = append(history, obj{"role": "user", "content": fmt.Sprintf("Step %d: find out why CI fails.", turn)},
			obj{"role": "assistant", "content": "Let me look.", "tool_calls": []any{
				obj{"id": id, "type": "function", "function": obj{"name": "tool_1", "arguments": `{"path":"store/store.go"}`}}}},
			obj{"role": "tool", "tool_call_id": id, "content": text(1500)})
		injected := fmt.Sprintf("\n\n## Skills\n\n1. Skill chosen for turn %d.\n", turn)
		var body obj
		if anthropic {
			body = obj{"model": "claude", "max_tokens": 4096, "stream": true, "tools": tools, "messages": history,
				"system": []any{obj{"type": "text", "text": system}, obj{"type": "text", "text": injected}}}
		} else {
			msgs := append([]any{obj{"role": "system", "content": system + injected}}, history...)
			body = obj{"model": "m", "stream": true, "messages": msgs, "tools": tools}
		}
		b, err := json.Marshal(body)
		if err != nil {
			panic(err)
		}
		out = append(out, b)
	}
	return out
}

// FuzzSplitJoin holds splitRequest to its promise: when it splits, the
// chunks are the request cut in order, each within the size bounds, and
// the skeleton gives the request back byte for byte.
func FuzzSplitJoin(f *testing.F) {
	for _, s := range []string{
		"", "{}", strings.Repeat("x", partsFrom-1), strings.Repeat("x", partsFrom), strings.Repeat("\x00", 3*chunkMax),
		`{"messages":[{"role":"user","content":"` + strings.Repeat("hi ", 300) + `"}], "model" : "m" }`,
	} {
		f.Add([]byte(s))
	}
	for _, b := range agentSession(2, false)[1:] {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, req []byte) {
		skel, parts, ok := splitRequest(req)
		if ok != (len(req) >= partsFrom) {
			t.Fatalf("split = %v for %d bytes", ok, len(req))
		}
		if !ok {
			return
		}
		byHash := map[[sha256.Size]byte][]byte{}
		var at int
		for i, c := range parts {
			p := c.body
			if len(p) > chunkMax || (len(p) < chunkMin && i < len(parts)-1) {
				t.Fatalf("chunk %d of %d has %d bytes", i, len(parts), len(p))
			}
			if !bytes.Equal(p, req[at:at+len(p)]) || c.hash != sha256.Sum256(p) {
				t.Fatalf("chunk %d is not the request's bytes at %d, or not their hash", i, at)
			}
			at += len(p)
			byHash[c.hash] = bytes.Clone(p)
		}
		sk, err := parseSkeleton(skel)
		if err != nil || sk.base != 0 {
			t.Fatalf("skeleton: %+v, %v", sk, err)
		}
		got, err := joinRequest(sk.hashes, func(h [sha256.Size]byte) ([]byte, error) {
			b, ok := byHash[h]
			if !ok {
				return nil, errors.New("unknown part")
			}
			return b, nil
		})
		if err != nil || !bytes.Equal(got, req) {
			t.Fatalf("join = %q, %v; want %q", got, err, req)
		}
	})
}

// TestCutsResynchronise shows what makes chunks shareable: a change in a
// request moves only the cuts near it, and text appended at the end leaves
// every earlier chunk but the last as it was.
func TestCutsResynchronise(t *testing.T) {
	reqs := agentSession(12, false)
	chunks := func(b []byte) map[[sha256.Size]byte]bool {
		_, parts, _ := splitRequest(b)
		m := map[[sha256.Size]byte]bool{}
		for _, p := range parts {
			m[p.hash] = true
		}
		return m
	}
	prev, last := chunks(reqs[10]), reqs[11]
	_, parts, _ := splitRequest(last)
	var fresh int
	for _, p := range parts {
		if !prev[p.hash] {
			fresh += len(p.body)
		}
	}
	// Turn 12 differs from turn 11 by its injected line and three new
	// messages (about 1.8 KB); with the cuts around them that must stay a
	// small part of its 30 KB.
	t.Logf("turn 12: %d bytes, %d in %d chunks; %d bytes in chunks turn 11 did not have", len(last), len(last), len(parts), fresh)
	if fresh > 12<<10 {
		t.Errorf("%d of %d bytes are new chunks", fresh, len(last))
	}
}

// TestRequestPartsShareHistory records two agent sessions and shows that
// every way of reading turns gives back the requests byte for byte, and
// that the history, system prompt and tools are stored once: the bytes
// stored grow with the session, not with its square.
func TestRequestPartsShareHistory(t *testing.T) {
	t.Parallel()
	for _, anthropic := range []bool{false, true} {
		t.Run(fmt.Sprintf("anthropic=%v", anthropic), func(t *testing.T) {
			t.Parallel()
			db := openTest(t)
			ctx := context.Background()
			const n = 40
			reqs := agentSession(n, anthropic)
			var raw int
			for i, r := range reqs {
				raw += len(r)
				// Some turns alone, some in batches, as the recorder does.
				turn := &Turn{SessionID: "s", Request: r, CreatedAt: time.UnixMilli(int64(1_700_000_000_000 + i))}
				if err := db.RecordTurns(ctx, []*Turn{turn}); err != nil {
					t.Fatal(err)
				}
			}
			all, err := db.SessionTurns(ctx, "s")
			if err != nil || len(all) != n {
				t.Fatalf("SessionTurns = %d turns, %v", len(all), err)
			}
			for i, tr := range all {
				if !bytes.Equal(tr.Request, reqs[i]) {
					t.Fatalf("turn %d read back differs from what was recorded", i+1)
				}
				one, err := db.TurnByID(ctx, tr.ID)
				if err != nil || !bytes.Equal(one.Request, reqs[i]) {
					t.Fatalf("TurnByID(%d) = %v; request differs", tr.ID, err)
				}
			}
			recent, err := db.RecentSessionTurns(ctx, "s", "", 3)
			if err != nil || len(recent) != 3 || !bytes.Equal(recent[2].Request, reqs[n-1]) {
				t.Fatalf("RecentSessionTurns = %d, %v", len(recent), err)
			}
			byID, err := db.TurnsByID(ctx, []int64{all[0].ID, all[n-1].ID})
			if err != nil || len(byID) != 2 || !bytes.Equal(byID[0].Request, reqs[0]) || !bytes.Equal(byID[1].Request, reqs[n-1]) {
				t.Fatalf("TurnsByID = %d, %v", len(byID), err)
			}

			var skeletons, parts, forms int
			if err := db.sql.QueryRow(`SELECT sum(length(request)), sum(request_form) FROM turns`).Scan(&skeletons, &forms); err != nil {
				t.Fatal(err)
			}
			if err := db.sql.QueryRow(`SELECT sum(length(body)) FROM request_parts`).Scan(&parts); err != nil {
				t.Fatal(err)
			}
			last := len(reqs[n-1])
			t.Logf("%d turns: %d bytes sent, %d stored (%d in skeletons, %d in parts); the last request is %d bytes",
				n, raw, skeletons+parts, skeletons, parts, last)
			if forms != n {
				t.Errorf("%d of %d turns stored as skeletons", forms, n)
			}
			// Every turn lists all of its chunks: none refers to another's list.
			var full int
			if err := db.sql.QueryRow(`SELECT count(*) FROM turns WHERE substr(request, 1, 1) = ?`, []byte{skelVersion}).Scan(&full); err != nil || full != n {
				t.Errorf("%d of %d skeletons are full lists, %v", full, n, err)
			}
			// Each turn adds about 1.8 KB of messages and changes the
			// injected line; with the chunks cut around those changes and
			// the list of hashes, a turn costs about 12 KB here instead of
			// its whole request (56 KB on average).
			if per := (skeletons + parts) / n; per > 16<<10 || raw < 40*last/2 {
				t.Errorf("stored %d bytes a turn (%d sent in all)", per, raw)
			}
		})
	}
}

// TestRequestPartsAfterFailedBatch shows a batch that fails leaves no part
// counted as stored: the next turn with the same request stores it.
func TestRequestPartsAfterFailedBatch(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	req := agentSession(3, false)[2]
	bad := []*Turn{{SessionID: "s", Request: req}, {SessionID: "s", Type: "weird"}}
	if err := db.RecordTurns(ctx, bad); err == nil {
		t.Fatal("a turn of type 'weird' was accepted")
	}
	var n int
	if err := db.sql.QueryRow(`SELECT count(*) FROM request_parts`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the failed batch left %d parts, %v", n, err)
	}
	ok := &Turn{SessionID: "s", Request: req}
	if err := db.RecordTurns(ctx, []*Turn{ok}); err != nil {
		t.Fatal(err)
	}
	got, err := db.TurnByID(ctx, ok.ID)
	if err != nil || !bytes.Equal(got.Request, req) {
		t.Fatalf("TurnByID = %v; request differs: %v", err, got.Request == nil)
	}
}

// TestRequestFormsAndMissingParts shows requests that are not worth
// splitting are stored as they are, and that a skeleton whose part is gone
// is reported, not read as a wrong request.
func TestRequestFormsAndMissingParts(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	big := agentSession(1, true)[0]
	turns := []*Turn{
		{SessionID: "s", Request: []byte(`{"model":"m","messages":[]}`)},
		{SessionID: "s", Request: []byte(strings.Repeat("not json ", 100))},
		{SessionID: "s", Request: nil},
		{SessionID: "s", Request: big},
	}
	if err := db.RecordTurns(ctx, turns); err != nil {
		t.Fatal(err)
	}
	rows, err := db.sql.Query(`SELECT request_form FROM turns ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var forms []int
	for rows.Next() {
		var f int
		if err := rows.Scan(&f); err != nil {
			t.Fatal(err)
		}
		forms = append(forms, f)
	}
	rows.Close()
	if fmt.Sprint(forms) != "[0 1 0 1]" {
		t.Errorf("forms = %v, want [0 1 0 1]", forms)
	}
	got, err := db.SessionTurns(ctx, "s")
	if err != nil || len(got) != 4 {
		t.Fatalf("SessionTurns = %d, %v", len(got), err)
	}
	for i, tr := range got {
		if !bytes.Equal(tr.Request, turns[i].Request) {
			t.Errorf("turn %d: request %q, want %q", i+1, tr.Request, turns[i].Request)
		}
	}
	if _, err := db.sql.Exec(`DELETE FROM request_parts WHERE rowid = (SELECT max(rowid) FROM request_parts)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.TurnByID(ctx, turns[3].ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("TurnByID with a part missing: %v, want ErrNotFound", err)
	}
	if _, err := db.TurnByID(ctx, turns[0].ID); err != nil {
		t.Errorf("TurnByID of a whole request: %v", err)
	}
}

// TestSessionTurnsBrief shows the brief list has every turn and column
// but the request.
func TestSessionTurnsBrief(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx := context.Background()
	for _, r := range agentSession(3, false) {
		if err := db.RecordTurns(ctx, []*Turn{{SessionID: "s", Request: r, Model: "m", Status: 200}}); err != nil {
			t.Fatal(err)
		}
	}
	full, err := db.SessionTurns(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	brief, err := db.SessionTurnsBrief(ctx, "s")
	if err != nil || len(brief) != len(full) {
		t.Fatalf("SessionTurnsBrief = %d turns, %v", len(brief), err)
	}
	for i := range full {
		want := full[i]
		want.Request = nil
		if brief[i].Request != nil || fmt.Sprintf("%+v", brief[i]) != fmt.Sprintf("%+v", want) {
			t.Errorf("turn %d:\n got %+v\nwant %+v", i+1, brief[i], want)
		}
	}
}

// TestRandomSessionsReadBack records sessions whose requests change at
// random (grown at the end, edited in the middle, cut short, sent again,
// replaced by another conversation), in batches of random size, some
// failing, and reads every turn back byte for byte, alone and by session.
func TestRandomSessionsReadBack(t *testing.T) {
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
}

// TestConcurrentRecordingOfOneSession: recordings of one session at the
// same time, sharing most of their parts, store every request byte for
// byte.
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
