package localvec

import (
	"bytes"
	"math"
	"testing"
)

func TestEncodeDecode(t *testing.T) {
	words := []string{"the", "tls", "zürich"}
	vecs := [][]float32{{1, -2, 0.5}, {0, 0, 0}, {-0.25, 0.125, 3}}
	var buf bytes.Buffer
	if err := Encode(&buf, words, vecs); err != nil {
		t.Fatal(err)
	}
	tab, err := Decode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if tab.Dims != 3 || len(tab.Words) != 3 {
		t.Fatalf("decoded %d words of %d dimensions", len(tab.Words), tab.Dims)
	}
	for i, w := range words {
		r, ok := tab.Rank(w)
		if !ok || r != i {
			t.Fatalf("Rank(%q) = %d, %v; want %d", w, r, ok, i)
		}
		got := tab.Vector(r)
		for j, x := range vecs[i] {
			// int8 quantisation: within half a step of the largest value / 127.
			if math.Abs(float64(got[j]-x)) > 3.0/127/2+1e-6 {
				t.Errorf("%s[%d] = %v, want %v", w, j, got[j], x)
			}
		}
	}
	if _, ok := tab.Rank("missing"); ok {
		t.Error("Rank found a word the table lacks")
	}
}

func TestDecodeRefusesBadTables(t *testing.T) {
	var buf bytes.Buffer
	if err := Encode(&buf, []string{"ab"}, [][]float32{{1, 2}}); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	for name, data := range map[string][]byte{
		"empty":     nil,
		"magic":     append([]byte("XXXX"), good[4:]...),
		"truncated": good[:len(good)-1],
		"words":     good[:17],
	} {
		if _, err := Decode(data); err == nil {
			t.Errorf("%s: Decode accepted a bad table", name)
		}
	}
	if err := Encode(&buf, []string{"a", "b"}, [][]float32{{1}}); err == nil {
		t.Error("Encode accepted fewer vectors than words")
	}
}
