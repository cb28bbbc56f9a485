// Package stem stems English words for the learner's in-memory keyword
// indexes (skills and memory), with a shared cache: the vocabulary of
// requests, skills and memories repeats a lot, and Snowball stemming was a
// visible part of every turn's retrieval. Only app/learner packages import
// it.
package stem

import (
	"strings"
	"sync"

	"github.com/kljensen/snowball/english"
)

// cache maps words to their stems; it stops growing at maxEntries.
var cache = struct {
	sync.RWMutex // guards m
	m            map[string]string
}{m: map[string]string{}}

const maxEntries = 200_000

// Stem returns the Snowball (Porter2) stem of a lower-case word. The
// result does not alias w.
func Stem(w string) string {
	cache.RLock()
	s, ok := cache.m[w]
	cache.RUnlock()
	if ok {
		return s
	}
	s = strings.Clone(english.Stem(w, false))
	cache.Lock()
	if len(cache.m) < maxEntries {
		cache.m[strings.Clone(w)] = s
	}
	cache.Unlock()
	return s
}
