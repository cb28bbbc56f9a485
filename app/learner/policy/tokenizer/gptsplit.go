package tokenizer

import (
	"unicode"
	"unicode/utf8"
)

// The split patterns the scanner reproduces, exactly as tokenizer.json
// files spell them.
const (
	// PatternGPT2 is GPT-2's pattern, used by ByteLevel with use_regex.
	PatternGPT2 = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`
	// PatternQwen is the GPT-4 style pattern of Qwen2 and Qwen3.
	PatternQwen = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	// PatternLlama3 is Qwen's pattern with digits in runs of up to three.
	PatternLlama3 = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	// PatternQwen35 is Qwen3.5's: combining marks (\p{M}) count as letters.
	PatternQwen35 = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
)

// gptScanner splits text the way one of the GPT-family patterns does. The
// patterns differ only in a few switches; each method below is one
// alternative of the pattern, tried in the pattern's order.
type gptScanner struct {
	foldCase     bool // contractions match case-insensitively: (?i:'s|...)
	anyPrefix    bool // letters take one leading [^\r\n\p{L}\p{N}], not only ' '
	maxDigits    int  // digits per piece; 0 means unlimited
	spaceDigits  bool // digits take a leading ' ' ( ?\p{N}+)
	punctNewline bool // punctuation takes trailing [\r\n]*
	newlineRun   bool // the \s*[\r\n]+ alternative exists
	marks        bool // combining marks are letters: [\p{L}\p{M}]+
}

// gptScanners maps each pattern the scanner reproduces to its switches.
var gptScanners = map[string]*gptScanner{
	PatternGPT2:   {spaceDigits: true},
	PatternQwen:   {foldCase: true, anyPrefix: true, maxDigits: 1, punctNewline: true, newlineRun: true},
	PatternLlama3: {foldCase: true, anyPrefix: true, maxDigits: 3, punctNewline: true, newlineRun: true},
	PatternQwen35: {foldCase: true, anyPrefix: true, maxDigits: 1, punctNewline: true, newlineRun: true, marks: true},
}

// find reports the matches of the pattern in s as byte ranges. The
// patterns match every rune of any text, so the matches tile s.
func (g *gptScanner) find(s string, dst []span) []span {
	for i := 0; i < len(s); {
		end := g.match(s, i)
		dst = append(dst, span{i, end, true})
		i = end
	}
	return dst
}

// appendPieces appends the matches of the pattern in s to dst.
func (g *gptScanner) appendPieces(s string, dst []string) []string {
	for i := 0; i < len(s); {
		end := g.match(s, i)
		dst = append(dst, s[i:end])
		i = end
	}
	return dst
}

// match returns the end of the match that starts at i.
func (g *gptScanner) match(s string, i int) int {
	r, n := decodeRune(s, i)
	if r == '\'' {
		if end := g.contraction(s, i+n); end > 0 {
			return end
		}
	}
	if end := g.letters(s, i, r, n); end > 0 {
		return end
	}
	if end := g.digits(s, i, r, n); end > 0 {
		return end
	}
	if end := g.punct(s, i, r, n); end > 0 {
		return end
	}
	return g.space(s, i)
}

// contraction matches the letters of 's 't 're 've 'm 'll 'd after the
// apostrophe at j-1 and returns the end, or 0.
func (g *gptScanner) contraction(s string, j int) int {
	for _, suffix := range [...]string{"s", "t", "re", "ve", "m", "ll", "d"} {
		if end := g.matchFold(s, j, suffix); end > 0 {
			return end
		}
	}
	return 0
}

// matchFold matches the ASCII word lit at i, case-insensitively when the
// pattern says so (with Unicode simple case folding, so 'ſ' matches 's').
func (g *gptScanner) matchFold(s string, i int, lit string) int {
	for k := 0; k < len(lit); k++ {
		r, n := decodeRune(s, i)
		if n == 0 {
			return 0
		}
		want := rune(lit[k])
		if r != want && !(g.foldCase && foldsTo(r, want)) {
			return 0
		}
		i += n
	}
	return i
}

// foldsTo reports whether r is another case of the lower-case letter want.
func foldsTo(r, want rune) bool {
	for f := unicode.SimpleFold(want); f != want; f = unicode.SimpleFold(f) {
		if f == r {
			return true
		}
	}
	return false
}

// letters matches [^\r\n\p{L}\p{N}]?\p{L}+ (or ' ?\p{L}+').
func (g *gptScanner) letters(s string, i int, r rune, n int) int {
	if g.isWord(r) {
		return g.letterRun(s, i+n)
	}
	prefix := r == ' '
	if g.anyPrefix {
		prefix = r != '\r' && r != '\n' && !isNumber(r) && n > 0
	}
	if prefix {
		if r2, n2 := decodeRune(s, i+n); g.isWord(r2) {
			return g.letterRun(s, i+n+n2)
		}
	}
	return 0
}

// isWord reports whether r belongs in a run of letters.
func (g *gptScanner) isWord(r rune) bool {
	return isLetter(r) || g.marks && r >= utf8.RuneSelf && unicode.Is(unicode.M, r)
}

// letterRun returns the end of the run of letters starting at i.
func (g *gptScanner) letterRun(s string, i int) int {
	for i < len(s) {
		r, n := decodeRune(s, i)
		if !g.isWord(r) {
			break
		}
		i += n
	}
	return i
}

// digits matches \p{N}, \p{N}{1,3} or ' ?\p{N}+'.
func (g *gptScanner) digits(s string, i int, r rune, n int) int {
	if g.spaceDigits && r == ' ' {
		r2, n2 := decodeRune(s, i+n)
		if !isNumber(r2) {
			return 0
		}
		i, r, n = i+n, r2, n2
	}
	if !isNumber(r) {
		return 0
	}
	end, count := i+n, 1
	for end < len(s) && (g.maxDigits == 0 || count < g.maxDigits) {
		r2, n2 := decodeRune(s, end)
		if !isNumber(r2) {
			break
		}
		end += n2
		count++
	}
	return end
}

// punct matches ' ?[^\s\p{L}\p{N}]+' and, where the pattern has it, the
// trailing [\r\n]*.
func (g *gptScanner) punct(s string, i int, r rune, n int) int {
	if r == ' ' {
		r2, n2 := decodeRune(s, i+n)
		if !g.isPunct(r2, n2) {
			return 0
		}
		i, r, n = i+n, r2, n2
	}
	if !g.isPunct(r, n) {
		return 0
	}
	end := i + n
	for end < len(s) {
		r2, n2 := decodeRune(s, end)
		if !g.isPunct(r2, n2) {
			break
		}
		end += n2
	}
	for g.punctNewline && end < len(s) && (s[end] == '\r' || s[end] == '\n') {
		end++
	}
	return end
}

// space matches the whitespace alternatives \s*[\r\n]+, \s+(?!\S) and
// \s+ at i, where a whitespace rune starts.
func (g *gptScanner) space(s string, i int) int {
	end, lastNewline, prev, count := i, -1, i, 0
	for end < len(s) {
		r, n := decodeRune(s, end)
		if !unicode.IsSpace(r) {
			break
		}
		if r == '\r' || r == '\n' {
			lastNewline = end
		}
		prev = end
		end += n
		count++
	}
	switch {
	case g.newlineRun && lastNewline >= 0:
		return lastNewline + 1
	case end == len(s) || count == 1:
		return end
	default:
		return prev // leave the last space to the next piece
	}
}

// decodeRune decodes the rune at i. An invalid byte decodes as
// utf8.RuneError of width 1 and counts as punctuation; at the end of s the
// width is 0.
func decodeRune(s string, i int) (rune, int) {
	if i >= len(s) {
		return -1, 0
	}
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

func isLetter(r rune) bool {
	if r < utf8.RuneSelf {
		return (r|0x20) >= 'a' && (r|0x20) <= 'z'
	}
	return unicode.IsLetter(r)
}

func isNumber(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= '0' && r <= '9'
	}
	return unicode.IsNumber(r)
}

// isPunct reports whether the rune of width n is [^\s\p{L}\p{N}] (and,
// with marks, not \p{M}).
func (g *gptScanner) isPunct(r rune, n int) bool {
	return n > 0 && !unicode.IsSpace(r) && !g.isWord(r) && !isNumber(r)
}
