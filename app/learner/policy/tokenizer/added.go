package tokenizer

import (
	"sort"
	"unicode"
	"unicode/utf8"
)

// AddedToken is a token matched in the text as a whole before the text is
// pre-tokenised, such as <|im_start|> or <tool_call>.
type AddedToken struct {
	ID         int    `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

// addedMatcher finds added tokens in text, leftmost first and, among
// those starting at the same place, longest first.
type addedMatcher struct {
	tokens  []AddedToken
	byFirst [256][]int // indices into tokens by first byte, longest first
}

func newAddedMatcher(tokens []AddedToken) *addedMatcher {
	m := &addedMatcher{}
	for _, t := range tokens {
		if t.Content == "" {
			continue
		}
		m.tokens = append(m.tokens, t)
		b := t.Content[0]
		m.byFirst[b] = append(m.byFirst[b], len(m.tokens)-1)
	}
	for b := range m.byFirst {
		list := m.byFirst[b]
		sort.SliceStable(list, func(i, j int) bool {
			return len(m.tokens[list[i]].Content) > len(m.tokens[list[j]].Content)
		})
	}
	return m
}

// segment is a piece of text that is either an added token (id >= 0) or
// plain text (id < 0).
type segment struct {
	text string
	id   int
}

// split cuts text into plain segments and added tokens. Whitespace that an
// lstrip or rstrip token absorbs belongs to no segment.
func (m *addedMatcher) split(text string, dst []segment) []segment {
	if m == nil || len(m.tokens) == 0 {
		return append(dst, segment{text, -1})
	}
	plain := 0 // start of the pending plain text
	for i := 0; i < len(text); {
		t := m.longestAt(text, i)
		if t == nil {
			i++
			continue
		}
		start, end := i, i+len(t.Content)
		if t.LStrip {
			start = trimSpaceLeft(text, plain, start)
		}
		if t.RStrip {
			end = trimSpaceRight(text, end)
		}
		if start > plain {
			dst = append(dst, segment{text[plain:start], -1})
		}
		dst = append(dst, segment{t.Content, t.ID})
		plain, i = end, end
	}
	if plain < len(text) {
		dst = append(dst, segment{text[plain:], -1})
	}
	return dst
}

// longestAt returns the longest token that matches at i, or nil.
func (m *addedMatcher) longestAt(text string, i int) *AddedToken {
	for _, k := range m.byFirst[text[i]] {
		t := &m.tokens[k]
		if len(text)-i < len(t.Content) || text[i:i+len(t.Content)] != t.Content {
			continue
		}
		if t.SingleWord && !alone(text, i, i+len(t.Content)) {
			continue
		}
		return t
	}
	return nil
}

// alone reports whether text[start:end] has no word character on either
// side.
func alone(text string, start, end int) bool {
	if before, _ := utf8.DecodeLastRuneInString(text[:start]); start > 0 && isWordRune(before) {
		return false
	}
	if after, _ := utf8.DecodeRuneInString(text[end:]); end < len(text) && isWordRune(after) {
		return false
	}
	return true
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.M, r)
}

// trimSpaceLeft moves start left over whitespace, not past floor.
func trimSpaceLeft(text string, floor, start int) int {
	for start > floor {
		r, n := utf8.DecodeLastRuneInString(text[floor:start])
		if !unicode.IsSpace(r) {
			break
		}
		start -= n
	}
	return start
}

// trimSpaceRight moves end right over whitespace.
func trimSpaceRight(text string, end int) int {
	for end < len(text) {
		r, n := utf8.DecodeRuneInString(text[end:])
		if !unicode.IsSpace(r) {
			break
		}
		end += n
	}
	return end
}
