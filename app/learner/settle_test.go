package learner_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/internal/learntest"
	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
)

// TestSettleWaitsForTheSessionsLearning ends a session whose judging and
// evolution take a while: Settle returns only once both are done, and not
// at all for a session whose end the learner has not seen.
func TestSettleWaitsForTheSessionsLearning(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	slow := func(r *http.Request, body []byte) fakeupstream.Reply {
		rep := h.brain.reply(r, body)
		if strings.Contains(learntest.PromptOf(body).System, "skill library") {
			rep.FirstByteDelay = 300 * time.Millisecond
		}
		return rep
	}
	h.up.SetDefault(fakeupstream.Reply{Func: slow})
	h.serve(t)
	h.turn(t, "s1", "", "first", "a")
	h.turn(t, "s1", "", "second", "b")

	short, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := h.l.Settle(short, "s1"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Settle before the session ended = %v, want a deadline error", err)
	}
	h.end("s1")
	ctx, cancel2 := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel2()
	if err := h.l.Settle(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	st := h.l.Stats()
	if st.EvolutionsEmpty != 1 || st.Judged != 2 {
		t.Errorf("after Settle: stats %+v, want both turns judged and the evolution done", st)
	}
}
