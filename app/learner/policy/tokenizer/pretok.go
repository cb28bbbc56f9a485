package tokenizer

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// span is a byte range of a string; match says whether a pattern matched
// it (true) or it lies between matches (false).
type span struct {
	start, end int
	match      bool
}

// finder reports the matches of a split pattern in s, in order.
type finder interface {
	find(s string, dst []span) []span
}

// scanner is a finder for a pattern whose matches tile every text, which
// it finds one at a time: match returns the end of the match at i. The
// tokenizer encodes each piece as the scanner finds it.
type scanner interface {
	finder
	match(s string, i int) int
}

// splitStep is one pre-tokeniser step: it cuts piece into smaller pieces
// and appends them to dst.
type splitStep interface {
	split(piece string, dst []string) []string
}

// splitBehavior is what a Split pre-tokeniser does with the pattern's
// matches (Hugging Face's SplitDelimiterBehavior).
type splitBehavior int

const (
	behaviorIsolated splitBehavior = iota
	behaviorRemoved
	behaviorMergedWithPrevious
	behaviorMergedWithNext
	behaviorContiguous
)

var splitBehaviors = map[string]splitBehavior{
	"Isolated":           behaviorIsolated,
	"Removed":            behaviorRemoved,
	"MergedWithPrevious": behaviorMergedWithPrevious,
	"MergedWithNext":     behaviorMergedWithNext,
	"Contiguous":         behaviorContiguous,
}

// patternSplit is the Split pre-tokeniser.
type patternSplit struct {
	finder   finder
	behavior splitBehavior
	invert   bool
}

func (p *patternSplit) split(piece string, dst []string) []string {
	if g, ok := p.finder.(*gptScanner); ok && p.behavior == behaviorIsolated && !p.invert {
		return g.appendPieces(piece, dst) // the common case, without spans
	}
	var buf [64]span
	spans := tile(piece, p.finder.find(piece, buf[:0]), p.invert)
	switch p.behavior {
	case behaviorRemoved:
		for _, sp := range spans {
			if !sp.match {
				dst = append(dst, piece[sp.start:sp.end])
			}
		}
		return dst
	case behaviorIsolated:
		for _, sp := range spans {
			dst = append(dst, piece[sp.start:sp.end])
		}
		return dst
	}
	return appendMerged(piece, spans, p.behavior, dst)
}

// appendMerged appends the pieces of the merging behaviours: a match joins
// the piece before it, the piece after it, or the matches next to it.
func appendMerged(piece string, spans []span, b splitBehavior, dst []string) []string {
	start := -1 // start of the piece being built, -1 if none
	for k, sp := range spans {
		if start < 0 {
			start = sp.start
		}
		var cut bool
		switch b {
		case behaviorMergedWithPrevious:
			cut = sp.match || k+1 == len(spans) || !spans[k+1].match
		case behaviorMergedWithNext:
			cut = !sp.match || k+1 == len(spans) || spans[k+1].match
		default: // contiguous
			cut = k+1 == len(spans) || spans[k+1].match != sp.match || !sp.match
		}
		if cut {
			dst = append(dst, piece[start:sp.end])
			start = -1
		}
	}
	return dst
}

// tile fills the gaps between matches so that the spans cover s, drops
// empty matches, and with invert swaps what counts as a match.
func tile(s string, matches []span, invert bool) []span {
	out := make([]span, 0, 2*len(matches)+1)
	prev := 0
	for _, m := range matches {
		if m.start > prev {
			out = append(out, span{prev, m.start, invert})
		}
		if m.end > m.start {
			out = append(out, span{m.start, m.end, !invert})
		}
		prev = m.end
	}
	if prev < len(s) {
		out = append(out, span{prev, len(s), invert})
	}
	return out
}

// literalFinder finds a plain string (Split with a String pattern).
type literalFinder string

func (l literalFinder) find(s string, dst []span) []span {
	if l == "" {
		return dst
	}
	for i := 0; ; {
		k := strings.Index(s[i:], string(l))
		if k < 0 {
			return dst
		}
		dst = append(dst, span{i + k, i + k + len(l), true})
		i += k + len(l)
	}
}

// regexFinder finds an arbitrary pattern with regexp2, which supports the
// lookarounds and Unicode classes of Hugging Face's Oniguruma patterns.
type regexFinder struct {
	re *regexp2.Regexp
}

func newRegexFinder(pattern string) (finder, error) {
	if g, ok := gptScanners[pattern]; ok {
		return g, nil
	}
	if pattern == PatternKimi {
		return kimiScanner{}, nil
	}
	re, err := regexp2.Compile(pattern, regexp2.None)
	if err != nil {
		return nil, fmt.Errorf("compile split pattern %q: %w", pattern, err)
	}
	return regexFinder{re}, nil
}

func (f regexFinder) find(s string, dst []span) []span {
	runes := []rune(s)
	// offs[k] is the byte offset of rune k.
	offs := make([]int, 0, len(runes)+1)
	for i := range s {
		offs = append(offs, i)
	}
	offs = append(offs, len(s))
	m, err := f.re.FindRunesMatch(runes)
	for err == nil && m != nil {
		dst = append(dst, span{offs[m.Index], offs[m.Index+m.Length], true})
		m, err = f.re.FindNextMatch(m)
	}
	return dst
}

// byteLevelStep is the ByteLevel pre-tokeniser. The mapping of bytes to
// runes happens in the model; here it only adds the prefix space and, with
// use_regex, splits with GPT-2's pattern.
type byteLevelStep struct {
	addPrefixSpace bool
	useRegex       bool
}

func (b byteLevelStep) split(piece string, dst []string) []string {
	if b.addPrefixSpace && !strings.HasPrefix(piece, " ") {
		piece = " " + piece
	}
	if !b.useRegex {
		return append(dst, piece)
	}
	var buf [64]span
	for _, sp := range gptScanners[PatternGPT2].find(piece, buf[:0]) {
		dst = append(dst, piece[sp.start:sp.end])
	}
	return dst
}

// digitsStep is the Digits pre-tokeniser: digits apart from the rest,
// each alone or in runs.
type digitsStep struct {
	individual bool
}

func (d digitsStep) split(piece string, dst []string) []string {
	start := 0
	for i := 0; i < len(piece); {
		r, n := utf8.DecodeRuneInString(piece[i:])
		if isNumber(r) {
			if i > start {
				dst = append(dst, piece[start:i])
			}
			end := i + n
			for !d.individual && end < len(piece) {
				r2, n2 := utf8.DecodeRuneInString(piece[end:])
				if !isNumber(r2) {
					break
				}
				end += n2
			}
			dst = append(dst, piece[i:end])
			start, i = end, end
			continue
		}
		i += n
	}
	if start < len(piece) {
		dst = append(dst, piece[start:])
	}
	return dst
}

// preTokenize runs the steps over a text segment and appends the pieces
// to dst.
func preTokenize(steps []splitStep, segment string, dst []string) []string {
	switch len(steps) {
	case 0:
		return append(dst, segment)
	case 1:
		return steps[0].split(segment, dst)
	}
	pieces := []string{segment}
	var next []string
	for _, st := range steps {
		next = next[:0]
		for _, p := range pieces {
			next = st.split(p, next)
		}
		pieces, next = next, pieces
	}
	return append(dst, pieces...)
}
