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
	"maps"
	"slices"
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
// encoding/json's last-wins semantics.
func ParseObject(data []byte) (Object, error) {
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
	w := NewWriter()
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
	out := []byte{'['}
	for i, it := range items {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, it...)
	}
	return append(out, ']')
}

// Marshal encodes v like json.Marshal but without HTML escaping.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Writer builds a JSON object member by member.
type Writer struct {
	buf []byte
	err error
}

func NewWriter() *Writer { return &Writer{buf: []byte{'{'}} }

// raw appends a member whose value is already JSON.
func (w *Writer) Raw(key string, val json.RawMessage) {
	if w.err != nil {
		return
	}
	if len(w.buf) > 1 {
		w.buf = append(w.buf, ',')
	}
	k, err := Marshal(key)
	if err != nil {
		w.err = err
		return
	}
	w.buf = append(w.buf, k...)
	w.buf = append(w.buf, ':')
	w.buf = append(w.buf, val...)
}

// value appends a member encoding v.
func (w *Writer) Value(key string, v any) {
	if w.err != nil {
		return
	}
	b, err := Marshal(v)
	if err != nil {
		w.err = fmt.Errorf("encode %s: %w", key, err)
		return
	}
	w.Raw(key, b)
}

// extra appends unknown members in sorted key order.
func (w *Writer) Extra(m map[string]json.RawMessage) {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		w.Raw(k, m[k])
	}
}

// bytes closes the Object and returns it.
func (w *Writer) Bytes() ([]byte, error) {
	if w.err != nil {
		return nil, w.err
	}
	return append(w.buf, '}'), nil
}

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
