package stem

import (
	"strings"
	"sync"
	"testing"

	"github.com/kljensen/snowball/english"
)

func TestStemMatchesSnowballAndCaches(t *testing.T) {
	words := []string{"running", "tests", "flaky", "databases", "locked", "generously", "go"}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for _, w := range words {
				if got, want := Stem(w), english.Stem(w, false); got != want {
					t.Errorf("Stem(%q) = %q, want %q", w, got, want)
				}
			}
		})
	}
	wg.Wait()
	cache.RLock()
	defer cache.RUnlock()
	if cache.m["running"] != "run" {
		t.Errorf("cache holds %q for running", cache.m["running"])
	}
}

func TestTerms(t *testing.T) {
	got := Terms("Running the TESTS, a x-ray of café's 2 files; ß é", func(w string) bool { return w == "the" })
	want := []string{"run", "test", "ray", "of", "café", "file"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("Terms = %q, want %q", got, want)
	}
}
