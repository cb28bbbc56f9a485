package rawjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseObjectAgrees checks ParseObject against encoding/json's decoder:
// both accept or both refuse, and they find the same members with the same
// raw bytes.
func FuzzParseObjectAgrees(f *testing.F) {
	for _, s := range []string{
		`{}`, ` {"a":1} `, `{"a":"x\u00e9\ud83d\ude00","b":[1,{"c":null}],"a":true}`,
		`{"k\"ey":"v"}`, `{"a":01}`, `{"a":1,}`, `{"a" 1}`, `[1]`, `"s"`, `{"a":1}x`, `{"a":"\x01"}`,
		`{"a":1e+9,"b":-0.5E-3,"c":[],"d":{}}`, `{"a":"\ud800"}`, `{"a":tru}`, ``, `   `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !utf8.Valid(data) {
			t.Skip("ParseObject's callers refuse invalid UTF-8 first")
		}
		fast, ferr := ParseObject(data)
		slow, serr := parseObjectSlow(bytes.TrimLeft(data, " \t\r\n"))
		if (ferr == nil) != (serr == nil) {
			t.Fatalf("fast err %v, slow err %v for %q", ferr, serr, data)
		}
		if ferr != nil {
			return
		}
		if len(fast.Fields) != len(slow.Fields) {
			t.Fatalf("fast %d members, slow %d for %q", len(fast.Fields), len(slow.Fields), data)
		}
		for i := range fast.Fields {
			a, b := fast.Fields[i], slow.Fields[i]
			if a.Key != b.Key || !bytes.Equal(a.Val, b.Val) {
				t.Fatalf("member %d: fast %q=%s, slow %q=%s", i, a.Key, a.Val, b.Key, b.Val)
			}
		}
		if !json.Valid(fast.Marshal()) {
			t.Fatalf("Marshal gave invalid JSON for %q", data)
		}
	})
}

// TestParseObjectCopies checks the Object does not alias the caller's
// buffer.
func TestParseObjectCopies(t *testing.T) {
	buf := []byte(`{"model":"a","messages":[{"role":"user"}]}`)
	o, err := ParseObject(buf)
	if err != nil {
		t.Fatal(err)
	}
	for i := range buf {
		buf[i] = ' '
	}
	if got := string(o.Marshal()); got != `{"model":"a","messages":[{"role":"user"}]}` {
		t.Fatalf("Marshal after the caller reused its buffer = %s", got)
	}
}

func TestSplitArray(t *testing.T) {
	items, ok := SplitArray(json.RawMessage(` [ {"a":1} , "x",[2] ,null]`))
	if !ok || len(items) != 4 || string(items[0]) != `{"a":1}` || string(items[1]) != `"x"` ||
		string(items[2]) != `[2]` || string(items[3]) != `null` {
		t.Fatalf("SplitArray = %q, %v", items, ok)
	}
	if _, ok := SplitArray(json.RawMessage(`{"a":1}`)); ok {
		t.Fatal("SplitArray accepted an object")
	}
}

// TestPlainRun holds the word test to the byte table: every byte value at
// every position of otherwise plain words, alone and followed by every
// other byte value.
func TestPlainRun(t *testing.T) {
	want := func(w []byte) int {
		for i, c := range w {
			if c >= utf8.RuneSelf || !plainASCII[c] {
				return i / 8 * 8
			}
		}
		return len(w) / 8 * 8
	}
	for pos := range 16 {
		for c := range 256 {
			w := []byte("abcdefghijklmnopqr")
			w[pos] = byte(c)
			if got := plainRun(string(w)); got != want(w) {
				t.Fatalf("plainRun(%q) = %d, want %d", w, got, want(w))
			}
			for c2 := range 256 {
				w[pos+1] = byte(c2)
				if got := plainRun(string(w)); got != want(w) {
					t.Fatalf("plainRun(%q) = %d, want %d", w, got, want(w))
				}
			}
		}
	}
}

