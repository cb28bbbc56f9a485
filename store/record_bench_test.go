package store

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// BenchmarkRecordTurns records turns the size of the proxy benchmark's
// (a 3.3 KB request, a 400-byte answer) in batches like the proxy's
// recorder makes under load; ns/op is per turn.
func BenchmarkRecordTurns(b *testing.B) {
	for _, batch := range []int{1, 32} {
		b.Run(fmt.Sprintf("batch%d", batch), func(b *testing.B) {
			db, err := Open(filepath.Join(b.TempDir(), "metaclaw.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			req := []byte(`{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat("hello world ", 275) + `"}]}`)
			answer := strings.Repeat("Running the tests now. ", 17)
			ctx := context.Background()
			b.SetBytes(int64(len(req) + len(answer)))
			b.ResetTimer()
			for i := 0; i < b.N; i += batch {
				n := min(batch, b.N-i)
				turns := make([]*Turn, n)
				for j := range turns {
					turns[j] = &Turn{SessionID: "s1", Client: "c", API: "openai", Model: "m", Request: req,
						ResponseText: answer, FinishReason: "stop", PromptTokens: 800, CompletionTokens: 100,
						LatencyMS: 1.5, TTFBMS: 1, Status: 200, Injected: `["a","b","c"]`}
				}
				if err := db.RecordTurns(ctx, turns); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRecordSession records agent sessions turn by turn (40 turns
// each, 56 KB a request on average; the sessions share the system prompt
// and tools, not the conversation) and reports, besides ns per turn, the
// bytes a turn adds to the database's turns and request_parts. In
// changing-skills the injected text after the 16 KB system prompt differs
// on every turn; in tool-loop it stays the same, as through an agent's
// tool loop, so each request begins with all of the one before.
//
//	go test -run '^$' -bench BenchmarkRecordSession -benchtime 2000x ./store/
func BenchmarkRecordSession(b *testing.B) {
	for _, loop := range []bool{false, true} {
		name := "changing-skills"
		if loop {
			name = "tool-loop"
		}
		b.Run(name, func(b *testing.B) { benchRecordSession(b, loop) })
	}
}

var skillOfTurn = regexp.MustCompile(`Skill chosen for turn \d+`)

func benchRecordSession(b *testing.B, loop bool) {
	db, err := Open(filepath.Join(b.TempDir(), "metaclaw.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	const turns = 40
	sessions := make([][][]byte, (b.N+turns-1)/turns)
	for i := range sessions {
		sessions[i] = agentSessionSeed(turns, false, uint64(i))
		if loop {
			for j, r := range sessions[i] {
				sessions[i][j] = skillOfTurn.ReplaceAll(r, []byte("Skill chosen for this request"))
			}
		}
	}
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		t := &Turn{SessionID: fmt.Sprintf("s%d", i/turns), Request: sessions[i/turns][i%turns], ResponseText: "ok"}
		if err := db.RecordTurns(ctx, []*Turn{t}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	var stored int64
	if err := db.sql.QueryRow(`SELECT (SELECT coalesce(sum(length(request)), 0) FROM turns) +
		(SELECT coalesce(sum(length(body)), 0) FROM request_parts)`).Scan(&stored); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(stored)/float64(b.N), "stored-B/turn")
}

// BenchmarkReadSession reads back a recorded 40-turn agent session (2.25
// MB of requests) with SessionTurns, as the learner and the web page do.
//
//	go test -run '^$' -bench BenchmarkReadSession ./store/
func BenchmarkReadSession(b *testing.B) {
	db, err := Open(filepath.Join(b.TempDir(), "metaclaw.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	reqs := agentSession(40, false)
	for _, r := range reqs {
		if err := db.RecordTurns(ctx, []*Turn{{SessionID: "s", Request: r}}); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		ts, err := db.SessionTurns(ctx, "s")
		if err != nil || len(ts) != len(reqs) {
			b.Fatal(len(ts), err)
		}
	}
}
