package tokenizer

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
	"github.com/google/go-cmp/cmp"
)

// kimiReference is PatternKimi rewritten for regexp2, the reference for the
// hand-written scanner: regexp2 has the lookahead but neither class
// intersection nor script names, so every class is spelled out as ranges
// from Go's Unicode tables (the same tables the scanner uses), and the
// case-insensitive contractions as Unicode simple case folding, as Rust's
// regex has them.
var kimiReference = sync.OnceValue(func() *regexp2.Regexp {
	han := func(r rune) bool { return unicode.Is(unicode.Han, r) }
	upper := classOf(func(r rune) bool {
		return !han(r) && unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M)
	})
	lower := classOf(func(r rune) bool {
		return !han(r) && unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo, unicode.M)
	})
	space := classOf(unicode.IsSpace)
	notLN := "[^\\r\\n" + rangesOf(func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) + "]"
	punct := "[^" + rangesOf(func(r rune) bool { return unicode.IsSpace(r) || unicode.IsLetter(r) || unicode.IsNumber(r) }) + "]"
	var c []string
	for _, suffix := range []string{"s", "t", "re", "ve", "m", "ll", "d"} {
		alt := "'"
		for _, r := range suffix {
			alt += foldClass(r)
		}
		c = append(c, alt)
	}
	contraction := "(?:" + strings.Join(c, "|") + ")?"
	pattern := strings.Join([]string{
		classOf(han) + "+",
		notLN + "?" + upper + "*" + lower + "+" + contraction,
		notLN + "?" + upper + "+" + lower + "*" + contraction,
		"\\p{N}{1,3}",
		" ?" + punct + "+[\\r\\n]*",
		space + "*[\\r\\n]+",
		space + "+(?!" + "[^" + rangesOf(unicode.IsSpace) + "])",
		space + "+",
	}, "|")
	return regexp2.MustCompile(pattern, regexp2.None)
})

// classOf writes the runes of which as a regexp2 class.
func classOf(which func(rune) bool) string { return "[" + rangesOf(which) + "]" }

// rangesOf writes the runes of which as the ranges of a regexp2 class.
func rangesOf(which func(rune) bool) string {
	var b strings.Builder
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !utf8.ValidRune(r) || !which(r) {
			continue
		}
		start := r
		for r+1 <= unicode.MaxRune && utf8.ValidRune(r+1) && which(r+1) {
			r++
		}
		b.WriteString(classRune(start))
		if r > start {
			b.WriteString("-" + classRune(r))
		}
	}
	return b.String()
}

func classRune(r rune) string {
	if r < 0x10000 {
		return fmt.Sprintf(`\u%04X`, r)
	}
	return string(r)
}

// foldClass is the class of the runes that fold to r.
func foldClass(r rune) string {
	out := string(r)
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		out += string(f)
	}
	return "[" + out + "]"
}

// kimiSamples are texts whose Kimi splits are checked against regexp2.
var kimiSamples = append([]string{
	"你好世界，今天天气很好。", "中文abc English文本", "你好 世界  再见", "東京はとても大きい都市です",
	"カタカナとひらがな", "서울의 날씨는 맑습니다", "人々〇〇七 你、好。「引用」 ー〪",
	"HTTPServer XMLHttpRequest iPhone eBay getWeather", "DON'T STOP NOW, IT'S FINE",
	"HE'LL WE'VE THEY'RE I'M YOU'D IT'S it'S It's iT's IT'ſ", "ǅemal ǈubljana ǋnjegoš",
	"e\u0301 A\u0301B naı\u0308ve", "\u0301\u0302 x \u0301 !\u0301 \u0301\u0301a", "Aʰ ʰA ʰʰ AʰB Aǅ",
	"-word .Word _UPPER (lower) \"Quote\"", "\tIndented\n\tlines", "1234567 12 1 123456789012",
	"２０２５年１１月２９日", "Chapter Ⅻ and ⅷ", "مرحبا بالعالم", "สวัสดีครับ", "ABCdef", "ABC'S abc'S",
	"A'", "a' x'y", "\u0301'S", "中A中a中", "  你", "\r\n中", "x\u00a0Yz", "Ꭰꭰ", "ᾈᾀ",
}, splitSamples...)

func TestKimiScannerMatchesRegexp2(t *testing.T) {
	t.Parallel()
	re := kimiReference()
	for _, s := range kimiSamples {
		want := pieces(regexFinder{re}, s)
		if diff := cmp.Diff(want, pieces(kimiScanner{}, s)); diff != "" {
			t.Errorf("%q: scanner differs from regexp2 (-regexp2 +scanner):\n%s", s, diff)
		}
	}
}

func TestKimiScannerSplits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		want []string
	}{
		{"HTTPServer runs", []string{"HTTPServer", " runs"}},
		{"DON'T", []string{"DON'T"}},
		{"中文abc", []string{"中文", "abc"}},
		{" 你好", []string{" ", "你好"}},
		{"人々〇", []string{"人々〇"}}, // U+3005 and U+3007 are Han script
		{"你、好", []string{"你", "、", "好"}},
		{"1234567", []string{"123", "456", "7"}},
		{"\u0301 x", []string{"\u0301", " x"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, pieces(kimiScanner{}, tt.text)); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.text, diff)
		}
	}
}

// FuzzKimiScanner checks the Kimi scanner against regexp2 on valid UTF-8.
func FuzzKimiScanner(f *testing.F) {
	for _, s := range kimiSamples {
		f.Add(s)
	}
	re := kimiReference()
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		want := pieces(regexFinder{re}, s)
		if got := pieces(kimiScanner{}, s); !cmp.Equal(want, got) {
			t.Fatalf("text %q:\nregexp2 %q\nscanner %q", s, want, got)
		}
	})
}
