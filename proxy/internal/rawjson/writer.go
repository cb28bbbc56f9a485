package rawjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
)

// Appender is implemented by the wire types, which append their own JSON
// encoding to a buffer. Marshal and Writer call AppendJSON in place of
// MarshalJSON, so that a nested value is written once, straight into the
// buffer of whatever holds it, instead of into its own buffer that is then
// copied into its parent's, and so on up: for a translated 60 KB request
// that copying was most of the encoding time.
type Appender interface {
	AppendJSON(dst []byte) ([]byte, error)
}

// Marshal encodes v like json.Marshal but without HTML escaping. A value
// that encodes itself (Appender or json.Marshaler), or a slice of such
// values, is encoded by calling it directly: the wire types write compact
// JSON with Writer, and encoding/json would scan and compact their bytes
// again at every level of nesting. Their bytes are taken as they are, so
// the raw members they keep (unknown fields) keep their own spacing.
func Marshal(v any) ([]byte, error) {
	b, err := AppendValue(nil, v)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// AppendValue appends v to dst encoded as Marshal encodes it. On error the
// returned slice holds whatever was appended before the error.
func AppendValue(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case string:
		return AppendString(dst, x), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case int:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case Appender:
		if !nilPointer(v) {
			return x.AppendJSON(dst)
		}
	case json.Marshaler:
		if !nilPointer(v) {
			b, err := x.MarshalJSON()
			return append(dst, b...), err
		}
	}
	if out, ok, err := appendSlice(dst, v); ok {
		return out, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return dst, err
	}
	return append(dst, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...), nil
}

// AppendArray appends items as a JSON array of their encodings: the
// wire types' lists, without AppendValue's reflection.
func AppendArray[T Appender](dst []byte, items []T) ([]byte, error) {
	dst = append(dst, '[')
	for i := range items {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = items[i].AppendJSON(dst); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}

// nilPointer reports whether v is a nil pointer, which encodes as null
// (calling a value method through it would panic).
func nilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

var (
	appenderType  = reflect.TypeFor[Appender]()
	marshalerType = reflect.TypeFor[json.Marshaler]()
)

// appendSlice appends v when it is a slice of non-pointer values that
// implement Appender or json.Marshaler, as a JSON array of their encodings
// (a nil slice as null, like encoding/json); it reports false for anything
// else.
func appendSlice(dst []byte, v any) ([]byte, bool, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice {
		return dst, false, nil
	}
	elem := rv.Type().Elem()
	if elem.Kind() == reflect.Pointer || elem.Kind() == reflect.Interface {
		return dst, false, nil
	}
	appends := elem.Implements(appenderType)
	if !appends && !elem.Implements(marshalerType) {
		return dst, false, nil
	}
	if rv.IsNil() {
		return append(dst, "null"...), true, nil
	}
	dst = append(dst, '[')
	for i := range rv.Len() {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if e := rv.Index(i).Interface(); appends {
			dst, err = e.(Appender).AppendJSON(dst)
		} else {
			var b []byte
			b, err = e.(json.Marshaler).MarshalJSON()
			dst = append(dst, b...)
		}
		if err != nil {
			return dst, true, err
		}
	}
	return append(dst, ']'), true, nil
}

// Writer builds a JSON object member by member, appending to one buffer.
type Writer struct {
	buf   []byte
	start int // where the object's '{' is in buf
	err   error
}

// NewWriter starts an object in a new buffer.
func NewWriter() *Writer { return &Writer{buf: []byte{'{'}} }

// NewWriterSize starts an object in a new buffer with room for about n
// bytes, for an object whose size is known roughly in advance.
func NewWriterSize(n int) *Writer {
	buf := make([]byte, 1, max(n, 1))
	buf[0] = '{'
	return &Writer{buf: buf}
}

// ObjectAt starts an object at the end of dst, for AppendJSON methods:
// Bytes returns dst with the object appended.
func ObjectAt(dst []byte) Writer {
	return Writer{buf: append(dst, '{'), start: len(dst)}
}

// key appends the separator and the key of the next member.
func (w *Writer) key(key string) {
	if len(w.buf) > w.start+1 {
		w.buf = append(w.buf, ',')
	}
	w.buf = append(AppendString(w.buf, key), ':')
}

// Raw appends a member whose value is already JSON.
func (w *Writer) Raw(key string, val json.RawMessage) {
	if w.err != nil {
		return
	}
	w.key(key)
	w.buf = append(w.buf, val...)
}

// String appends a member whose value is the string s.
func (w *Writer) String(key, s string) {
	if w.err != nil {
		return
	}
	w.key(key)
	w.buf = AppendString(w.buf, s)
}

// Value appends a member encoding v as Marshal does.
func (w *Writer) Value(key string, v any) {
	if w.err != nil {
		return
	}
	w.key(key)
	buf, err := AppendValue(w.buf, v)
	if err != nil {
		w.err = fmt.Errorf("encode %s: %w", key, err)
		return
	}
	w.buf = buf
}

// Extra appends unknown members in sorted key order.
func (w *Writer) Extra(m map[string]json.RawMessage) {
	if len(m) == 0 {
		return
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		w.Raw(k, m[k])
	}
}

// Bytes closes the object and returns the buffer, or the first error of
// encoding a member.
func (w *Writer) Bytes() ([]byte, error) {
	if w.err != nil {
		return nil, w.err
	}
	return append(w.buf, '}'), nil
}
