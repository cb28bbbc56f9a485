package tokenizer

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
	"github.com/google/go-cmp/cmp"
)

// pieces splits s with f and returns the pieces.
func pieces(f finder, s string) []string {
	var out []string
	for _, sp := range tile(s, f.find(s, nil), false) {
		out = append(out, s[sp.start:sp.end])
	}
	return out
}

// regexPieces splits s with the pattern on regexp2, the reference for
// the hand-written scanner.
func regexPieces(t testing.TB, pattern, s string) []string {
	t.Helper()
	re, err := regexp2.Compile(pattern, regexp2.None)
	if err != nil {
		t.Fatal(err)
	}
	return pieces(regexFinder{re}, s)
}

var patterns = map[string]string{"gpt2": PatternGPT2, "qwen": PatternQwen, "llama3": PatternLlama3, "qwen35": PatternQwen35}

// splitSamples are texts whose splits are checked by hand or against
// regexp2.
var splitSamples = []string{
	"Hello world", "a  b   c    d", "end   ", "   start", "wait , what ?  ok ...",
	"x\n\ny", "a  \n  b \n\n  c", "\r\n\r\n", "windows\r\nline", "\tindented\n\t\ttab",
	"1234567 x1y22z333", "I'm it'll they've we'd you're it's isn't", "I'M IT'LL THEY'VE",
	"'quoted' rock'n'roll ''x'' 's 'S", "今天天气很好，我们。", "🎉 👍🏽 ❤️ 👨‍👩‍👧",
	"café naïve", "a\u00a0b\u3000c\u2003d \u00a0 e", "     ", "\n\n\n", "\t \t",
	"$42.00 100% x*y=z a->b", "end.\n\nNew!\r\n...\n", ".word", " .x", "\x00\x01 \x7f",
	"a\u0085b\u2028c", "½ ⅓ ² Ⅻ", "k'ſ", "-\n- \n-\t\n", "x \r\n y",
	"cafe\u0301 \u0301x .\u0301 a\u0308\u0308b नमस्ते", "\u0301", " \u0301\u0301",
}

func TestScannerMatchesRegexp2(t *testing.T) {
	t.Parallel()
	for name, pattern := range patterns {
		g := gptScanners[pattern]
		for _, s := range splitSamples {
			want := regexPieces(t, pattern, s)
			if diff := cmp.Diff(want, pieces(g, s)); diff != "" {
				t.Errorf("%s %q: scanner differs from regexp2 (-regexp2 +scanner):\n%s", name, s, diff)
			}
		}
	}
}

func TestScannerSplits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, pattern, text string
		want                []string
	}{
		{"space run keeps last space", PatternQwen, "a   b", []string{"a", "  ", " b"}},
		{"trailing spaces", PatternQwen, "a   ", []string{"a", "   "}},
		{"newline run", PatternQwen, "a \n\n b", []string{"a", " \n\n", " b"}},
		{"punctuation prefix", PatternQwen, "x.word", []string{"x", ".word"}},
		{"punctuation takes newlines", PatternQwen, "end.\n\nNext", []string{"end", ".\n\n", "Next"}},
		{"digits alone", PatternQwen, "1234", []string{"1", "2", "3", "4"}},
		{"digits in threes", PatternLlama3, "1234567", []string{"123", "456", "7"}},
		{"gpt2 digits with space", PatternGPT2, "a 1234", []string{"a", " 1234"}},
		{"contraction any case", PatternQwen, "IT'LL", []string{"IT", "'LL"}},
		{"gpt2 contraction case-sensitive", PatternGPT2, "IT'LL", []string{"IT", "'", "LL"}},
		{"tab before word", PatternQwen, "\tword", []string{"\tword"}},
		{"gpt2 tab before word", PatternGPT2, "\tword", []string{"\t", "word"}},
		{"long s folds to s", PatternQwen, "x'ſ", []string{"x", "'ſ"}},
		{"invalid byte is punctuation", PatternQwen, "a\xffb", []string{"a", "\xffb"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, pieces(gptScanners[tt.pattern], tt.text)); diff != "" {
				t.Errorf("split %q (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

// FuzzScanner checks the hand-written scanner against regexp2 on valid
// UTF-8 (regexp2 works on runes, so invalid bytes cannot be compared).
func FuzzScanner(f *testing.F) {
	for _, s := range splitSamples {
		f.Add(s)
	}
	res := map[string]*regexp2.Regexp{}
	for _, p := range patterns {
		res[p] = regexp2.MustCompile(p, regexp2.None)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		for p, re := range res {
			want := pieces(regexFinder{re}, s)
			if got := pieces(gptScanners[p], s); !cmp.Equal(want, got) {
				t.Fatalf("pattern %q, text %q:\nregexp2 %q\nscanner %q", p, s, want, got)
			}
		}
	})
}

func TestSplitBehaviors(t *testing.T) {
	t.Parallel()
	const text = "the-final--countdown"
	tests := []struct {
		behavior splitBehavior
		invert   bool
		want     []string
	}{
		{behaviorIsolated, false, []string{"the", "-", "final", "-", "-", "countdown"}},
		{behaviorRemoved, false, []string{"the", "final", "countdown"}},
		{behaviorMergedWithPrevious, false, []string{"the-", "final-", "-", "countdown"}},
		{behaviorMergedWithNext, false, []string{"the", "-final", "-", "-countdown"}},
		{behaviorContiguous, false, []string{"the", "-", "final", "--", "countdown"}},
		{behaviorRemoved, true, []string{"-", "-", "-"}},
	}
	for _, tt := range tests {
		st := &patternSplit{finder: literalFinder("-"), behavior: tt.behavior, invert: tt.invert}
		if diff := cmp.Diff(tt.want, st.split(text, nil)); diff != "" {
			t.Errorf("behavior %d invert %v (-want +got):\n%s", tt.behavior, tt.invert, diff)
		}
	}
}

// TestOtherModelPatterns compiles split patterns of other byte-level BPE
// tokenizers (DeepSeek V3's three splits, GPT-4o's o200k) on the regexp2
// fallback and checks that their pieces cover the text.
func TestOtherModelPatterns(t *testing.T) {
	t.Parallel()
	for _, pattern := range []string{
		`\p{N}{1,3}`,
		`[一-龥\u3040-ゟ゠-ヿ]+`,
		`[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_` + "`" + `{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
		`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
	} {
		f, err := newRegexFinder(pattern)
		if err != nil {
			t.Fatalf("%s: %v", pattern, err)
		}
		for _, s := range splitSamples {
			if got := strings.Join(pieces(f, s), ""); got != s {
				t.Errorf("%s: pieces of %q join to %q", pattern, s, got)
			}
		}
	}
}
