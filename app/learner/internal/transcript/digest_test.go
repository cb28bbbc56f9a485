package transcript_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/metaclaw/metaclaw/app/learner/internal/learntest"
	"github.com/metaclaw/metaclaw/app/learner/internal/transcript"
	"github.com/metaclaw/metaclaw/store"
)

// TestDigestsReadOnceAndKeep reads the digests of brief turns from the
// database, then from the cache: a turn seen before is not read again,
// whatever its Request holds now.
func TestDigestsReadOnceAndKeep(t *testing.T) {
	t.Parallel()
	db := learntest.OpenDB(t)
	ctx := context.Background()
	at := time.UnixMilli(1_800_000_000_000)
	recorded := learntest.Record(t, db,
		store.Turn{SessionID: "s", CreatedAt: at, Request: learntest.OpenAIRequest(
			learntest.Msg{Role: "user", Text: "fix the build"}, learntest.Msg{Role: "assistant", Text: "ok", Tool: "run"},
			learntest.Msg{Role: "tool", Text: "exit 1"}, learntest.Msg{Role: "user", Text: "and the tests"})},
		store.Turn{SessionID: "s", CreatedAt: at, Request: learntest.AnthropicRequest(
			learntest.Msg{Role: "system", Text: "be brief"}, learntest.Msg{Role: "user", Text: "list files"},
			learntest.Msg{Role: "assistant", Text: "ok", Tool: "ls"}, learntest.Msg{Role: "tool", Text: "a.go"})},
		store.Turn{SessionID: "s", CreatedAt: at, Request: []byte("not json")})
	brief, err := db.RecentSessionTurnsBrief(ctx, "s", store.TurnMain, 10)
	if err != nil || len(brief) != 3 || brief[0].Request != nil {
		t.Fatalf("brief turns = %+v, %v", brief, err)
	}
	want := []transcript.Digest{
		{Read: true, Instruction: "and the tests", NewUser: []string{"and the tests"}},
		{Read: true, Instruction: "list files"},
		{},
	}
	var d transcript.Digests
	got, err := d.Of(ctx, db, brief)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("read (-want +got):\n%s", diff)
	}
	changed := recorded[0]
	changed.Request = learntest.OpenAIRequest(learntest.Msg{Role: "user", Text: "something else"})
	gone := store.Turn{ID: recorded[2].ID + 100, SessionID: "s", CreatedAt: at}
	got, err = d.Of(ctx, db, []store.Turn{changed, gone})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]transcript.Digest{want[0], {}}, got); diff != "" {
		t.Errorf("cached (-want +got):\n%s", diff)
	}
	other := changed
	other.SessionID = "t" // another turn under a reused id: read from its Request
	if got, _ := d.Of(ctx, db, []store.Turn{other}); got[0].Instruction != "something else" {
		t.Errorf("a reused id got the old turn's digest: %+v", got[0])
	}
}
