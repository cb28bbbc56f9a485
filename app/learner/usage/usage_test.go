package usage_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/internal/learntest"
	"github.com/metaclaw/metaclaw/app/learner/llm"
	"github.com/metaclaw/metaclaw/app/learner/usage"
)

// TestBudgetPausesLearningForTheDay: past learning.max_calls_per_day the
// metered client refuses calls until the next day; a restart the same day
// keeps counting; the spend is kept per day and component.
func TestBudgetPausesLearningForTheDay(t *testing.T) {
	t.Parallel()
	db := learntest.OpenDB(t)
	up, base := learntest.StartFake(t)
	now := time.Date(2026, 3, 4, 10, 0, 0, 0, time.Local)
	clock := func() time.Time { return now }
	m := usage.New(usage.Options{DB: db, Now: clock, MaxCallsPerDay: 3})
	c := m.Metered(usage.Judge, llm.New(llm.Endpoint{BaseURL: base + "/v1", APIKey: "k", Model: "judge"}))
	ctx := context.Background()
	for i := range 3 {
		if _, err := c.Complete(ctx, "s", "u", llm.Options{}); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if _, err := c.Complete(ctx, "s", "u", llm.Options{}); !errors.Is(err, usage.ErrBudget) {
		t.Fatalf("4th call: %v, want ErrBudget", err)
	}
	if n := len(up.Requests()); n != 3 {
		t.Errorf("%d calls reached the provider, want 3", n)
	}
	if b := m.Budget(); !b.Reached || b.Used != 3 || b.Limit != 3 {
		t.Errorf("budget %+v", b)
	}
	// A restart the same day reads today's calls back.
	again := usage.New(usage.Options{DB: db, Now: clock, MaxCallsPerDay: 3})
	if err := again.Allow(ctx); !errors.Is(err, usage.ErrBudget) {
		t.Errorf("after a restart: %v, want ErrBudget", err)
	}
	spend, _ := db.SpendSince(ctx, "2026-03-04")
	if len(spend) != 1 || spend[0].Component != usage.Judge || spend[0].Calls != 3 || spend[0].PromptTokens == 0 {
		t.Errorf("spend %+v", spend)
	}
	now = now.Add(24 * time.Hour)
	if err := m.Allow(ctx); err != nil {
		t.Errorf("the next day: %v", err)
	}
	again.SetLimit(0)
	now = now.Add(-24 * time.Hour) // back to the spent day: no limit, no refusal
	if err := again.Allow(ctx); err != nil {
		t.Errorf("without a limit: %v", err)
	}
}

// TestAttentionAfterFailuresInARow: a component needs attention after
// AttentionAfter failures in a row, with the model's answer, and not once
// it works again; the health survives a restart.
func TestAttentionAfterFailuresInARow(t *testing.T) {
	t.Parallel()
	db := learntest.OpenDB(t)
	m := usage.New(usage.Options{DB: db})
	bad := usage.NewAnswerError(errors.New("no score"), "I think it was fine?\n  Maybe.")
	for range usage.AttentionAfter - 1 {
		m.Outcome(usage.Judge, bad)
	}
	if a := m.Attention(); len(a) != 0 {
		t.Fatalf("attention after %d failures: %+v", usage.AttentionAfter-1, a)
	}
	m.Outcome(usage.Judge, bad)
	a := m.Attention()
	if len(a) != 1 || a[0].Component != usage.Judge || a[0].Excerpt != "I think it was fine? Maybe." {
		t.Fatalf("attention %+v", a)
	}
	if hs, _ := usage.ReadHealth(context.Background(), db); len(usage.NeedingAttention(hs)) != 1 {
		t.Errorf("health read by another process: %+v", hs)
	}
	m.Outcome(usage.Judge, usage.ErrBudget) // not a failure of the judge
	m.Outcome(usage.Judge, nil)
	if a := m.Attention(); len(a) != 0 {
		t.Errorf("attention after a success: %+v", a)
	}
}

// TestBudgetHoldsUnderConcurrentCalls: calls made at the same time cannot
// all pass the check before any of them is counted; exactly the limit gets
// through and reaches the provider.
func TestBudgetHoldsUnderConcurrentCalls(t *testing.T) {
	t.Parallel()
	db := learntest.OpenDB(t)
	up, base := learntest.StartFake(t)
	m := usage.New(usage.Options{DB: db, MaxCallsPerDay: 2})
	c := m.Metered(usage.Judge, llm.New(llm.Endpoint{BaseURL: base + "/v1", APIKey: "k", Model: "judge"}))
	const callers = 8
	errs := make(chan error, callers)
	start := make(chan struct{})
	for range callers {
		go func() {
			<-start
			_, err := c.Complete(context.Background(), "s", "u", llm.Options{})
			errs <- err
		}()
	}
	close(start)
	passed := 0
	for range callers {
		err := <-errs
		switch {
		case err == nil:
			passed++
		case !errors.Is(err, usage.ErrBudget):
			t.Errorf("unexpected error: %v", err)
		}
	}
	if passed != 2 || len(up.Requests()) != 2 {
		t.Errorf("%d calls passed and %d reached the provider with a budget of 2", passed, len(up.Requests()))
	}
	if b := m.Budget(); b.Used != 2 || !b.Reached {
		t.Errorf("budget %+v", b)
	}
}
