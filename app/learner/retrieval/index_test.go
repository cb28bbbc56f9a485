package retrieval

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestCompactWithConcurrentChanges: documents put, replaced and deleted
// while a compaction copies and rebuilds (more changes than it replays
// under the lock) are all in the index afterwards, as in an index built
// from the final documents.
func TestCompactWithConcurrentChanges(t *testing.T) {
	t.Parallel()
	fields := []Field{{Name: "a", Weight: 2, B: 0.75, Head: true}, {Name: "b", Weight: 0.5, B: 0.5}}
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda omicron sigma tau upsilon")
	rng := rand.New(rand.NewPCG(1, 2))
	text := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = words[rng.IntN(len(words))]
		}
		return strings.Join(w, " ")
	}
	ix := NewIndex[int64](fields...)
	final := map[int64][2]string{}
	put := func(k int64) {
		f := [2]string{text(3), text(12)}
		ix.Put(k, k, f[0], f[1])
		final[k] = f
	}
	for k := range int64(5000) {
		put(k)
	}
	for round := range 3 {
		var wg sync.WaitGroup
		ix.mu.Lock()
		ix.compacting = true
		ix.mu.Unlock()
		wg.Go(ix.compact)
		for i := range 400 {
			k := int64(rng.IntN(6000))
			switch i % 3 {
			case 0:
				ix.Delete(k)
				delete(final, k)
			default:
				put(k)
			}
			if i%7 == 0 {
				ix.SetVector(k, []float32{1, 0})
			}
		}
		wg.Wait()
		_ = round
	}
	ix.Compact() // no change runs: the deleted documents leave the statistics
	want := NewIndex[int64](fields...)
	for k, f := range final {
		want.Put(k, k, f[0], f[1])
	}
	if ix.Len() != want.Len() {
		t.Fatalf("%d documents, want %d", ix.Len(), want.Len())
	}
	for _, q := range []string{"alpha", "gamma delta", "tau upsilon sigma", "omicron beta eta"} {
		var query Query
		for _, t := range Terms(q, nil) {
			query.Terms = append(query.Terms, QueryTerm{Term: t, Word: t, Weight: 1})
		}
		got, _ := ix.Search(query, 50)
		exp, _ := want.Search(query, 50)
		if len(got) != len(exp) {
			t.Fatalf("%q: %d hits, want %d", q, len(got), len(exp))
		}
		for i := range got {
			if got[i].Key != exp[i].Key || math.Abs(got[i].Score-exp[i].Score) > 1e-6 {
				t.Errorf("%q hit %d: %d (%.5f), want %d (%.5f)", q, i, got[i].Key, got[i].Score, exp[i].Key, exp[i].Score)
				break
			}
		}
	}
}

// TestBestPassage: a hit's BestPassage is the most of the query's terms
// one line of a Passages field holds, not the field's terms in all; other
// fields, lines past MaxPassages and deleted documents do not count, and
// a compaction keeps it.
func TestBestPassage(t *testing.T) {
	t.Parallel()
	ix := NewIndex[int64](Field{Name: "head", Weight: 2, B: 0.5, Head: true}, Field{Name: "lines", Weight: 1, B: 0.75, Head: true, Passages: true})
	query := func(q string) Query {
		var out Query
		for _, t := range Terms(q, nil) {
			out.Terms = append(out.Terms, QueryTerm{Term: t, Word: t, Weight: 1})
		}
		return out
	}
	far := strings.Repeat("filler\n", MaxPassages) + "printer jammed paper"
	ix.Put(1, 1, "printer", "printer jammed again\nthe paper tray is empty\nwhy is the office so cold")
	ix.Put(2, 2, "", "printer\npaper\njammed")
	ix.Put(3, 3, "printer paper jammed", far)
	for k := int64(10); k < 200; k++ {
		ix.Put(k, k, "unrelated", "words about something else")
	}
	check := func(when string) {
		t.Helper()
		hits, _ := ix.Search(query("printer jammed paper"), 10)
		got := map[int64]int{}
		for _, h := range hits {
			got[h.Key] = h.BestPassage
		}
		// 1: "printer jammed" share a line, "paper" is on another; 2: one
		// word a line; 3: its words are in the head and past the 16th line.
		if want := map[int64]int{1: 2, 2: 1, 3: 0}; len(got) != len(want) || got[1] != want[1] || got[2] != want[2] || got[3] != want[3] {
			t.Errorf("%s: best passages %v, want %v", when, got, want)
		}
	}
	check("built")
	for k := int64(10); k < 200; k++ {
		ix.Delete(k) // enough deletions to compact
	}
	ix.Compact()
	check("compacted")
	ix.Put(2, 2, "", "the printer jammed on the paper")
	hits, _ := ix.Search(query("printer jammed paper"), 10)
	best := -1
	for _, h := range hits {
		if h.Key == 2 {
			best = h.BestPassage
		}
	}
	if best != 3 {
		t.Errorf("replaced document: best passage %d, want 3 (-1: not found)", best)
	}
}

