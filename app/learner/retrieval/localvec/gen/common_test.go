package main

import (
	"math"
	"testing"
)

// removeCommon must leave vectors with no mean and nothing along the
// direction they shared.
func TestRemoveCommon(t *testing.T) {
	vecs := [][]float32{{10, 1, 0}, {12, -1, 0}, {8, 0, 1}, {11, 0, -1}, {9, 0.5, 0.5}}
	removeCommon(vecs, 1)
	var mean [3]float64
	for _, v := range vecs {
		for i, x := range v {
			mean[i] += float64(x) / float64(len(vecs))
		}
	}
	for i, m := range mean {
		if math.Abs(m) > 1e-5 {
			t.Errorf("mean[%d] = %v after removal", i, m)
		}
	}
	// The first component was along the first axis (its variance, 2, is
	// the largest): nothing is left along it.
	for _, v := range vecs {
		if math.Abs(float64(v[0])) > 0.3 {
			t.Errorf("vector %v keeps its common direction", v)
		}
	}
}

func TestKeep(t *testing.T) {
	for w, want := range map[string]bool{"tls": true, "zürich": true, "ipv6": true, "2024": false, "a": false, "e-mail": false, ",": false} {
		if keep(w) != want {
			t.Errorf("keep(%q) = %v, want %v", w, !want, want)
		}
	}
}
