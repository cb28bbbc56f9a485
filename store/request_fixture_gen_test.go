package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fixtureRequests returns n requests of an agent session, smaller than
// agentSession's (a 7 KB system prompt, 500-byte tool results) so that the
// fixture stays small; injected(turn) is the text injected on each turn.
func fixtureRequests(n int, seed uint64, injected func(turn int) string) [][]byte {
	type obj = map[string]any
	words := strings.Fields("the agent reads edits files runs tests in repository store proxy func error context " +
		"turns session database locked busy timeout writer reader chunk request response model tool call result")
	rng := rand.New(rand.NewPCG(seed, 11))
	text := func(size int) string {
		var b strings.Builder
		for b.Len() < size {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		return b.String()
	}
	system := text(7 << 10)
	var history []any
	var out [][]byte
	for turn := range n {
		id := fmt.Sprintf("call_%02d", turn)
		history = append(history, obj{"role": "user", "content": fmt.Sprintf("Step %d.", turn)},
			obj{"role": "assistant", "content": "", "tool_calls": []any{
				obj{"id": id, "type": "function", "function": obj{"name": "read", "arguments": `{"path":"a.go"}`}}}},
			obj{"role": "tool", "tool_call_id": id, "content": text(500)})
		msgs := append([]any{obj{"role": "system", "content": system + injected(turn)}}, history...)
		b, err := json.Marshal(obj{"model": "m", "stream": true, "messages": msgs})
		if err != nil {
			panic(err)
		}
		out = append(out, b)
	}
	return out
}

// TestWriteDeltaFixture writes testdata/delta_v6.db with the writer of
// delta skeletons as it stood at schema version 6, when
// METACLAW_WRITE_DELTA_FIXTURE=1; each turn's response_text is the
// SHA-256 of its request, so that a reader can check it byte for byte.
func TestWriteDeltaFixture(t *testing.T) {
	if os.Getenv("METACLAW_WRITE_DELTA_FIXTURE") != "1" {
		t.Skip("set METACLAW_WRITE_DELTA_FIXTURE=1 to write testdata/delta_v6.db")
	}
	path := filepath.Join("testdata", "delta_v6.db")
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		os.Remove(p)
	}
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	at := time.UnixMilli(1_750_000_000_000)
	turn := func(session string, num int, req []byte) *Turn {
		at = at.Add(time.Second)
		sum := sha256.Sum256(req)
		return &Turn{SessionID: session, TurnNum: num, Request: req, Model: "m", API: "openai", Status: 200,
			ResponseText: hex.EncodeToString(sum[:]), CreatedAt: at}
	}
	record := func(ts ...*Turn) {
		if err := db.RecordTurns(ctx, ts); err != nil {
			t.Fatal(err)
		}
	}
	same := func(int) string { return "\n\n## Skills\n\n1. Read before you edit.\n" }
	changes := func(turn int) string { return fmt.Sprintf("\n\n## Skills\n\n%d. Skill of step %d.\n", turn/4, turn/4) }
	// A tool loop turn by turn (a full skeleton, eight deltas, a full one,
	// two deltas), interleaved with a session whose injected text changes
	// every fourth turn and that holds a request stored whole and an empty one.
	loop, mixed := fixtureRequests(12, 1, same), fixtureRequests(8, 2, changes)
	for i := range 12 {
		record(turn("loop", i+1, loop[i]))
		switch {
		case i < len(mixed):
			record(turn("mixed", i+1, mixed[i]))
		case i == len(mixed):
			record(turn("mixed", i+1, []byte(`{"model":"m","messages":[]}`)))
		case i == len(mixed)+1:
			record(turn("mixed", i+1, nil))
		}
	}
	// A session recorded in one batch: its turns refer to each other.
	var batch []*Turn
	for i, r := range fixtureRequests(5, 3, same) {
		batch = append(batch, turn("batch", i+1, r))
	}
	record(batch...)
	if _, err := db.sql.Exec("VACUUM"); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}
