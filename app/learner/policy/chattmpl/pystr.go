package chattmpl

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/nikolalohinski/gonja/v2/builtins"
	"github.com/nikolalohinski/gonja/v2/exec"
)

// strMethods are gonja's string methods with Python's split, rsplit,
// strip, lstrip and rstrip, whose argument-less forms gonja gets wrong.
func strMethods() *exec.MethodSet[string] {
	set := map[string]exec.Method[string]{
		"split":   func(s string, _ *exec.Value, a *exec.VarArgs) (any, error) { return pySplit(s, a, false) },
		"rsplit":  func(s string, _ *exec.Value, a *exec.VarArgs) (any, error) { return pySplit(s, a, true) },
		"strip":   func(s string, _ *exec.Value, a *exec.VarArgs) (any, error) { return pyStrip(s, a, true, true) },
		"lstrip":  func(s string, _ *exec.Value, a *exec.VarArgs) (any, error) { return pyStrip(s, a, true, false) },
		"rstrip":  func(s string, _ *exec.Value, a *exec.VarArgs) (any, error) { return pyStrip(s, a, false, true) },
		"replace": pyReplace,
	}
	for _, name := range []string{
		"capitalize", "casefold", "center", "count", "endswith", "find", "format", "isalnum",
		"isalpha", "isdigit", "islower", "isnumeric", "isspace", "istitle", "isupper", "join",
		"ljust", "lower", "partition", "removeprefix", "removesuffix", "rfind",
		"rjust", "rpartition", "splitlines", "startswith", "swapcase", "title", "upper", "zfill",
	} {
		if m, ok := builtins.Methods.Str.Get(name); ok {
			set[name] = m
		}
	}
	return exec.NewMethodSet(set)
}

// arg returns positional argument i or keyword name, or nil.
func arg(a *exec.VarArgs, i int, name string) *exec.Value {
	if i < len(a.Args) {
		return a.Args[i]
	}
	if v, ok := a.KwArgs[name]; ok {
		return v
	}
	return nil
}

// pySplit is str.split(sep=None, maxsplit=-1) and str.rsplit.
func pySplit(s string, a *exec.VarArgs, fromRight bool) (any, error) {
	sep, max := arg(a, 0, "sep"), -1
	if m := arg(a, 1, "maxsplit"); m != nil {
		max = m.Integer()
	}
	var parts []string
	switch {
	case sep == nil || sep.IsNil():
		parts = splitSpace(s, max, fromRight)
	case sep.String() == "":
		return nil, errors.New("empty separator")
	case max < 0:
		parts = strings.Split(s, sep.String())
	case fromRight:
		parts = reverse(strings.SplitN(reverseString(s), reverseString(sep.String()), max+1))
		for i := range parts {
			parts[i] = reverseString(parts[i])
		}
	default:
		parts = strings.SplitN(s, sep.String(), max+1)
	}
	out := make([]any, len(parts))
	for i, p := range parts {
		out[i] = p
	}
	return out, nil
}

// splitSpace splits on runs of whitespace, dropping empty strings, with
// at most max splits (the rest kept whole, leading whitespace trimmed).
func splitSpace(s string, max int, fromRight bool) []string {
	if max < 0 {
		return strings.FieldsFunc(s, unicode.IsSpace)
	}
	if fromRight {
		parts := splitSpace(reverseString(s), max, false)
		for i := range parts {
			parts[i] = reverseString(parts[i])
		}
		return reverse(parts)
	}
	var parts []string
	for len(parts) < max {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
		i := strings.IndexFunc(s, unicode.IsSpace)
		if i < 0 {
			break
		}
		parts = append(parts, s[:i])
		s = s[i:]
	}
	if s = strings.TrimLeftFunc(s, unicode.IsSpace); s != "" {
		parts = append(parts, s)
	}
	return parts
}

func reverseString(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

func reverse(s []string) []string {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
	return s
}

// pyReplace is str.replace(old, new, count=-1).
func pyReplace(s string, _ *exec.Value, a *exec.VarArgs) (any, error) {
	old, repl, count := arg(a, 0, "old"), arg(a, 1, "new"), -1
	if old == nil || repl == nil {
		return nil, exec.ErrInvalidCall(errors.New("replace() takes at least 2 arguments"))
	}
	if c := arg(a, 2, "count"); c != nil {
		count = c.Integer()
	}
	return strings.Replace(s, old.String(), repl.String(), count), nil
}

// pyStrip is str.strip(chars=None) and its one-sided forms.
func pyStrip(s string, a *exec.VarArgs, left, right bool) (any, error) {
	cut := unicode.IsSpace
	if chars := arg(a, 0, "chars"); chars != nil && !chars.IsNil() {
		set := chars.String()
		cut = func(r rune) bool { return strings.ContainsRune(set, r) }
	}
	if left {
		s = strings.TrimLeftFunc(s, cut)
	}
	if right {
		s = strings.TrimRightFunc(s, cut)
	}
	return s, nil
}

// filterTrim is Jinja's trim: str(value).strip(chars).
func filterTrim(_ *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	s, _ := pyStrip(pyStr(in), params, true, true)
	return exec.AsValue(s)
}

// filterString is Jinja's string filter: str(value).
func filterString(_ *exec.Evaluator, in *exec.Value, _ *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	return exec.AsValue(pyStr(in))
}

// pyStr is Python's str() of a template value.
func pyStr(v *exec.Value) string {
	if v.IsString() {
		return v.String()
	}
	return pyRepr(v)
}

// pyRepr is Python's repr() of a template value.
func pyRepr(v *exec.Value) string {
	switch {
	case v == nil || v.IsNil():
		return "None"
	case v.IsBool():
		return map[bool]string{true: "True", false: "False"}[v.Bool()]
	case v.IsInteger():
		return strconv.Itoa(v.Integer())
	case v.IsFloat():
		return pyFloatJSON(v.Float())
	case v.IsString():
		return pyStringRepr(v.String())
	case v.IsList():
		items := make([]string, v.Len())
		for i := range items {
			items[i] = pyRepr(v.Index(i))
		}
		return "[" + strings.Join(items, ", ") + "]"
	case v.IsDict():
		var items []string
		for _, p := range dictPairs(v) {
			items = append(items, pyRepr(p.Key)+": "+pyRepr(p.Value))
		}
		return "{" + strings.Join(items, ", ") + "}"
	}
	return v.String()
}

// pyStringRepr quotes s as Python's repr does.
func pyStringRepr(s string) string {
	quote := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		quote = '"'
	}
	var b strings.Builder
	b.WriteByte(quote)
	for _, r := range s {
		switch {
		case r == '\\' || r == rune(quote):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case unicode.IsPrint(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteByte(quote)
	return b.String()
}
