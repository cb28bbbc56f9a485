package tokenizer

import (
	"unicode"
	"unicode/utf8"
)

// PatternKimi is the split pattern (pat_str) of Moonshot's Kimi K2, K2.5
// and K2.6 tokenizers, the eight alternatives of TikTokenTokenizer.pat_str
// in the model repos' tokenization_kimi.py joined with "|" (read in the
// copies at troy12x/quasar-kimi and PabloRaka/bear, tokenization_kimi.py;
// lightseekorg/smg crates/tokenizer/src/kimi_k2_tokenizer.rs quotes the
// same string for all three models). It runs on tiktoken's Rust regex
// engine, where [A&&[^B]] is the class A minus B and \p{Han} is the Han
// script (Script, not Script_Extensions: tiktoken puts U+3005 and U+3007,
// Script=Han, in a Han run and U+302A, Script=Inherited with Han in its
// extensions, out of it; checked with the tiktoken npm package 1.0.22).
const PatternKimi = `[\p{Han}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]*[\p{Ll}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]+[\p{Ll}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// kimiScanner splits text as PatternKimi does. Go's regexp has neither
// class intersection nor the lookahead, so each alternative is a method,
// tried in the pattern's order, with the backtracking the regex engine
// would do written out.
type kimiScanner struct{}

// kimiSpaces reuses the GPT scanner's contraction and whitespace
// alternatives, which PatternKimi shares with Qwen's pattern.
var kimiSpaces = &gptScanner{foldCase: true, newlineRun: true}

// match returns the end of the match that starts at i.
func (kimiScanner) match(s string, i int) int {
	r, n := decodeRune(s, i)
	if isHan(r) { // [\p{Han}]+
		end := i + n
		for end < len(s) {
			r2, n2 := decodeRune(s, end)
			if !isHan(r2) {
				break
			}
			end += n2
		}
		return end
	}
	// The two letter alternatives, each first with the optional leading
	// [^\r\n\p{L}\p{N}] and then without it, as the regex backtracks.
	for _, run := range [...]func(string, int) int{kimiLowerRun, kimiUpperRun} {
		if kimiPrefix(r, n) {
			if end := run(s, i+n); end > 0 {
				return end
			}
		}
		if end := run(s, i); end > 0 {
			return end
		}
	}
	if isNumber(r) { // \p{N}{1,3}
		end, count := i+n, 1
		for ; end < len(s) && count < 3; count++ {
			r2, n2 := decodeRune(s, end)
			if !isNumber(r2) {
				break
			}
			end += n2
		}
		return end
	}
	if end := kimiPunct(s, i, r, n); end > 0 {
		return end
	}
	return kimiSpaces.space(s, i)
}

// kimiLowerRun matches U*L+ and an optional contraction at p, where U is
// [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]] and L is
// [\p{Ll}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]], and returns the end, or 0. U*
// takes the longest run; if no L follows it, the regex gives back runes
// until the last rune of the run that is also an L (Lm, Lo or a mark)
// becomes the one-rune L+.
func kimiLowerRun(s string, p int) int {
	k, lastL := p, -1
	for k < len(s) {
		r, n := decodeRune(s, k)
		if !kimiUpper(r) {
			break
		}
		if kimiLower(r) {
			lastL = k + n
		}
		k += n
	}
	end := k
	switch r, n := decodeRune(s, k); {
	case n > 0 && kimiLower(r):
		end = kimiLowerTail(s, k)
	case lastL > 0:
		end = lastL
	default:
		return 0
	}
	return kimiContraction(s, end)
}

// kimiUpperRun matches U+L* and an optional contraction at p and returns
// the end, or 0.
func kimiUpperRun(s string, p int) int {
	k := p
	for k < len(s) {
		r, n := decodeRune(s, k)
		if !kimiUpper(r) {
			break
		}
		k += n
	}
	if k == p {
		return 0
	}
	return kimiContraction(s, kimiLowerTail(s, k))
}

// kimiLowerTail returns the end of the run of L runes at k.
func kimiLowerTail(s string, k int) int {
	for k < len(s) {
		r, n := decodeRune(s, k)
		if !kimiLower(r) {
			break
		}
		k += n
	}
	return k
}

// kimiContraction extends a letter run ending at end by (?i:'s|'t|'re|
// 've|'m|'ll|'d), when one follows.
func kimiContraction(s string, end int) int {
	if end < len(s) && s[end] == '\'' {
		if e := kimiSpaces.contraction(s, end+1); e > 0 {
			return e
		}
	}
	return end
}

// kimiPunct matches ' ?[^\s\p{L}\p{N}]+[\r\n]*'; marks are not letters
// here, unlike in the letter alternatives.
func kimiPunct(s string, i int, r rune, n int) int {
	if r == ' ' {
		r2, n2 := decodeRune(s, i+n)
		if !kimiIsPunct(r2, n2) {
			return 0
		}
		i, r, n = i+n, r2, n2
	}
	if !kimiIsPunct(r, n) {
		return 0
	}
	end := i + n
	for end < len(s) {
		r2, n2 := decodeRune(s, end)
		if !kimiIsPunct(r2, n2) {
			break
		}
		end += n2
	}
	for end < len(s) && (s[end] == '\r' || s[end] == '\n') {
		end++
	}
	return end
}

func kimiIsPunct(r rune, n int) bool {
	return n > 0 && !unicode.IsSpace(r) && !isLetter(r) && !isNumber(r)
}

// kimiPrefix reports whether a rune of width n is [^\r\n\p{L}\p{N}].
func kimiPrefix(r rune, n int) bool {
	return n > 0 && r != '\r' && r != '\n' && !isLetter(r) && !isNumber(r)
}

func isHan(r rune) bool {
	return r >= 0x2E80 && unicode.Is(unicode.Han, r)
}

// kimiUpper reports whether r is in [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]].
func kimiUpper(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'A' && r <= 'Z'
	}
	return !isHan(r) && (unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M))
}

// kimiLower reports whether r is in [\p{Ll}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]].
func kimiLower(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z'
	}
	return !isHan(r) && (unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo, unicode.M))
}

// find reports the matches of PatternKimi in s, which tile s.
func (k kimiScanner) find(s string, dst []span) []span {
	for i := 0; i < len(s); {
		end := k.match(s, i)
		dst = append(dst, span{i, end, true})
		i = end
	}
	return dst
}
