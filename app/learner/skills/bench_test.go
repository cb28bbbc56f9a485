package skills

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/evalsets"
	"github.com/metaclaw/metaclaw/assets"
	"github.com/metaclaw/metaclaw/store"
)

// synthLibrary adds n synthetic skills whose words come from the starter
// bank's vocabulary, so queries hit realistic posting lists; with other,
// each also has five asks in German and in Spanish, whose words come from
// the development set's asks in those languages.
func synthLibrary(b *testing.B, db *store.DB, n int, other [][]string) {
	ctx := context.Background()
	if _, err := InstallStarter(ctx, db, assets.Skills()); err != nil {
		b.Fatal(err)
	}
	starter, _ := db.Skills(ctx, false)
	var vocab []string
	for _, s := range starter {
		vocab = append(vocab, strings.Fields(strings.ToLower(s.Description+" "+s.Body+" "+strings.Join(s.Asks, " ")))...)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	from := func(vocab []string, k int) string {
		w := make([]string, k)
		for i := range w {
			w[i] = vocab[rng.IntN(len(vocab))]
		}
		return strings.Join(w, " ")
	}
	words := func(k int) string { return from(vocab, k) }
	for i := len(starter); i < n; i++ {
		in := store.SkillInput{Name: fmt.Sprintf("synthetic-skill-%d", i), Description: "Use when " + words(18),
			Category: Categories[i%len(Categories)], Tags: strings.Fields(words(3)), Body: words(120), Source: "bench"}
		for range 10 { // asks as the starter bank's: ten requests of about 15 words
			in.Asks = append(in.Asks, words(15))
		}
		sk, _, err := db.PutSkill(ctx, in)
		if err != nil {
			b.Fatal(err)
		}
		for l, vocab := range other {
			asks := make([]string, 5)
			for j := range asks {
				asks[j] = from(vocab, 15)
			}
			if err := db.SetSkillAsksIn(ctx, sk.Name, sk.Version, []string{"de", "es"}[l], asks); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// otherLanguages are the words of the development set's asks in German
// and in Spanish, and those asks as requests.
func otherLanguages(b *testing.B) (vocab [][]string, requests []string) {
	set, err := evalsets.Load("../evalsets/dev")
	if err != nil {
		b.Fatal(err)
	}
	vocab = make([][]string, 2)
	for _, a := range set.AsksIn {
		for l, lang := range []string{"de", "es"} {
			for _, ask := range a.Asks[lang] {
				vocab[l] = append(vocab[l], strings.Fields(strings.ToLower(ask))...)
				requests = append(requests, ask)
			}
		}
	}
	return vocab, requests
}

// BenchmarkRetrieval measures Select (keyword, the default) over the
// labelled queries with 1,000 and 10,000 skills: p50/p99 latency and the
// mean tokens injected per turn. skills=N searches for every query;
// skills=N/tool-loop asks each query on five turns in a row, as an
// agent's tool loop does, so four in five are answered from the recent
// selections.
//
// skills=10000/rebuilding runs the same turns while, in the background, a
// skill is edited every 20 ms (each edit is picked up by a background
// refresh that reads the library and updates the index in place) and the
// whole index is compacted (its postings rebuilt) every 100 ms: the
// latency a turn sees while the index rebuilds.
func BenchmarkRetrieval(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		for _, loop := range []bool{false, true} {
			name := fmt.Sprintf("skills=%d", n)
			if loop {
				name += "/tool-loop"
			}
			b.Run(name, func(b *testing.B) { benchRetrieval(b, n, loop, false) })
		}
	}
	b.Run("skills=10000/rebuilding", func(b *testing.B) { benchRetrieval(b, 10000, false, true) })
	b.Run("skills=10000/other-languages", func(b *testing.B) { benchOtherLanguages(b, 10000) })
}

// benchOtherLanguages is benchRetrieval's first case for a person who
// writes in German and Spanish too: every skill has asks in both, and the
// requests are the development set's asks in them (p50/p99 of Select).
func benchOtherLanguages(b *testing.B, n int) {
	db := openDB(b)
	vocab, requests := otherLanguages(b)
	synthLibrary(b, db, n, vocab)
	r := NewRetriever(db, Options{Mode: ModeKeyword, TopK: 6, Candidates: 10, GeneralTopK: 2, MaxTokens: 1500}, nil)
	defer r.Close()
	r.noRecall = true
	ctx := context.Background()
	if _, err := r.Select(ctx, []Message{{Role: "user", Text: "warm up"}}); err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	other := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		sel, err := r.Select(ctx, []Message{{Role: "user", Text: requests[i%len(requests)]}})
		lat = append(lat, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
		if sel.Language != "en" && sel.Language != "" {
			other++
		}
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-us")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-us")
	b.ReportMetric(float64(other)/float64(b.N), "other-language-share")
}

// churn edits a skill every 20 ms and compacts the index every 100 ms until stop is
// closed; it returns how many compactions ran.
func churn(b *testing.B, db *store.DB, r *Retriever, stop <-chan struct{}) <-chan int {
	done := make(chan int, 1)
	go func() {
		ctx := context.Background()
		n := 0
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-stop:
				done <- n
				return
			case <-tick.C:
			}
			s, err := db.Skill(ctx, "synthetic-skill-1000")
			if err == nil {
				db.PutSkill(ctx, store.SkillInput{Name: s.Name, Description: s.Description, Category: s.Category, Tags: s.Tags,
					Body: s.Body + fmt.Sprintf(" edit %d", i), Asks: s.Asks, Source: "bench"})
			}
			if lib := r.lib.cur.Load(); lib != nil && i%5 == 4 {
				lib.ix.Compact()
				n++
			}
		}
	}()
	return done
}

func benchRetrieval(b *testing.B, n int, loop, rebuilding bool) {
	db := openDB(b)
	synthLibrary(b, db, n, nil)
	qs := loadQueries(b)
	opts := Options{Mode: ModeKeyword, TopK: 6, Candidates: 10, GeneralTopK: 2, MaxTokens: 1500}
	r := NewRetriever(db, opts, nil)
	r.noRecall = !loop
	turns := 1
	if loop {
		turns = 5
	}
	// In a tool loop each group of turns is a new request of the user (its
	// own query), asked once and then repeated.
	query := func(i int) string {
		q := qs[i/turns%len(qs)].Query
		if loop {
			q += fmt.Sprintf(" (request %d)", i/turns)
		}
		return q
	}
	ctx := context.Background()
	buildStart := time.Now() // the first Select loads the library and builds the index
	if _, err := r.Select(ctx, []Message{{Role: "user", Text: "warm up"}}); err != nil {
		b.Fatal(err)
	}
	build := time.Since(buildStart)
	var compactions <-chan int
	stop := make(chan struct{})
	if rebuilding {
		compactions = churn(b, db, r, stop)
	}
	lat := make([]time.Duration, 0, b.N)
	tokens := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := query(i)
		start := time.Now()
		sel, err := r.Select(ctx, []Message{{Role: "user", Text: q}})
		lat = append(lat, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
		tokens += sel.Tokens
	}
	b.StopTimer()
	close(stop)
	if rebuilding {
		b.ReportMetric(float64(<-compactions), "compactions")
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-us")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-us")
	b.ReportMetric(float64(tokens)/float64(b.N), "tokens/turn")
	b.ReportMetric(float64(build.Milliseconds()), "index-build-ms")
}

// BenchmarkStarterInjection reports the mean tokens injected per turn over
// the labelled queries with the starter bank alone (the first-run case).
func BenchmarkStarterInjection(b *testing.B) {
	db := openDB(b)
	ctx := context.Background()
	InstallStarter(ctx, db, assets.Skills())
	r := NewRetriever(db, Options{Mode: ModeKeyword, TopK: 6, Candidates: 10, GeneralTopK: 2, MaxTokens: 1500}, nil)
	qs := loadQueries(b)
	tokens, skills := 0, 0
	for i := 0; i < b.N; i++ {
		sel, _ := r.Select(ctx, []Message{{Role: "user", Text: qs[i%len(qs)].Query}})
		tokens += sel.Tokens
		skills += len(sel.Skills)
	}
	b.ReportMetric(float64(tokens)/float64(b.N), "tokens/turn")
	b.ReportMetric(float64(skills)/float64(b.N), "skills/turn")
}
