package rawjson

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/tidwall/gjson"
)

// The scanner walks JSON already known to be valid (Valid passed on it or
// on the document it was cut from) and finds where values end without
// decoding them: a string is skipped with bytes.IndexByte, which runs at
// memory speed, where gjson's ForEach unescapes every string it passes,
// tool results and file contents included. FuzzScanAgrees holds it to
// gjson's ForEach; on other input it still ends (FuzzScanAnyInput).

// isSpace reports JSON whitespace.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// skipSpace returns the index of the first non-space byte of b at or after i.
func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// stringEnd returns the index just past the string whose opening quote is
// b[i]: the first quote after it not escaped by an odd run of backslashes.
func stringEnd(b []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b)
		}
		j += k
		n := 0
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
		j++
	}
}

// valueEnd returns the index just past the value that starts at b[i].
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = stringEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && !isSpace(b[j]) {
		j++
	}
	return j
}

// EachElement calls fn with each element of raw, a valid JSON array (with
// leading space allowed), and the element's offset in raw, until fn returns
// false. It reports false when raw is not an array.
func EachElement(raw []byte, fn func(v []byte, at int) bool) bool {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return false
	}
	for i = skipSpace(raw, i+1); i < len(raw) && raw[i] != ']'; {
		end := valueEnd(raw, i)
		if end == i || !fn(raw[i:end:end], i) {
			break // end == i only in invalid JSON: stop rather than loop
		}
		if i = skipSpace(raw, end); i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return true
}

// EachMember calls fn with each member of raw, a valid JSON object (with
// leading space allowed): its key as written, quotes and escapes included
// (see Key), its value and the value's offset in raw, until fn returns
// false. It reports false when raw is not an object.
func EachMember(raw []byte, fn func(key, v []byte, at int) bool) bool {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	for i = skipSpace(raw, i+1); i < len(raw) && raw[i] == '"'; {
		kend := stringEnd(raw, i)
		key := raw[i:kend:kend]
		j := skipSpace(raw, skipSpace(raw, kend)+1) // past the colon
		if j >= len(raw) {
			break
		}
		end := valueEnd(raw, j)
		if !fn(key, raw[j:end:end], j) {
			break
		}
		if i = skipSpace(raw, end); i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return true
}

// Key returns the name a raw key (as EachMember gives it) spells: a view
// of the key's bytes when it has no escapes, valid while they are.
func Key(raw []byte) string {
	if len(raw) < 2 {
		return ""
	}
	return unquote(raw)
}

// Result returns the gjson view of v, a value EachMember or EachElement
// gave at offset at: what gjson's ForEach would have given for it, Index
// included. Strings are unescaped here, so call it only for the values
// whose text is read.
func Result(v []byte, at int) gjson.Result {
	if len(v) == 0 {
		return gjson.Result{}
	}
	raw := unsafe.String(&v[0], len(v))
	if v[0] == '"' && len(v) >= 2 {
		return gjson.Result{Type: gjson.String, Raw: raw, Str: unquote(v), Index: at}
	}
	r := gjson.Parse(raw)
	r.Index = at
	return r
}

// unquote returns the text of v, a valid JSON string with its quotes, as
// encoding/json decodes it (a lone or mismatched surrogate is U+FFFD): a
// view of v when it has no escapes, else a new string built a run at a
// time (FuzzUnquote holds it to encoding/json).
func unquote(v []byte) string {
	s := v[1 : len(v)-1]
	i := bytes.IndexByte(s, '\\')
	if i < 0 {
		if len(s) == 0 {
			return ""
		}
		return unsafe.String(&s[0], len(s))
	}
	b := make([]byte, 0, len(s))
	for i >= 0 {
		b = append(b, s[:i]...)
		s = s[i:] // s[0] is the backslash
		if len(s) < 2 || (s[1] == 'u' && len(s) < 6) {
			break // only in invalid JSON: keep the rest as it is
		}
		c := s[1]
		s = s[2:]
		switch c {
		case 'u':
			r := hex4(s)
			s = s[4:]
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if len(s) >= 6 && s[0] == '\\' && s[1] == 'u' {
					r2 = hex4(s[2:])
				}
				if r = utf16.DecodeRune(r, r2); r != utf8.RuneError {
					s = s[6:]
				}
			}
			b = utf8.AppendRune(b, r)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		default: // '"', '\\', '/'
			b = append(b, c)
		}
		i = bytes.IndexByte(s, '\\')
	}
	b = append(b, s...)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// hex4 reads the four hex digits that begin s.
func hex4(s []byte) rune {
	var r rune
	for _, c := range s[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// ForEach is gjson's t.ForEach on the scanner: the same keys and values
// (Index included; an array's key is its position, as a Number), except
// that string values are unquoted a run at a time (unquote) instead of a
// byte at a time. t must be a view of valid JSON, as View, Result and
// ForEach give.
func ForEach(t gjson.Result, fn func(key, value gjson.Result) bool) {
	switch {
	case !t.Exists():
		return
	case t.Type != gjson.JSON:
		fn(gjson.Result{}, t)
		return
	}
	raw := unsafe.Slice(unsafe.StringData(t.Raw), len(t.Raw))
	if !EachMember(raw, func(k, v []byte, at int) bool {
		key := gjson.Result{Type: gjson.String, Raw: unsafe.String(&k[0], len(k)), Str: Key(k), Index: t.Index + Offset(raw, k)}
		return fn(key, Result(v, t.Index+at))
	}) {
		n := -1
		EachElement(raw, func(v []byte, at int) bool {
			n++
			return fn(gjson.Result{Type: gjson.Number, Num: float64(n)}, Result(v, t.Index+at))
		})
	}
}
