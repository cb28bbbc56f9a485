package memory

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/metaclaw/metaclaw/app/learner/retrieval"
	"github.com/metaclaw/metaclaw/store"
)

// TestFitMatchesRenderingEachTry checks that fit, which adds up rendered
// lengths, keeps what retrieval.Fit keeps by rendering every set it
// tries, and renders the same text.
func TestFitMatchesRenderingEachTry(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	at := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	for round := range 300 {
		var pinned, ranked []cand
		for i := range 2 + rng.IntN(30) {
			m := store.Memory{ID: int64(i + 1), Type: store.MemoryTypes[rng.IntN(len(store.MemoryTypes))],
				Content:   strings.Repeat("word  \n", 1+rng.IntN(90)),
				ValidFrom: at.Add(time.Duration(rng.IntN(1000)) * time.Hour), Pinned: rng.IntN(8) == 0}
			c := cand{e: newEntry(m), rel: rng.Float64(), score: rng.Float64(), matched: rng.Uint64()}
			if m.Pinned {
				pinned = append(pinned, cand{e: c.e, rel: 1, score: float64(c.e.importance)})
			}
			if !m.Pinned || rng.IntN(2) == 0 { // a pinned memory may rank too
				ranked = append(ranked, c)
			}
		}
		sortCands(ranked)
		units, budget, dates := rng.IntN(8), rng.IntN(400), rng.IntN(2) == 0
		r := &Retriever{opts: RetrieveOptions{MaxUnits: units, MaxTokens: budget}}
		var got Selection
		r.fit(&got, "s", pinned, ranked, dates)

		seen := map[int64]bool{}
		var all []Scored
		for _, c := range append(append([]cand{}, pinned...), diversify(ranked)...) {
			if !seen[c.e.id] {
				seen[c.e.id] = true
				all = append(all, c.scored("s"))
			}
		}
		want, text := retrieval.Fit(all, units, budget, func(ms []Scored) string { return render(ms, dates) })
		if diff := cmp.Diff(scoredIDs(want), scoredIDs(got.Memories)); diff != "" {
			t.Fatalf("round %d (units %d, budget %d): kept (-rendering each try +fit):\n%s", round, units, budget, diff)
		}
		if got.Text != text || got.Tokens != EstimateTokens(text) {
			t.Fatalf("round %d: text differs:\n%s\nwant:\n%s", round, got.Text, text)
		}
	}
}

func scoredIDs(ms []Scored) []int64 {
	out := []int64{}
	for _, m := range ms {
		out = append(out, m.ID)
	}
	return out
}
