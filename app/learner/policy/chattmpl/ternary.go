package chattmpl

import (
	"regexp"
	"strings"
)

// gonja parses an inline conditional (A if C else B) only as the whole
// expression of {{ }} or {% set %}; Jinja allows it anywhere, and chat
// templates use it inside parentheses, brackets and call arguments. Before
// compiling, rewriteTernaries turns each one found inside brackets into
// ((C) and [(A)] or [(B)])|first, which gonja evaluates the same way and
// as lazily (only the chosen branch runs). A missing else gives ''.

// tagStart finds the start of a tag, a comment or a raw block.
var tagStart = regexp.MustCompile(`\{\{|\{%-?\s*raw\s*-?%\}|\{%|\{#`)

var rawEnd = regexp.MustCompile(`\{%-?\s*endraw\s*-?%\}`)

// rewriteTernaries rewrites the inline conditionals inside brackets of
// every tag of a template source.
func rewriteTernaries(src string) string {
	var b strings.Builder
	for {
		loc := tagStart.FindStringIndex(src)
		if loc == nil {
			b.WriteString(src)
			return b.String()
		}
		open := src[loc[0]:loc[1]]
		b.WriteString(src[:loc[1]])
		src = src[loc[1]:]
		var end int
		switch {
		case open == "{#":
			end = commentEnd(src)
		case open != "{{" && open != "{%": // a raw block
			end = len(src)
			if m := rawEnd.FindStringIndex(src); m != nil {
				end = m[0]
			}
		default:
			close := "}}"
			if open == "{%" {
				close = "%}"
			}
			end = tagEnd(src, close)
			b.WriteString(rewriteBody(src[:end]))
			src = src[end:]
			continue
		}
		b.WriteString(src[:end])
		src = src[end:]
	}
}

// rewriteBody rewrites one tag body, keeping its outer whitespace.
func rewriteBody(body string) string {
	toks := tokenize(body)
	if !hasBracketedIf(body, toks) {
		return body
	}
	first, last := toks[0].start, toks[len(toks)-1].end
	return body[:first] + splitBraces(rewriteExpr(body, toks, false)) + body[last:]
}

// hasBracketedIf reports whether an "if" stands inside brackets.
func hasBracketedIf(body string, toks []tok) bool {
	depth := 0
	for _, t := range toks {
		switch t.kind {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case 'n':
			if depth > 0 && body[t.start:t.end] == "if" {
				return true
			}
		}
	}
	return false
}

func commentEnd(s string) int {
	if i := strings.Index(s, "#}"); i >= 0 {
		return i
	}
	return len(s)
}

// tagEnd returns where the tag body ends: at close outside string
// literals and brackets (so that a dict literal's "}}" does not end a
// {{ }} tag, as in Jinja), else at the first close outside strings, else
// at the end of s.
func tagEnd(s, close string) int {
	depth, first := 0, -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '"' || c == '\'' {
			i = stringEnd(s, i) - 1
			continue
		}
		if strings.HasPrefix(s[i:], close) {
			if depth <= 0 {
				return i
			}
			if first < 0 {
				first = i
			}
		}
		switch c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		}
	}
	if first >= 0 {
		return first
	}
	return len(s)
}

// splitBraces puts a space between two closing braces outside string
// literals, where gonja's lexer would see the end of a {{ }} tag.
func splitBraces(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '"' || c == '\'' {
			j := stringEnd(s, i)
			b.WriteString(s[i:j])
			i = j - 1
			continue
		}
		b.WriteByte(c)
		if c == '}' && i+1 < len(s) && s[i+1] == '}' {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// stringEnd returns the index just past the string literal at i.
func stringEnd(s string, i int) int {
	quote := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case quote:
			return j + 1
		}
	}
	return len(s)
}

// tok is a token of a tag body: a byte range and its kind.
type tok struct {
	start, end int
	kind       byte // 's' string, 'n' name, '(' '[' '{' ')' ']' '}' ',' ':' '=', 'o' other
}