// TestOptionalField: an Optional field is searched only by a query that
// asks for it, and a query that does not ranks exactly as if the field
// were not there, idf included, before and after a compaction.
func TestOptionalField(t *testing.T) {
	t.Parallel()
	fields := []Field{{Name: "text", Weight: 1, B: 0.75, Head: true}, {Name: "other languages", Weight: 1, B: 0.75, Passages: true, Optional: true}}
	with := NewIndex[int64](fields...)
	without := NewIndex[int64](fields[0])
	query := func(q string, optional bool) Query {
		out := Query{Optional: optional}
		for _, t := range Terms(q, nil) {
			out.Terms = append(out.Terms, QueryTerm{Term: t, Word: t, Weight: 1})
		}
		return out
	}
	docs := []struct{ text, other string }{
		{"renew the tls certificate before it expires", "das Zertifikat ist abgelaufen\nel certificado caducó"},
		{"zertifikat is the word a German form uses", ""},
		{"certificate pinning in a mobile app", "Zertifikat im App pinnen"},
	}
	for k, d := range docs {
		with.Put(int64(k), int64(k), d.text, d.other)
		without.Put(int64(k), int64(k), d.text)
	}
	for k := int64(10); k < 200; k++ {
		with.Put(k, k, "unrelated words about something else", "otras palabras")
		without.Put(k, k, "unrelated words about something else")
	}
	check := func(when string) {
		t.Helper()
		for _, q := range []string{"zertifikat", "certificate expires", "caducó certificate"} {
			a, sa := with.Search(query(q, false), 10)
			b, sb := without.Search(query(q, false), 10)
			if len(a) != len(b) || !slices.Equal(sa.IDF, sb.IDF) {
				t.Fatalf("%s: %q: %d hits (idf %v) with the field not searched, %d (idf %v) without it", when, q, len(a), sa.IDF, len(b), sb.IDF)
			}
			for i := range a {
				if a[i].Key != b[i].Key || a[i].Score != b[i].Score || a[i].Matched != b[i].Matched || a[i].BestPassage != 0 {
					t.Errorf("%s: %q: hit %d = %+v, without the field %+v", when, q, i, a[i], b[i])
				}
			}
		}
		hits, st := with.Search(query("zertifikat abgelaufen", true), 10)
		if len(hits) != 3 || hits[0].Key != 0 || hits[0].BestPassage != 2 || st.IDF[1] == 0 {
			t.Errorf("%s: a query that asks for the optional field: %+v, idf %v", when, hits, st.IDF)
		}
		if _, st := with.Search(query("abgelaufen", false), 10); st.IDF[0] != 0 {
			t.Errorf("%s: a word only the optional field has got idf %v for a query that does not search it", when, st.IDF)
		}
	}
	check("built")
	for k := int64(10); k < 150; k++ {
		with.Delete(k)
		without.Delete(k)
	}
	with.Compact()
	without.Compact()
	check("compacted")
}
