package stem

import (
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