func tokenize(s string) []tok {
	var toks []tok
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '"' || c == '\'':
			j := stringEnd(s, i)
			toks = append(toks, tok{i, j, 's'})
			i = j
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i + 1
			for j < len(s) && (s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			toks = append(toks, tok{i, j, 'n'})
			i = j
		case strings.IndexByte("([{)]},:", c) >= 0:
			toks = append(toks, tok{i, i + 1, c})
			i++
		case c == '=' && !(i+1 < len(s) && s[i+1] == '=') && !(i > 0 && strings.IndexByte("=!<>", s[i-1]) >= 0):
			toks = append(toks, tok{i, i + 1, '='})
			i++
		default:
			toks = append(toks, tok{i, i + 1, 'o'})
			i++
		}
	}
	return toks
}

// rewriteExpr returns the text of toks (a slice of s) with the
// conditionals inside brackets rewritten; inGroup says whether toks is
// one element of a bracketed list, where a conditional is rewritten too.
func rewriteExpr(s string, toks []tok, inGroup bool) string {
	if len(toks) == 0 {
		return ""
	}
	if inGroup {
		if k := topLevel(toks, "if", s); k >= 0 {
			return ternary(s, toks, k)
		}
	}
	var b strings.Builder
	prev := toks[0].start
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind != '(' && t.kind != '[' && t.kind != '{' {
			continue
		}
		close := matching(toks, i)
		b.WriteString(s[prev:t.end])
		b.WriteString(rewriteGroup(s, toks[i+1:close]))
		if close < len(toks) {
			prev = toks[close].start
		} else {
			prev = toks[len(toks)-1].end
		}
		i = close
	}
	b.WriteString(s[prev:toks[len(toks)-1].end])
	return b.String()
}

// rewriteGroup rewrites the elements of a bracketed list, separated by
// top-level commas and colons; a keyword argument keeps its name.
func rewriteGroup(s string, toks []tok) string {
	var b strings.Builder
	start := 0
	for i := 0; i <= len(toks); i++ {
		if i < len(toks) && toks[i].kind != ',' && toks[i].kind != ':' {
			if k := toks[i].kind; k == '(' || k == '[' || k == '{' {
				i = matching(toks, i)
			}
			continue
		}
		elem := toks[start:i]
		if len(elem) >= 2 && elem[0].kind == 'n' && elem[1].kind == '=' {
			b.WriteString(s[elem[0].start:elem[1].end] + " ")
			elem = elem[2:]
		}
		b.WriteString(rewriteExpr(s, elem, true))
		if i < len(toks) {
			b.WriteString(s[toks[i].start:toks[i].end] + " ")
		}
		start = i + 1
	}
	return b.String()
}

// ternary rewrites toks, whose top-level "if" is at k.
func ternary(s string, toks []tok, k int) string {
	then := rewriteExpr(s, toks[:k], false)
	rest := toks[k+1:]
	cond, alt := rest, "''"
	if e := topLevel(rest, "else", s); e >= 0 {
		cond = rest[:e]
		alt = rewriteExpr(s, rest[e+1:], true) // may itself be a conditional
	}
	return "((" + rewriteExpr(s, cond, false) + ") and [(" + then + ")] or [(" + alt + ")])|first"
}

// topLevel returns the index of the first name tok equal to word outside
// brackets, or -1.
func topLevel(toks []tok, word, s string) int {
	for i := 0; i < len(toks); i++ {
		switch toks[i].kind {
		case '(', '[', '{':
			i = matching(toks, i)
		case 'n':
			if s[toks[i].start:toks[i].end] == word {
				return i
			}
		}
	}
	return -1
}

// matching returns the index of the bracket closing the one at i, or
// len(toks) if it is not closed.
func matching(toks []tok, i int) int {
	depth := 0
	for j := i; j < len(toks); j++ {
		switch toks[j].kind {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return len(toks)
}
