package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// agentDoc is an agent's settings file, parsed, that connect edits key by
// key and writes back with everything it did not touch as it was.
//
// A key is a path of segments from the document's root. A segment
// "field=value" names the element of an array whose field has that value
// (PicoClaw's model_list entry with model_name "metaclaw"); it may only be
// the last segment, and set replaces or appends the whole element.
type agentDoc interface {
	// get returns the value at key as JSON, and whether it is there.
	get(key []string) (json.RawMessage, bool, error)
	// set writes the JSON value v at key, creating parents as needed.
	set(key []string, v json.RawMessage) error
	// del removes key; a key that is not there is fine.
	del(key []string) error
	// bytes is the document as it would be written.
	bytes() ([]byte, error)
	// tree is the whole document as JSON values (maps, slices, strings,
	// float64, bool, nil), for checking an edit changed only its keys.
	tree() (any, error)
}

// docFormat parses a settings file; data is nil for a file that does not
// exist yet.
type docFormat interface {
	name() string
	parse(data []byte) (agentDoc, error)
}

var errNotObject = errors.New("not an object")

// matchSegment splits "field=value" into field and value.
func matchSegment(seg string) (field, value string, ok bool) {
	field, value, ok = strings.Cut(seg, "=")
	return field, value, ok && field != ""
}

// normalize turns any JSON-encodable value into the generic JSON tree.
func normalize(v any) (any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	err = json.Unmarshal(data, &out)
	return out, err
}

// treeSet sets key in a generic tree and returns the new root.
func treeSet(root any, key []string, v any) (any, error) {
	if len(key) == 0 {
		return v, nil
	}
	seg := key[0]
	if field, want, ok := matchSegment(seg); ok && len(key) == 1 {
		list, _ := root.([]any)
		if root != nil && list == nil {
			return nil, fmt.Errorf("%s: %w", seg, errNotObject)
		}
		for i, e := range list {
			if m, ok := e.(map[string]any); ok && fmt.Sprint(m[field]) == want {
				list[i] = v
				return list, nil
			}
		}
		return append(list, v), nil
	}
	m, ok := root.(map[string]any)
	if root == nil {
		m, ok = map[string]any{}, true
	}
	if !ok {
		return nil, fmt.Errorf("%s: %w", seg, errNotObject)
	}
	child, err := treeSet(m[seg], key[1:], v)
	if err != nil {
		return nil, err
	}
	m[seg] = child
	return m, nil
}

// treeDel removes key from a generic tree.
func treeDel(root any, key []string) any {
	if len(key) == 0 {
		return root
	}
	seg := key[0]
	if field, want, ok := matchSegment(seg); ok && len(key) == 1 {
		list, _ := root.([]any)
		out := list[:0:0]
		for _, e := range list {
			if m, ok := e.(map[string]any); !ok || fmt.Sprint(m[field]) != want {
				out = append(out, e)
			}
		}
		if list == nil {
			return root
		}
		return out
	}
	m, ok := root.(map[string]any)
	if !ok {
		return root
	}
	if len(key) == 1 {
		delete(m, seg)
		return m
	}
	if _, there := m[seg]; there {
		m[seg] = treeDel(m[seg], key[1:])
	}
	return m
}

// treeGet returns the value at key in a generic tree.
func treeGet(root any, key []string) (any, bool) {
	cur := root
	for i, seg := range key {
		if field, want, ok := matchSegment(seg); ok && i == len(key)-1 {
			list, _ := cur.([]any)
			for _, e := range list {
				if m, ok := e.(map[string]any); ok && fmt.Sprint(m[field]) == want {
					return e, true
				}
			}
			return nil, false
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[seg]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// isEmptyObject reports whether raw is an object or array with nothing in it.
func isEmptyObject(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v := v.(type) {
	case map[string]any:
		return len(v) == 0
	case []any:
		return len(v) == 0
	}
	return false
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// op is one change checkEdit expects: a set (v non-nil) or a delete.
type op struct {
	key []string
	v   json.RawMessage
}

// checkEdit parses the edited bytes again the way the agent would and
// checks that they hold exactly the old document with ops applied: the
// line-level editors (TOML, .env) are verified, never trusted.
func checkEdit(f docFormat, before agentDoc, after []byte, ops []op) error {
	want, err := before.tree()
	if err != nil {
		return err
	}
	for _, o := range ops {
		if o.v == nil {
			want = treeDel(want, o.key)
			continue
		}
		var v any
		if err := json.Unmarshal(o.v, &v); err != nil {
			return err
		}
		if want, err = treeSet(want, o.key, v); err != nil {
			return err
		}
	}
	d, err := f.parse(after)
	if err != nil {
		return fmt.Errorf("the edited file would not parse as %s: %w", f.name(), err)
	}
	got, err := d.tree()
	if err != nil {
		return err
	}
	w, _ := normalize(want)
	g, _ := normalize(got)
	if !reflect.DeepEqual(w, g) {
		return errors.New("the edit would change more than the keys connect sets")
	}
	return nil
}
