package tokenizer

import (
	"os"
	"path/filepath"
	"testing"
)

// benchText returns about 2 KB of mixed text: prose, code, JSON, CJK.
func benchText(b *testing.B) string {
	data, err := os.ReadFile(filepath.Join(testdata, "hfref", "corpus.txt"))
	if err != nil {
		b.Fatal(err)
	}
	return string(data[:2048])
}

// BenchmarkEncode encodes 2 KB with the piece cache warm, as in serving
// where the same words recur.
func BenchmarkEncode(b *testing.B) {
	tok := loadFixture(b, "tiny-qwen")
	text := benchText(b)
	tok.Encode(text)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		tok.Encode(text)
	}
}

// BenchmarkEncodeCold encodes 2 KB with an empty piece cache, so every
// piece runs the BPE merges.
func BenchmarkEncodeCold(b *testing.B) {
	tok := loadFixture(b, "tiny-qwen")
	text := benchText(b)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		tok.model.cache.m.Clear()
		tok.Encode(text)
	}
}

// BenchmarkEncodeRegexp2 is BenchmarkEncode with the split on regexp2
// instead of the hand-written scanner, for comparison.
func BenchmarkEncodeRegexp2(b *testing.B) {
	tok := loadFixture(b, "tiny-qwen")
	split := tok.steps[0].(*patternSplit)
	re, err := newRegexFinder("(?:" + PatternQwen + ")") // not a scanner pattern, so regexp2
	if err != nil {
		b.Fatal(err)
	}
	split.finder = re
	tok.scanner = nil
	text := benchText(b)
	tok.Encode(text)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		tok.Encode(text)
	}
}

func BenchmarkDecode(b *testing.B) {
	tok := loadFixture(b, "tiny-qwen")
	ids := tok.Encode(benchText(b))
	b.ReportAllocs()
	for b.Loop() {
		tok.Decode(ids)
	}
}
