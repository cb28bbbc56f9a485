package chattmpl

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/nikolalohinski/gonja/v2/exec"
)

// FuzzToJSON checks that FromJSON then tojson gives back JSON with the
// same meaning, keys in the same order.
func FuzzToJSON(f *testing.F) {
	for _, s := range []string{`{"b": 1, "a": [1.5, -0.0, 1e300, null, true]}`, `"<&>\u2028\ud83c\udf89"`, `[]`, `{"x": {"": {}}}`, `12345678901234567890`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var a any
		if json.Unmarshal([]byte(s), &a) != nil {
			return // not JSON, or a number beyond float64 (Python: Infinity)
		}
		v, err := FromJSON([]byte(s))
		if err != nil {
			t.Fatalf("FromJSON(%q): %v", s, err)
		}
		for _, o := range []jsonOptions{newJSONOptions(nil), newJSONOptions(ptr("  "))} {
			out, err := pyJSON(exec.AsValue(v), o)
			if err != nil {
				t.Fatalf("pyJSON(%q): %v", s, err)
			}
			var b any
			if json.Unmarshal([]byte(out), &b) != nil {
				t.Fatalf("tojson of %q is not JSON: %q", s, out)
			}
			if !cmp.Equal(a, b) {
				t.Fatalf("tojson of %q means %v, want %v", s, b, a)
			}
			if keyOrder(s) != keyOrder(out) {
				t.Fatalf("key order of %q changed: %q", s, out)
			}
		}
	})
}

func ptr(s string) *string { return &s }

// keyOrder lists the object keys of a JSON text, depth first, in the
// order FromJSON keeps them.
func keyOrder(s string) string {
	v, err := FromJSON([]byte(s))
	if err != nil {
		return "invalid: " + err.Error()
	}
	var keys []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case *exec.Dict:
			for _, p := range x.Pairs {
				keys = append(keys, p.Key.String())
				walk(p.Value.Interface())
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return strings.Join(keys, "\x00")
}

// FuzzCompile checks that no template source panics the compiler or the
// renderer, and that rewriting leaves a template without bracketed
// conditionals alone.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{
		"{{ (a if b else c) }}", "{% for x in (y if z) %}{{ x }}{% endfor %}", "{{ {'a': {'b': 1}} }}",
		"{% raw %}{{ (x if y) }}{% endraw %}", "{# (a if b) #}", "{{ f(k=(1 if 2 else 3)) }}", "{{ '}}' }}{{",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		rewritten := rewriteTernaries(src)
		if !strings.Contains(src, "if") && !strings.Contains(src, "}") && rewritten != src {
			t.Fatalf("rewrote %q to %q", src, rewritten)
		}
		tmpl, err := Compile(src)
		if err != nil {
			return
		}
		_, _ = tmpl.Render(json.RawMessage(`[{"role": "user", "content": "hi"}]`), nil, Options{})
	})
}
