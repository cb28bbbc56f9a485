package retrieval

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/usage"
	"github.com/metaclaw/metaclaw/proxy/fakeupstream"
)

// The embedder's calls count in learning's usage meter under embeddings,
// with their tokens, and use learning.max_calls_per_day like the other
// learner calls: past the limit a text not in the cache fails with
// usage.ErrBudget and no request goes out; cached texts still answer.
func TestEmbedderObeysTheDailyBudget(t *testing.T) {
	t.Parallel()
	up := fakeupstream.New()
	base, err := up.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	db := openDB(t)
	ctx := context.Background()
	meter := usage.New(usage.Options{DB: db, MaxCallsPerDay: 2})
	emb := NewEmbedder(db, base+"/v1", "k", "e").Metered(meter)
	for _, texts := range [][]string{{"alpha", "beta"}, {"gamma"}} {
		if _, err := emb.Embed(ctx, texts); err != nil {
			t.Fatalf("embed %v: %v", texts, err)
		}
	}
	_, err = emb.Embed(ctx, []string{"delta"})
	if !errors.Is(err, usage.ErrBudget) {
		t.Fatalf("a call past the budget: %v, want ErrBudget", err)
	}
	if n := len(up.Requests()); n != 2 {
		t.Errorf("%d requests to the provider, want 2", n)
	}
	if _, err := emb.Embed(ctx, []string{"alpha"}); err != nil {
		t.Errorf("a cached text failed past the budget: %v", err)
	}
	spend, err := db.SpendSince(ctx, usage.Day(time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, s := range spend {
		if s.Component == usage.Embeddings {
			found = true
			if s.Calls != 2 || s.Failures != 0 || s.PromptTokens == 0 {
				t.Errorf("embeddings spend = %+v, want 2 calls with their tokens", s)
			}
		}
	}
	if b := meter.Budget(); !found || b.Used != 2 || !b.Reached {
		t.Errorf("spend recorded %v, budget %+v", found, b)
	}
}
