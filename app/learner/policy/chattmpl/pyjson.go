package chattmpl

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// jsonOptions are the json.dumps arguments Hugging Face's tojson passes
// on.
type jsonOptions struct {
	indent     *string // nil: one line
	itemSep    string
	keySep     string
	sortKeys   bool
	ensureASCI bool
}

// newJSONOptions returns json.dumps' defaults: ", " and ": " on one line,
// "," and ": " when indenting.
func newJSONOptions(indent *string) jsonOptions {
	o := jsonOptions{indent: indent, itemSep: ", ", keySep: ": "}
	if indent != nil {
		o.itemSep = ","
	}
	return o
}

// pyJSON writes v as Python's json.dumps does, keeping the order of
// ordered dictionaries.
func pyJSON(v *exec.Value, o jsonOptions) (string, error) {
	var b strings.Builder
	if err := writeJSON(&b, v, o, 0); err != nil {
		return "", err
	}
	return b.String(), nil
}

func writeJSON(b *strings.Builder, v *exec.Value, o jsonOptions, depth int) error {
	switch {
	case v == nil || v.IsNil():
		b.WriteString("null")
	case v.IsBool():
		b.WriteString(strconv.FormatBool(v.Bool()))
	case v.IsInteger():
		b.WriteString(strconv.Itoa(v.Integer()))
	case v.IsFloat():
		b.WriteString(pyFloatJSON(v.Float()))
	case v.IsString():
		writeJSONString(b, v.String(), o.ensureASCI)
	case v.IsList():
		return writeJSONList(b, v, o, depth)
	case v.IsDict():
		return writeJSONDict(b, dictPairs(v), o, depth)
	default:
		return fmt.Errorf("object of type %s is not JSON serializable", v.Val.Kind())
	}
	return nil
}

func writeJSONList(b *strings.Builder, v *exec.Value, o jsonOptions, depth int) error {
	n := v.Len()
	if n == 0 {
		b.WriteString("[]")
		return nil
	}
	b.WriteByte('[')
	for i := 0; i < n; i++ {
		writeSep(b, o, depth+1, i > 0)
		if err := writeJSON(b, v.Index(i), o, depth+1); err != nil {
			return err
		}
	}
	writeNewline(b, o, depth)
	b.WriteByte(']')
	return nil
}

func writeJSONDict(b *strings.Builder, pairs []*exec.Pair, o jsonOptions, depth int) error {
	if len(pairs) == 0 {
		b.WriteString("{}")
		return nil
	}
	if o.sortKeys {
		pairs = append([]*exec.Pair(nil), pairs...)
		sort.SliceStable(pairs, func(i, j int) bool { return jsonKey(pairs[i].Key) < jsonKey(pairs[j].Key) })
	}
	b.WriteByte('{')
	for i, p := range pairs {
		writeSep(b, o, depth+1, i > 0)
		writeJSONString(b, jsonKey(p.Key), o.ensureASCI)
		b.WriteString(o.keySep)
		if err := writeJSON(b, p.Value, o, depth+1); err != nil {
			return err
		}
	}
	writeNewline(b, o, depth)
	b.WriteByte('}')
	return nil
}

// writeSep writes the item separator (after the first item) and, when
// indenting, the new line and indentation.
func writeSep(b *strings.Builder, o jsonOptions, depth int, notFirst bool) {
	if notFirst {
		b.WriteString(o.itemSep)
	}
	writeNewline(b, o, depth)
}

func writeNewline(b *strings.Builder, o jsonOptions, depth int) {
	if o.indent == nil {
		return
	}
	b.WriteByte('\n')
	b.WriteString(strings.Repeat(*o.indent, depth))
}

// jsonKey converts a dictionary key as json.dumps does.
func jsonKey(k *exec.Value) string {
	switch {
	case k.IsString():
		return k.String()
	case k.IsNil():
		return "null"
	case k.IsBool():
		return strconv.FormatBool(k.Bool())
	case k.IsFloat():
		return pyFloatJSON(k.Float())
	}
	return k.String()
}

// dictPairs returns the pairs of a dictionary value in iteration order:
// an ordered dictionary's own order, a Go map's sorted key order.
func dictPairs(v *exec.Value) []*exec.Pair {
	if d, ok := asDict(v.Interface()); ok {
		return d.Pairs
	}
	var pairs []*exec.Pair
	rv := reflect.Indirect(v.Val)
	for _, k := range v.Keys() {
		pairs = append(pairs, &exec.Pair{Key: k, Value: exec.ToValue(rv.MapIndex(k.Val))})
	}
	return pairs
}

// writeJSONString writes s quoted as json.dumps does: only quotes,
// backslashes and control characters escaped, and with ensureASCII every
// non-ASCII character as \uXXXX (surrogate pairs beyond U+FFFF).
func writeJSONString(b *strings.Builder, s string, ensureASCII bool) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20 || (ensureASCII && r > 0x7e && r < 0x10000):
			fmt.Fprintf(b, `\u%04x`, r)
		case ensureASCII && r >= 0x10000:
			r -= 0x10000
			fmt.Fprintf(b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

// pyFloatJSON formats f as Python's float repr, which json.dumps uses:
// the shortest digits that round-trip, in positional notation for
// exponents from -4 to 15 (with ".0" for whole numbers) and scientific
// notation otherwise.
func pyFloatJSON(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return pyFloatRepr(f)
}

func pyFloatRepr(f float64) string {
	e := strconv.FormatFloat(f, 'e', -1, 64) // like -1.2345e+06
	sign := ""
	if e[0] == '-' {
		sign, e = "-", e[1:]
	}
	mant, expStr, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	exp, _ := strconv.Atoi(expStr)
	if exp < -4 || exp >= 16 {
		out := digits[:1]
		if len(digits) > 1 {
			out += "." + digits[1:]
		}
		expSign := "+"
		if exp < 0 {
			expSign, exp = "-", -exp
		}
		return fmt.Sprintf("%s%se%s%02d", sign, out, expSign, exp)
	}
	point := exp + 1 // digits before the decimal point
	switch {
	case point <= 0:
		return sign + "0." + strings.Repeat("0", -point) + digits
	case point >= len(digits):
		return sign + digits + strings.Repeat("0", point-len(digits)) + ".0"
	default:
		return sign + digits[:point] + "." + digits[point:]
	}
}
