package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
)

// field is one member of a JSON object, kept as raw JSON.
type field struct {
	key string
	val json.RawMessage
}

// object is a JSON object that keeps its members in their original order
// and their values as the original raw bytes.
type object struct {
	fields []field
}

var errNotObject = errors.New("not a JSON object")

// parseObject decodes data, which must hold exactly one JSON object. A
// repeated key keeps its first position and its last value, matching
// encoding/json's last-wins semantics.
func parseObject(data []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return object{}, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return object{}, errNotObject
	}
	var o object
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return object{}, err
		}
		key, _ := tok.(string) // the decoder guarantees object keys are strings
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return object{}, err
		}
		o.set(key, val)
	}
	if _, err := dec.Token(); err != nil {
		return object{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return object{}, errors.New("unexpected data after top-level value")
	}
	return o, nil
}

// get returns the raw value of key, or nil when absent.
func (o *object) get(key string) json.RawMessage {
	for _, f := range o.fields {
		if f.key == key {
			return f.val
		}
	}
	return nil
}

// set replaces the value of key in place, or appends it.
func (o *object) set(key string, val json.RawMessage) {
	for i := range o.fields {
		if o.fields[i].key == key {
			o.fields[i].val = val
			return
		}
	}
	o.fields = append(o.fields, field{key: key, val: val})
}

// del removes key if present.
func (o *object) del(key string) {
	o.fields = slices.DeleteFunc(o.fields, func(f field) bool { return f.key == key })
}

// clone returns a copy that shares no field slice with o.
func (o *object) clone() object {
	return object{fields: slices.Clone(o.fields)}
}

// marshal encodes the object with its members in order.
func (o *object) marshal() []byte {
	w := newObjWriter()
	for _, f := range o.fields {
		w.raw(f.key, f.val)
	}
	b, _ := w.bytes() // raw members cannot fail
	return b
}

// isNull reports whether raw is absent or the JSON literal null.
func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(bytes.TrimSpace(raw)) == "null"
}

// rawArray joins raw JSON values into an array without re-encoding them.
func rawArray(items []json.RawMessage) json.RawMessage {
	out := []byte{'['}
	for i, it := range items {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, it...)
	}
	return append(out, ']')
}

// marshalJSON encodes v like json.Marshal but without HTML escaping.
func marshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// objWriter builds a JSON object member by member.
type objWriter struct {
	buf []byte
	err error
}

func newObjWriter() *objWriter { return &objWriter{buf: []byte{'{'}} }

// raw appends a member whose value is already JSON.
func (w *objWriter) raw(key string, val json.RawMessage) {
	if w.err != nil {
		return
	}
	if len(w.buf) > 1 {
		w.buf = append(w.buf, ',')
	}
	k, err := marshalJSON(key)
	if err != nil {
		w.err = err
		return
	}
	w.buf = append(w.buf, k...)
	w.buf = append(w.buf, ':')
	w.buf = append(w.buf, val...)
}

// value appends a member encoding v.
func (w *objWriter) value(key string, v any) {
	if w.err != nil {
		return
	}
	b, err := marshalJSON(v)
	if err != nil {
		w.err = fmt.Errorf("encode %s: %w", key, err)
		return
	}
	w.raw(key, b)
}

// extra appends unknown members in sorted key order.
func (w *objWriter) extra(m map[string]json.RawMessage) {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		w.raw(k, m[k])
	}
}

// bytes closes the object and returns it.
func (w *objWriter) bytes() ([]byte, error) {
	if w.err != nil {
		return nil, w.err
	}
	return append(w.buf, '}'), nil
}

// splitKnown decodes a JSON object into a map and moves the members named
// in known out of it; what remains are the unknown members (nil if none).
func splitKnown(data []byte, known ...string) (map[string]json.RawMessage, map[string]json.RawMessage, error) {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, nil, err
	}
	if all == nil {
		return nil, nil, errNotObject
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

// decodeInto unmarshals m[key] into v when present and not null.
func decodeInto(m map[string]json.RawMessage, key string, v any) error {
	raw, ok := m[key]
	if !ok || isNull(raw) {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("decode %s: %w", key, err)
	}
	return nil
}
