// Package stem stems English words for the learner's in-memory keyword
// indexes (skills and memory), with a shared cache: the vocabulary of
// requests, skills and memories repeats a lot, and Snowball stemming was a
// visible part of every turn's retrieval. Only app/learner packages import
// it.
package stem

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

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

// Terms lower-cases text, splits it on anything but letters and digits,
// drops one-letter words and the words skip reports (nil keeps all), and
// stems the rest: the terms both keyword indexes index and search by.
func Terms(text string, skip func(word string) bool) []string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	out := words[:0]
	for _, w := range words {
		if utf8.RuneCountInString(w) < 2 || skip != nil && skip(w) {
			continue
		}
		out = append(out, Stem(w))
	}
	return out
}
