// Package rawjson keeps JSON objects as ordered raw members so the proxy can
// change a few members of a request and forward every other byte as it
// came. It is shared by proxy/openai and proxy/anthropic and imports
// nothing from the project.
package rawjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/tidwall/gjson"
)

// Field is one member of a JSON object, kept as raw JSON.
type Field struct {
	Key string
	Val json.RawMessage
}

// Object is a JSON object that keeps its members in their original order
// and their values as the original raw bytes.
type Object struct {
	Fields []Field
}

// ErrNotObject is returned when a body is not a JSON object.
var ErrNotObject = errors.New("not a JSON object")

// ParseObject decodes data, which must hold exactly one JSON object. A
// repeated key keeps its first position and its last value, matching
// encoding/json's last-wins semantics. The Object keeps its own copy of
// data: member values are slices of that copy, so callers may reuse data.
//
// data must be valid UTF-8: the request parsers check that first, to
// answer with their API's invalid_utf8 error (encoding/json would repair
// it silently). Valid checks the body (it refuses nesting deeper than
// encoding/json decodes, so a member decodes unless its types are wrong),
// gjson splits it; invalid input is parsed again with
// encoding/json's decoder, whose error the caller gets.
func ParseObject(data []byte) (Object, error) {
	data = bytes.TrimLeft(data, " \t\r\n")
	if !Valid(data) {
		return Object{}, invalidError(data)
	}
	o, ok := SplitObject(bytes.Clone(data))
	if !ok {
		return Object{}, ErrNotObject
	}
	return o, nil
}

// SplitObject splits raw, which must be valid JSON (for example a member of
// a parsed Object), into its members without validating or copying it: the
// values are slices of raw. It reports false when raw is not an object.
func SplitObject(raw json.RawMessage) (Object, bool) {
	v := View(raw)
	if !v.IsObject() {
		return Object{}, false
	}
	o := Object{Fields: make([]Field, 0, 8)}
	v.ForEach(func(k, v gjson.Result) bool {
		o.Set(strings.Clone(k.Str), Slice(raw, v))
		return true
	})
	return o, true
}

// SplitArray returns the elements of a JSON array as slices of raw, which
// must be valid JSON (for example a member of a parsed Object). It reports
// false when raw is not an array.
func SplitArray(raw json.RawMessage) ([]json.RawMessage, bool) {
	v := View(raw)
	if !v.IsArray() {
		return nil, false
	}
	items := make([]json.RawMessage, 0, 8)
	v.ForEach(func(_, v gjson.Result) bool {
		items = append(items, Slice(raw, v))
		return true
	})
	return items, true
}

// View returns gjson's view of raw without copying it; raw must stay
// unchanged while the view (or a string read from it) is used.
func View(raw []byte) gjson.Result {
	i := 0
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\r' || raw[i] == '\n') {
		i++
	}
	if i == len(raw) {
		return gjson.Result{}
	}
	v := gjson.Parse(unsafe.String(&raw[i], len(raw)-i))
	v.Index = i // gjson.Parse leaves it 0; ForEach offsets members by it
	return v
}

// Slice returns the bytes of v, a value gjson found in raw (View(raw)
// or one of its members, at any depth), as a slice of raw.
func Slice(raw []byte, v gjson.Result) []byte {
	end := v.Index + len(v.Raw)
	return raw[v.Index:end:end]
}

// invalidError returns why data, which Valid refused, is not a JSON
// object: the error of parsing it with encoding/json's decoder, or, for a
// body only too deeply nested (the decoder counts depth per member),
// json.Unmarshal's.
func invalidError(data []byte) error {
	if _, err := parseObjectSlow(data); err != nil {
		return err
	}
	return json.Unmarshal(data, new(json.RawMessage))
}

// parseObjectSlow parses with encoding/json's decoder, member by member:
// the reference the fuzz test holds ParseObject to, and the error message
// of invalid input.
func parseObjectSlow(data []byte) (Object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return Object{}, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return Object{}, ErrNotObject
	}
	var o Object
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return Object{}, err
		}
		key, _ := tok.(string) // the decoder guarantees Object keys are strings
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return Object{}, err
		}
		o.Set(key, val)
	}
	if _, err := dec.Token(); err != nil {
		return Object{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return Object{}, errors.New("unexpected data after top-level value")
	}
	return o, nil
}

// get returns the raw value of key, or nil when absent.
func (o *Object) Get(key string) json.RawMessage {
	for _, f := range o.Fields {
		if f.Key == key {
			return f.Val
		}
	}
	return nil
}

// set replaces the value of key in place, or appends it.
func (o *Object) Set(key string, val json.RawMessage) {
	for i := range o.Fields {
		if o.Fields[i].Key == key {
			o.Fields[i].Val = val
			return
		}
	}
	o.Fields = append(o.Fields, Field{Key: key, Val: val})
}

// del removes key if present.
func (o *Object) Del(key string) {
	o.Fields = slices.DeleteFunc(o.Fields, func(f Field) bool { return f.Key == key })
}

