package chattmpl

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// renderSource compiles and runs src with the given variables.
func renderSource(t *testing.T, src string, vars map[string]any) string {
	t.Helper()
	tmpl, err := Compile(src)
	if err != nil {
		t.Fatalf("Compile(%q): %v", src, err)
	}
	out, err := tmpl.execute(vars, func() time.Time { return time.Date(2025, 3, 7, 14, 5, 9, 123456000, time.UTC) })
	if err != nil {
		t.Fatalf("render %q: %v", src, err)
	}
	return out
}

func mustJSON(t *testing.T, s string) any {
	t.Helper()
	v, err := FromJSON([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The expected strings below are Python's, printed by
// transformers' tojson (json.dumps with ensure_ascii=False) under Jinja2.
func TestToJSONMatchesPython(t *testing.T) {
	t.Parallel()
	d := mustJSON(t, `{"z": 1, "a": [1.0, 1e16, 1.5e-05, 0.1, -0.0, 100.0, 123456789012345678, 3.14],
		"s": "</script> & 'q' \"d\" \u001f\t\u007f 🎉 é", "e": {}, "l": [], "n": null, "b": [true, false]}`)
	const s = `"</script> & 'q' \"d\" \u001f\t` + "\u007f 🎉 é" + `"`
	tests := []struct{ src, want string }{
		{"{{ d | tojson }}", `{"z": 1, "a": [1.0, 1e+16, 1.5e-05, 0.1, -0.0, 100.0, 123456789012345678, 3.14], "s": ` + s + `, "e": {}, "l": [], "n": null, "b": [true, false]}`},
		{"{{ d | tojson(indent=2) }}", "{\n  \"z\": 1,\n  \"a\": [\n    1.0,\n    1e+16,\n    1.5e-05,\n    0.1,\n    -0.0,\n    100.0,\n    123456789012345678,\n    3.14\n  ],\n  \"s\": " + s + ",\n  \"e\": {},\n  \"l\": [],\n  \"n\": null,\n  \"b\": [\n    true,\n    false\n  ]\n}"},
		{"{{ d | tojson(sort_keys=true) }}", `{"a": [1.0, 1e+16, 1.5e-05, 0.1, -0.0, 100.0, 123456789012345678, 3.14], "b": [true, false], "e": {}, "l": [], "n": null, "s": ` + s + `, "z": 1}`},
		{"{{ d.s | tojson(ensure_ascii=true) }}", `"</script> & 'q' \"d\" \u001f\t\u007f \ud83c\udf89 \u00e9"`},
		{"{{ d | tojson(separators=(',', ':')) }}", `{"z":1,"a":[1.0,1e+16,1.5e-05,0.1,-0.0,100.0,123456789012345678,3.14],"s":` + s + `,"e":{},"l":[],"n":null,"b":[true,false]}`},
		{"{{ d.a | tojson(indent='\t') }}", "[\n\t1.0,\n\t1e+16,\n\t1.5e-05,\n\t0.1,\n\t-0.0,\n\t100.0,\n\t123456789012345678,\n\t3.14\n]"},
		{"{{ d.e | tojson(indent=2) }}{{ [d.e, d.l] | tojson(indent=0) }}", "{}[\n{},\n[]\n]"},
	}
	for _, tt := range tests {
		if got := renderSource(t, tt.src, map[string]any{"d": d}); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

func TestFromJSONKeepsOrderAndTypes(t *testing.T) {
	t.Parallel()
	v := mustJSON(t, `{"b": 1, "a": 2.5, "c": {"y": null, "x": [true, "s"]}, "b": 3}`)
	src := "{% for k, v in d.items() %}{{ k }}={{ v is number }}{{ v is mapping }};{% endfor %}" +
		"|{{ d.keys() | join(',') }}|{{ d.c.keys() | join(',') }}|{{ d.c.y is defined }}{{ d.c.y is none }}" +
		"|{{ d.missing is defined }}|{{ d.get('a') }}|{{ d.get('zz', 'dflt') }}|{{ d.b }}"
	want := "b=TrueFalse;a=TrueFalse;c=FalseTrue;|b,a,c|y,x|TrueTrue|False|2.5|dflt|3"
	if got := renderSource(t, src, map[string]any{"d": v}); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if _, err := FromJSON([]byte(`{"a": 1} extra`)); err == nil {
		t.Error("FromJSON accepted data after the value")
	}
}

func TestPythonSemantics(t *testing.T) {
	t.Parallel()
	tests := []struct{ src, want string }{
		{"{{ undefined_thing is false }}|{{ false is false }}|{{ 0 is false }}|{{ true is true }}|{{ 1 is true }}", "False|True|False|True|False"},
		{"{{ 'a  b c '.split() | tojson }}|{{ 'a,b,,c'.split(',') | tojson }}|{{ 'x-y-z'.split('-', 1) | tojson }}|{{ 'x-y-z'.rsplit('-', 1) | tojson }}", `["a", "b", "c"]|["a", "b", "", "c"]|["x", "y-z"]|["x-y", "z"]`},
		{"{{ '  hi  '.strip() }}|{{ 'xxhixx'.strip('x') }}|{{ '\n\nhi'.lstrip('\n') }}|{{ 'hi\n\n'.rstrip() }}|{{ 'a.b.c'.replace('.', '/') }}", "hi|hi|hi|hi|a/b/c"},
		{"{{ range(3) | join(',') }}|{{ range(1, 7, 2) | list | tojson }}|{{ dict(b=1, a=2) | tojson }}", `0,1,2|[1, 3, 5]|{"a": 2, "b": 1}`},
		{"{{ [{'t': 1}, 'x'] | trim }}|{{ none | string }}|{{ 3 | string }}", `[{'t': 1}, 'x']|None|3`},
		{"{% for k, v in {'b': 1, 'A': 2, 'a': 3} | dictsort %}{{ k }}{% endfor %}|{% for p in {'b': 1, 'a': 2} | items %}{{ p[0] }}{% endfor %}", "Aab|ba"},
		{"{% generation %}kept {{ 1 }}{% endgeneration %}", "kept 1"},
		{"{{ {'a': {'b': 1}} | tojson }}|{{ {'k': ('x' if true else 'y')}}}", `{"a": {"b": 1}}|{'k': 'x'}`},
		{"{{ strftime_now('%d %b %Y|%A %a %B %m %y %H:%M:%S %I %p %j %f %w %u %%|%Y-%m-%d') }}", "07 Mar 2025|Friday Fri March 03 25 14:05:09 02 PM 066 123456 5 5 %|2025-03-07"},
	}
	for _, tt := range tests {
		if got := renderSource(t, tt.src, map[string]any{}); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.src, got, tt.want)
		}
	}
}

// The expectations below are Python Jinja2's output for the same source.
func TestInlineConditionals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		src     string
		yes, no string
		onlyYes bool // the no branch would raise
	}{
		{"{{ 'x' ~ ('a' if flag else 'b') }}", "xa", "xb", false},
		{"{{ ['p' if flag else 'q', ('r' if not flag)] | join(',') }}", "p,", "q,r", false},
		{"{{ ('a' if x else 'b' if flag else 'c') }}", "b", "c", false},
		{"{% for m in (items if flag else []) %}{{ m }}{% endfor %}", "12", "", false},
		{"{% set v = (1 if flag else 2) + 10 %}{{ v }}", "11", "12", false},
		{"{{ {'k': ('yes' if flag else 'no')} | tojson }}", `{"k": "yes"}`, `{"k": "no"}`, false},
		{`{{ '(if)' ~ ("s'" if flag else '}}') }}`, "(if)s'", "(if)}}", false},
		{"{{ 'a' if flag else 'b' }}", "a", "b", false},
		{"{{ ('y' if flag else raise_exception('not evaluated')) }}", "y", "", true},
	}
	for _, tt := range tests {
		for _, flag := range []bool{true, false} {
			if tt.onlyYes && !flag {
				continue
			}
			vars := map[string]any{"flag": flag, "x": false, "items": []any{1, 2}}
			want := map[bool]string{true: tt.yes, false: tt.no}[flag]
			if got := renderSource(t, tt.src, vars); got != want {
				t.Errorf("%s (flag %v): got %q, want %q", tt.src, flag, got, want)
			}
		}
	}
}

func TestRaiseException(t *testing.T) {
	t.Parallel()
	tmpl, err := Compile("before {{ raise_exception('Conversation roles must alternate') }} after")
	if err != nil {
		t.Fatal(err)
	}
	_, err = tmpl.Render(json.RawMessage(`[]`), nil, Options{})
	var raised *RaiseError
	if !errors.As(err, &raised) || raised.Message != "Conversation roles must alternate" {
		t.Fatalf("error = %v, want a RaiseError", err)
	}
}

func TestErrorsAreShortAndSafe(t *testing.T) {
	t.Parallel()
	if _, err := Compile("{% if %}" + strings.Repeat("x", 5000)); err == nil || len(err.Error()) > 400 {
		t.Errorf("compile error should be short, got %d bytes: %v", len(fmtErr(err)), err)
	}
	for _, src := range []string{`{% include "/etc/passwd" %}`, `{% import "x.j2" as x %}`, `{{ "%s" % 1 }}`, `{{ [1] | tojson(indent=[]) }}`} {
		tmpl, err := Compile(src)
		if err != nil {
			continue
		}
		if out, err := tmpl.Render(json.RawMessage(`[]`), nil, Options{}); err == nil && strings.Contains(out, "root:") {
			t.Errorf("%s rendered %q", src, out)
		}
	}
	bad, err := Compile("line one\n{{ 'a' ~ 'b'.nosuchmethod() }}")
	if err != nil {
		t.Fatal(err)
	}
	_, err = bad.Render(json.RawMessage(`[]`), nil, Options{})
	if msg := fmtErr(err); !strings.Contains(msg, "line 2") || !strings.Contains(msg, "nosuchmethod") || len(msg) > 200 {
		t.Errorf("render error should name the line and the cause, briefly: %q", msg)
	}
	tmpl, err := Compile("{{ messages[0].content }}")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{`{`, `{"role": "user"}`, `[1]`} {
		if _, err := tmpl.Render(json.RawMessage(bad), nil, Options{}); err == nil {
			t.Errorf("messages %s accepted", bad)
		}
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestConcurrentRenders(t *testing.T) {
	t.Parallel()
	src := loadTemplate(t, "qwen3-style.jinja")
	convs := loadConversations(t)
	want := make([]string, len(convs))
	for i, c := range convs {
		want[i], _ = renderCase(t, src, c)
	}
	var wg sync.WaitGroup
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, c := range convs {
				if got, _ := renderCase(t, src, c); got != want[i] {
					t.Errorf("concurrent render of %s differs", c.Name)
				}
			}
		}()
	}
	wg.Wait()
}

func TestRewriteTernariesLeavesOtherTagsAlone(t *testing.T) {
	t.Parallel()
	for _, src := range []string{
		"{%- for m in messages if m.role != 'system' -%}x{%- endfor %}",
		"{{ 'a' if b else 'c' }}",
		"{# (a if b else c) #}{% raw %}{{ (a if b else c) }}{% endraw %}",
		"text (x if y else z) text",
	} {
		if got := rewriteTernaries(src); got != src {
			t.Errorf("rewriteTernaries(%q) = %q, want it unchanged", src, got)
		}
	}
	got := rewriteTernaries("{{ f(a if b else c, k=d if e) }}")
	want := "{{ f(((b) and [(a)] or [(c)])|first, k= ((e) and [(d)] or [('')])|first) }}"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rewrite (-want +got):\n%s", diff)
	}
}
