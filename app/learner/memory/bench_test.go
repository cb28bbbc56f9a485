package memory

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/store"
)

// The benchmarks run on synthetic scopes of 10,000 and 100,000 memories
// written from templates over a Zipf-distributed vocabulary (common words
// are common, most are rare, as in real notes), queried with the labelled
// queries of testdata/recall.json and with synthetic ones.

var benchWords = strings.Fields(`project deadline launch release client meeting review budget invoice report
	design database migration schema index query service api endpoint deploy staging production cluster
	kubernetes docker terraform python golang rust typescript react editor theme dark light mode tabs spaces
	test flaky pipeline build cache latency memory cpu disk backup restore incident oncall alert dashboard
	metric log trace kafka redis postgres mysql sqlite s3 bucket region cloud google aws azure invoice pdf
	font printer email calendar monday tuesday friday weekend morning evening coffee tea lunch dinner
	vegetarian peanuts allergy daughter son wife husband dog cat school marathon running cycling guitar
	piano book novel travel flight hotel berlin paris tokyo lisbon gothenburg conference talk slides
	commit branch merge rebase review linter formatter gofmt ruff uv pip npm pnpm vitest jest pytest`)

type benchCorpus struct {
	db      *store.DB
	queries []string
}

var (
	benchMu      sync.Mutex // guards benchCorpora and benchDirs
	benchCorpora = map[int]*benchCorpus{}
	benchDirs    []string
)

func TestMain(m *testing.M) {
	code := m.Run()
	benchMu.Lock()
	for _, c := range benchCorpora {
		c.db.Close()
	}
	for _, d := range benchDirs {
		os.RemoveAll(d)
	}
	benchMu.Unlock()
	os.Exit(code)
}

// corpus returns (building once per process) a database with n memories in
// scope "bench".
func corpus(b *testing.B, n int) *benchCorpus {
	benchMu.Lock()
	defer benchMu.Unlock()
	if c := benchCorpora[n]; c != nil {
		return c
	}
	// The corpus outlives the sub-benchmark that builds it (-count reruns
	// reuse it), so it lives in its own directory, removed by TestMain.
	dir, err := os.MkdirTemp("", "metaclaw-membench-")
	if err != nil {
		b.Fatal(err)
	}
	benchDirs = append(benchDirs, dir)
	db, err := store.Open(fmt.Sprintf("%s/bench-%d.db", dir, n))
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, uint64(n)))
	vocab := append(append([]string{}, benchWords...), rareWords(rng, 20000)...)
	zipf := rand.NewZipf(rand.New(rand.NewPCG(3, 4)), 1.1, 2, uint64(len(vocab)-1))
	word := func() string { return vocab[zipf.Uint64()] }
	start := time.Now()
	for done := 0; done < n; done += 1000 {
		ops := make([]store.MemoryOp, 0, 1000)
		for i := done; i < min(n, done+1000); i++ {
			ops = append(ops, store.MemoryOp{Kind: store.MemoryAdd, Input: synthMemory(rng, word, i)})
		}
		if _, _, err := db.ApplyMemoryOps(context.Background(), "bench", ops, time.Now()); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("wrote %d memories in %v", n, time.Since(start).Round(time.Millisecond))
	c := &benchCorpus{db: db, queries: benchQueries(b, rng, word)}
	benchCorpora[n] = c
	return c
}

func rareWords(rng *rand.Rand, n int) []string {
	const letters = "abcdefghijklmnopqrstuvwxyz"
	out := make([]string, n)
	for i := range out {
		w := make([]byte, 4+rng.IntN(6))
		for j := range w {
			w[j] = letters[rng.IntN(len(letters))]
		}
		out[i] = string(w)
	}
	return out
}

var benchTemplates = []struct{ typ, format string }{
	{store.MemoryPreference, "The user prefers %s %s for %s work."},
	{store.MemoryFact, "The user's %s is %s, near the %s."},
	{store.MemoryProjectState, "The %s %s is due on %s; the %s part is still open."},
	{store.MemoryProcedure, "Before %s, always run the %s %s checks."},
	{store.MemoryEpisode, "Fixed the %s %s problem in the %s service."},
}

func synthMemory(rng *rand.Rand, word func() string, i int) store.MemoryInput {
	t := benchTemplates[i%len(benchTemplates)]
	args := make([]any, strings.Count(t.format, "%s"))
	for j := range args {
		args[j] = word()
	}
	// Topics are specific (a common word and a rare one), as consolidation
	// keeps them: one current memory per topic.
	topic := fmt.Sprintf("%s %s%d", args[0], args[1], rng.IntN(1000))
	return store.MemoryInput{Type: t.typ, Topic: topic, Content: fmt.Sprintf(t.format, args...),
		Importance: 0.3 + 0.6*rng.Float64(), Confidence: 0.5 + 0.5*rng.Float64(), Source: "bench"}
}

func benchQueries(b *testing.B, rng *rand.Rand, word func() string) []string {
	var qs []string
	for _, q := range loadRecall(b).Queries {
		qs = append(qs, q.Query)
	}
	for range 40 {
		qs = append(qs, fmt.Sprintf("can you help me with the %s %s, it is about %s and %s", word(), word(), word(), word()))
	}
	rng.Shuffle(len(qs), func(i, j int) { qs[i], qs[j] = qs[j], qs[i] })
	return qs
}

func percentiles(lat []time.Duration) (p50, p99 time.Duration) {
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	return lat[len(lat)/2], lat[len(lat)*99/100]
}