// clone returns a copy that shares no Field slice with o.
func (o *Object) Clone() Object {
	return Object{Fields: slices.Clone(o.Fields)}
}

// marshal encodes the Object with its members in order.
func (o *Object) Marshal() []byte {
	n := 2
	for _, f := range o.Fields {
		n += len(f.Key) + len(f.Val) + 4
	}
	w := &Writer{buf: append(make([]byte, 0, n), '{')}
	for _, f := range o.Fields {
		w.Raw(f.Key, f.Val)
	}
	b, _ := w.Bytes() // raw members cannot fail
	return b
}

// IsNull reports whether raw is absent or the JSON literal null.
func IsNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(bytes.TrimSpace(raw)) == "null"
}

// RawArray joins raw JSON values into an array without re-encoding them.
func RawArray(items []json.RawMessage) json.RawMessage {
	n := 2
	for _, it := range items {
		n += len(it) + 1
	}
	out := append(make([]byte, 0, n), '[')
	for i, it := range items {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, it...)
	}
	return append(out, ']')
}

// AppendString appends s as a JSON string, escaped as encoding/json does
// without HTML escaping: '"', '\\' and control characters, U+2028 and
// U+2029, and invalid UTF-8 as U+FFFD.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	return append(AppendStringBody(dst, s), '"')
}

// AppendStringBody appends s escaped as AppendString does, without the
// quotes: for splicing text into a JSON string.
func AppendStringBody(dst []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		i += plainRun(s[i:])
		if i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf && plainASCII[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(append(dst, s[start:i]...), escapeASCII(c)...)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(append(dst, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(append(dst, s[start:i]...), fmt.Sprintf(`\u%04x`, r)...)
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(dst, s[start:]...)
}

// AppendAfterText returns a copy of raw with "\n\n" and then text,
// escaped, inserted at offset at: raw's JSON string whose closing quote is
// at that offset gets the text appended to its value, in one copy and
// with no re-encoding of the rest.
func AppendAfterText(raw []byte, at int, text string) []byte {
	out := make([]byte, 0, len(raw)+len(text)+len(text)/8+8)
	out = append(out, raw[:at]...)
	out = append(out, `\n\n`...)
	out = AppendStringBody(out, text)
	return append(out, raw[at:]...)
}

// plainRun returns how many bytes at the start of s a JSON string holds
// as they are (plainASCII), testing eight at a time in a word, and stops
// at the first word holding another byte (or the last few bytes), for the
// byte loop to go on from. In a word with no top bit set, a byte below
// 0x20, '"' or '\\' sets its lane's top bit in one of the three
// differences; a borrow from it can set a later lane's too, which only
// stops the run early, never late.
func plainRun(s string) int {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := s[i : i+8]
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		quote, backslash := x^('"'*lo), x^('\\'*lo) // zero bytes where they are
		if (x|(x-0x20*lo)|(quote-lo)|(backslash-lo))&hi != 0 {
			break
		}
	}
	return i
}

// plainASCII marks the ASCII bytes a JSON string holds as they are.
var plainASCII = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// escapeASCII returns the JSON escape of an ASCII byte that needs one.
func escapeASCII(c byte) string {
	switch c {
	case '"':
		return `\"`
	case '\\':
		return `\\`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	}
	const hex = "0123456789abcdef"
	return string([]byte{'\\', 'u', '0', '0', hex[c>>4], hex[c&0xf]})
}

// IsText reports whether v (read with gjson) decodes into a string or a
// *string: absent, null or a string. (An absent gjson.Result has type
// Null.)
func IsText(v gjson.Result) bool { return v.Type == gjson.Null || v.Type == gjson.String }

// SplitKnown decodes a JSON object into a map and moves the members named
// in known out of it; what remains are the unknown members (nil if none).
func SplitKnown(data []byte, known ...string) (map[string]json.RawMessage, map[string]json.RawMessage, error) {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, nil, err
	}
	if all == nil {
		return nil, nil, ErrNotObject
	}
	got := make(map[string]json.RawMessage, len(known))
	for _, k := range known {
		if v, ok := all[k]; ok {
			got[k] = v
			delete(all, k)
		}
	}
	if len(all) == 0 {
		all = nil
	}
	return got, all, nil
}

// DecodeInto unmarshals m[key] into v when present and not null.
func DecodeInto(m map[string]json.RawMessage, key string, v any) error {
	raw, ok := m[key]
	if !ok || IsNull(raw) {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("decode %s: %w", key, err)
	}
	return nil
}

// Fields returns the members of obj named keys (at most four), in the
// order of keys, read in one pass, each the last of its repeats as
// decoding keeps it (gjson's Get returns the first). A member that is
// absent, or obj not an object, gives a zero Result, of type Null.
func Fields(obj gjson.Result, keys ...string) (out [4]gjson.Result) {
	if !obj.IsObject() {
		return out
	}
	obj.ForEach(func(k, v gjson.Result) bool {
		for i, key := range keys {
			if k.Str == key {
				out[i] = v
			}
		}
		return true
	})
	return out
}
