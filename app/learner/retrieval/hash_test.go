package retrieval

import (
	"hash/fnv"
	"testing"
)

// TestTextHashIsFNV1a checks the inline hash against hash/fnv's FNV-1a
// of the texts each followed by a 0 byte.
func TestTextHashIsFNV1a(t *testing.T) {
	for _, fields := range [][]string{nil, {""}, {"a"}, {"alpha", "beta"}, {"ab", ""}, {"", "ab"}, {"ünïcode text", "x"}} {
		h := fnv.New64a()
		for _, f := range fields {
			h.Write([]byte(f))
			h.Write([]byte{0})
		}
		if got, want := textHash(fields), h.Sum64(); got != want {
			t.Errorf("textHash(%q) = %x, want %x", fields, got, want)
		}
	}
}