// BenchmarkMemoryRetrieval measures what a turn waits for: Select over a
// scope's in-memory index (keyword mode, 6 units, 800 tokens), p50/p99,
// plus the index's build time and heap. The rebuilding run measures a
// turn while the scope's index is rebuilt from the store in the
// background, one build after another (what a change made behind the
// service's back starts): the turn keeps answering from the current
// index and never waits for the build.
func BenchmarkMemoryRetrieval(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		b.Run(fmt.Sprintf("memories=%d", n), func(b *testing.B) { benchMemorySelect(b, n, false) })
	}
	b.Run("memories=100000/rebuilding", func(b *testing.B) { benchMemorySelect(b, 100000, true) })
}

func benchMemorySelect(b *testing.B, n int, rebuild bool) {
	c := corpus(b, n)
	ctx := context.Background()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := NewRetriever(c.db, RetrieveOptions{MaxUnits: 6, MaxTokens: 800}, nil, nil, nil)
	defer r.Close()
	start := time.Now()
	if _, err := r.index(ctx, "bench"); err != nil {
		b.Fatal(err)
	}
	build := time.Since(start)
	runtime.GC()
	runtime.ReadMemStats(&after)
	stop, rebuilds := make(chan struct{}), make(chan int, 1)
	if rebuild {
		go rebuildLoop(r, stop, rebuilds)
	}
	lat := make([]time.Duration, 0, b.N)
	units := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		sel, err := r.Select(ctx, "bench", []Message{{Role: "user", Text: c.queries[i%len(c.queries)]}})
		lat = append(lat, time.Since(t0))
		if err != nil {
			b.Fatal(err)
		}
		units += len(sel.Memories)
	}
	b.StopTimer()
	if rebuild {
		close(stop)
		b.ReportMetric(float64(<-rebuilds), "rebuilds")
	}
	p50, p99 := percentiles(lat)
	b.ReportMetric(float64(p50.Microseconds()), "p50-us")
	b.ReportMetric(float64(p99.Microseconds()), "p99-us")
	b.ReportMetric(float64(units)/float64(b.N), "units/turn")
	b.ReportMetric(float64(build.Milliseconds()), "index-build-ms")
	b.ReportMetric(float64(after.HeapAlloc-min(after.HeapAlloc, before.HeapAlloc))/(1<<20), "index-MB")
}

// rebuildLoop rebuilds the bench scope's index in the background, one
// build after another, until stop is closed; it sends how many builds
// ended.
func rebuildLoop(r *Retriever, stop <-chan struct{}, rebuilds chan<- int) {
	st := r.state("bench")
	count := 0
	for {
		st.mu.Lock()
		done := r.startBuild("bench", st)
		st.mu.Unlock()
		select {
		case <-done:
			count++
		case <-stop:
			<-done
			rebuilds <- count
			return
		}
	}
}

// BenchmarkMemoryFTS5 is the same query load on the store's FTS5 search
// (BM25 in SQLite), for comparison: why the turn path does not use it.
func BenchmarkMemoryFTS5(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		b.Run(fmt.Sprintf("memories=%d", n), func(b *testing.B) {
			c := corpus(b, n)
			ctx := context.Background()
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				q := CleanQuery([]Message{{Role: "user", Text: c.queries[i%len(c.queries)]}})
				t0 := time.Now()
				if _, err := c.db.SearchMemories(ctx, store.MemorySearch{Scope: "bench", Query: q, Limit: 64}); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			p50, p99 := percentiles(lat)
			b.ReportMetric(float64(p50.Microseconds()), "p50-us")
			b.ReportMetric(float64(p99.Microseconds()), "p99-us")
		})
	}
}

// BenchmarkMemoryIngest measures consolidation into a scope that already
// holds n memories: each op is one session's batch of 8 extracted
// candidates (neighbour lookup, decision, one transaction, index update);
// memories/s is candidates consolidated per second.
func BenchmarkMemoryIngest(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		b.Run(fmt.Sprintf("memories=%d", n), func(b *testing.B) {
			c := corpus(b, n)
			ctx := context.Background()
			s := New(Options{DB: c.db})
			if _, err := s.ret.index(ctx, "bench"); err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(11, uint64(n)))
			zipf := rand.NewZipf(rand.New(rand.NewPCG(5, 6)), 1.1, 2, uint64(len(benchWords)-1))
			word := func() string { return benchWords[zipf.Uint64()] }
			batches := make([][]Candidate, b.N)
			for i := range batches {
				for j := range 8 {
					in := synthMemory(rng, word, i*8+j)
					batches[i] = append(batches[i], Candidate{Type: in.Type, Topic: in.Topic, Content: in.Content,
						Importance: in.Importance, Confidence: in.Confidence})
				}
			}
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				if _, err := s.consolidate(ctx, "bench", batches[i], Provenance{Source: SourceModel}, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*8)/time.Since(start).Seconds(), "memories/s")
		})
	}
}

// BenchmarkMemoryForget measures forgetting one memory and compacting the
// database (VACUUM and WAL truncation) at n memories.
func BenchmarkMemoryForget(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		b.Run(fmt.Sprintf("memories=%d", n), func(b *testing.B) {
			c := corpus(b, n)
			ctx := context.Background()
			s := New(Options{DB: c.db})
			var ids []int64
			for range b.N {
				ch, err := s.Add(ctx, store.MemoryInput{Scope: "bench", Type: "fact", Content: fmt.Sprintf("Locker code %d opens the blue door", 1000+len(ids))})
				if err != nil {
					b.Fatal(err)
				}
				ids = append(ids, ch.Memory.ID)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := s.Forget(ctx, "bench", ids[i:i+1]); err != nil {
					b.Fatal(err)
				}
				if err := s.Compact(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/forget")
			if fi, err := os.Stat(c.db.Path()); err == nil {
				b.ReportMetric(float64(fi.Size())/(1<<20), "db-MB")
			}
		})
	}
}