// FuzzAppendString holds AppendString to encoding/json's output.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "q\"b\\s\n\r\t\b\f\x00\x1f", "é😀", "\u2028\u2029", "\xff\xfe", "<a&b>",
		"eight ok", "a longer plain run, then \"quoted\" and a\nnew line, then 😀 and \x01 after sixteen"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		want := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if got := AppendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
		}
	})
}

// point encodes itself compactly, like the wire types.
type point struct{ X, Y int }

func (p point) MarshalJSON() ([]byte, error) {
	return fmt.Appendf(nil, `{"x":%d,"y":%d}`, p.X, p.Y), nil
}

// pointPtr encodes itself through a pointer receiver.
type pointPtr struct{ X int }

func (p *pointPtr) MarshalJSON() ([]byte, error) { return fmt.Appendf(nil, `{"x":%d}`, p.X), nil }

// TestMarshalMarshalers checks that calling MarshalJSON directly (for a
// value and for slices of values) gives what encoding/json gives for
// compact MarshalJSON output, nil cases included.
func TestMarshalMarshalers(t *testing.T) {
	var nilPtr *pointPtr
	for _, v := range []any{
		point{1, 2}, []point{{1, 2}, {3, 4}}, []point{}, []point(nil), &point{5, 6},
		[]*pointPtr{{X: 1}, nil}, nilPtr, []any{point{7, 8}, "s"}, map[string]point{"a": {1, 1}},
		struct {
			P []point `json:"p"`
		}{[]point{{9, 9}}},
	} {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Marshal(v)
		if err != nil || string(got) != string(want) {
			t.Errorf("Marshal(%#v) = %s, %v; want %s", v, got, err, want)
		}
	}
}

// BenchmarkAppendStringBody escapes Markdown as the proxy injects it: about
// 5.6 KB of skills, a new line every 80 bytes or so, a few quotes.
//
//	go test -run '^$' -bench BenchmarkAppendStringBody ./proxy/internal/rawjson/
func BenchmarkAppendStringBody(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < 5600 {
		sb.WriteString("## Reproduce before fixing\n_Use when a test fails._\n\nRun the failing test alone with `-run` and read the \"whole\" failure.\n")
	}
	s := sb.String()
	buf := make([]byte, 0, 2*len(s))
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		buf = AppendStringBody(buf[:0], s)
	}
}

// TestParseObjectDepth checks ParseObject refuses what encoding/json
// refuses to decode, nesting beyond 10,000 levels, and splits what it
// accepts at that depth (gjson walks it without recursion).
func TestParseObjectDepth(t *testing.T) {
	for _, tc := range []struct {
		depth int
		ok    bool
	}{{9999, true}, {10000, false}, {1 << 20, false}} {
		body := `{"a":` + strings.Repeat("[", tc.depth) + strings.Repeat("]", tc.depth) + `}`
		o, err := ParseObject([]byte(body))
		if (err == nil) != tc.ok {
			t.Fatalf("depth %d: err = %v", tc.depth, err)
		}
		if tc.ok && len(o.Get("a")) != 2*tc.depth {
			t.Fatalf("depth %d: member a has %d bytes", tc.depth, len(o.Get("a")))
		}
	}
}

// TestSplitOffsets checks members and elements are the exact bytes of
// their values, leading space and nesting included.
func TestSplitOffsets(t *testing.T) {
	raw := []byte(" \n{ \"k\\u0065y\" :  [ 1 , {\"x\" : \"a\\\"b\"} ] ,\"n\":null}")
	o, ok := SplitObject(raw)
	if !ok || len(o.Fields) != 2 || o.Fields[0].Key != "key" || string(o.Fields[0].Val) != `[ 1 , {"x" : "a\"b"} ]` ||
		string(o.Get("n")) != "null" {
		t.Fatalf("SplitObject = %+v, %v", o, ok)
	}
	items, _ := SplitArray(o.Get("key"))
	if len(items) != 2 || string(items[1]) != `{"x" : "a\"b"}` {
		t.Fatalf("SplitArray = %q", items)
	}
	x := View(items[1]).Get("x")
	if s := string(Slice(items[1], x)); s != `"a\"b"` || x.Str != `a"b` {
		t.Fatalf("Slice = %s (%q)", s, x.Str)
	}
}
