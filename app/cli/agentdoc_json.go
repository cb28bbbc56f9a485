package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// jsonFormat edits JSON settings files in place: sjson rewrites only the
// bytes of the values it sets, so the person's layout, key order and
// spacing stay as they were.
type jsonFormat struct{}

func (jsonFormat) name() string { return "JSON" }

func (jsonFormat) parse(data []byte) (agentDoc, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return &jsonDoc{data: []byte("{}"), fresh: true}, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil || top == nil {
		return nil, errors.New("not a JSON object")
	}
	return &jsonDoc{data: append([]byte(nil), data...)}, nil
}

// jsonDoc is a JSON document as bytes.
type jsonDoc struct {
	data  []byte
	fresh bool // the file did not exist: write it indented
}

// escapeSeg escapes a key for a gjson/sjson path.
func escapeSeg(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`.*?|#@\!=<>%`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// path turns key into a gjson path; a match segment becomes the element's
// index, or -1 (append) when forSet and no element matches. found is false
// when a match segment matches nothing.
func (d *jsonDoc) path(key []string, forSet bool) (p string, found bool, err error) {
	var parts []string
	for i, seg := range key {
		field, want, ok := matchSegment(seg)
		if !ok || i != len(key)-1 {
			parts = append(parts, escapeSeg(seg))
			continue
		}
		arr := gjson.GetBytes(d.data, strings.Join(parts, "."))
		if arr.Exists() && !arr.IsArray() {
			return "", false, fmt.Errorf("%s is not an array", strings.Join(key[:i], "."))
		}
		idx := -1
		for j, e := range arr.Array() {
			if v := e.Get(escapeSeg(field)); v.Exists() && v.String() == want {
				idx = j
				break
			}
		}
		if idx < 0 && !forSet {
			return "", false, nil
		}
		parts = append(parts, strconv.Itoa(idx))
	}
	return strings.Join(parts, "."), true, nil
}

func (d *jsonDoc) get(key []string) (json.RawMessage, bool, error) {
	p, found, err := d.path(key, false)
	if err != nil || !found {
		return nil, false, err
	}
	r := gjson.GetBytes(d.data, p)
	if !r.Exists() {
		return nil, false, nil
	}
	return json.RawMessage(r.Raw), true, nil
}

func (d *jsonDoc) set(key []string, v json.RawMessage) error {
	for i := 1; i < len(key); i++ { // every parent must be an object (or absent)
		if r := gjson.GetBytes(d.data, d.plain(key[:i])); r.Exists() && !r.IsObject() && !r.IsArray() {
			return fmt.Errorf("%s is not an object", strings.Join(key[:i], "."))
		}
	}
	p, _, err := d.path(key, true)
	if err != nil {
		return err
	}
	out, err := sjson.SetRawBytes(d.data, p, v)
	if err != nil {
		return fmt.Errorf("set %s: %w", strings.Join(key, "."), err)
	}
	d.data = out
	return nil
}

// plain is key as a gjson path without match resolution.
func (d *jsonDoc) plain(key []string) string {
	parts := make([]string, len(key))
	for i, s := range key {
		parts[i] = escapeSeg(s)
	}
	return strings.Join(parts, ".")
}

func (d *jsonDoc) del(key []string) error {
	p, found, err := d.path(key, false)
	if err != nil || !found {
		return err
	}
	out, err := sjson.DeleteBytes(d.data, p)
	if err != nil {
		return fmt.Errorf("remove %s: %w", strings.Join(key, "."), err)
	}
	d.data = out
	return nil
}

func (d *jsonDoc) bytes() ([]byte, error) {
	if !d.fresh {
		return d.data, nil
	}
	var b bytes.Buffer
	if err := json.Indent(&b, d.data, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

func (d *jsonDoc) tree() (any, error) {
	var v any
	err := json.Unmarshal(d.data, &v)
	return v, err
}
