package rawjson

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/tidwall/gjson"
)

// FuzzScanAgrees holds EachMember and EachElement to gjson's ForEach on
// valid JSON, at every depth: the same keys, the same raw values at the
// same offsets, and Result the same view gjson gives.
func FuzzScanAgrees(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, ` { "a" : 1 , "b":[ 1 ,2, {"c" :null} ] } `, `{"k\"ey":"v\\","x\\\"":"\\\\\""}`,
		`[ "a\"b" , -1.5e3,true,false,null,{"":""}]`, `{"a":"x\u00e9\ud83d\ude00","a":[[[]]]}`,
		`{"messages":[{"role":"user","content":"line\nline \"q\" \\"},{"role":"tool","content":[{"type":"text","text":"t"}]}]}`,
		`"s"`, `3`, `[1 , 2 ]`, "{\"a\"\t:\r\n{}\n}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !gjson.ValidBytes(data) {
			t.Skip()
		}
		if v, g := View(data), gjson.ParseBytes(data); v.Type != g.Type || v.Raw != g.Raw || v.Str != g.Str || v.Num != g.Num || v.Index != g.Index {
			t.Fatalf("View = %+v, gjson.Parse %+v, for %q", v, g, data)
		}
		compareScan(t, data, 0)
	})
}

// compareScan compares the scanner with ForEach on raw and, recursively,
// on every container in it.
func compareScan(t *testing.T, raw []byte, depth int) {
	if depth > 64 || len(raw) == 0 {
		return
	}
	type item struct {
		key string
		val string
		r   gjson.Result
	}
	var want []item
	g := gjson.Parse(unsafe.String(&raw[0], len(raw)))
	if !g.IsObject() && !g.IsArray() {
		if EachMember(raw, func([]byte, []byte, int) bool { return true }) || EachElement(raw, func([]byte, int) bool { return true }) {
			t.Fatalf("scanned a scalar as a container: %q", raw)
		}
		return
	}
	g.ForEach(func(k, v gjson.Result) bool {
		want = append(want, item{k.Str, v.Raw, v})
		return true
	})
	var got []item
	check := func(v []byte, at int) {
		if r := Result(v, at); r.Index != at || r.Raw != string(v) || r.Type != want[len(got)-1].r.Type ||
			r.Str != want[len(got)-1].r.Str || r.Num != want[len(got)-1].r.Num || r.Index != want[len(got)-1].r.Index {
			t.Fatalf("Result of %q at %d = %+v, ForEach gave %+v (in %q)", v, at, r, want[len(got)-1].r, raw)
		}
		compareScan(t, v, depth+1)
	}
	ok := true
	if g.IsObject() {
		ok = EachMember(raw, func(key, v []byte, at int) bool {
			got = append(got, item{Key(key), string(v), gjson.Result{}})
			if len(got) > len(want) || got[len(got)-1].key != want[len(got)-1].key || got[len(got)-1].val != want[len(got)-1].val {
				t.Fatalf("member %d: got %q=%q, want %+v (in %q)", len(got)-1, key, v, want[min(len(got), len(want))-1], raw)
			}
			check(v, at)
			return true
		})
	} else {
		ok = EachElement(raw, func(v []byte, at int) bool {
			got = append(got, item{"", string(v), gjson.Result{}})
			if len(got) > len(want) || got[len(got)-1].val != want[len(got)-1].val {
				t.Fatalf("element %d: got %q, want %+v (in %q)", len(got)-1, v, want[min(len(got), len(want))-1], raw)
			}
			check(v, at)
			return true
		})
	}
	if !ok || len(got) != len(want) {
		t.Fatalf("scanned %d values (ok %v), ForEach %d, in %q", len(got), ok, len(want), raw)
	}
	compareForEach(t, g)
}

// compareForEach holds ForEach to gjson's on t and, through the values
// gjson gives (whose Index is not 0), on every container below it.
func compareForEach(t *testing.T, g gjson.Result) {
	var want, got []gjson.Result
	g.ForEach(func(k, v gjson.Result) bool { want = append(want, k, v); return true })
	ForEach(g, func(k, v gjson.Result) bool { got = append(got, k, v); return true })
	if len(got) != len(want) {
		t.Fatalf("ForEach gave %d keys and values, gjson %d, in %q", len(got), len(want), g.Raw)
	}
	for i := range want {
		w, r := want[i], got[i]
		if r.Type != w.Type || r.Raw != w.Raw || r.Str != w.Str || r.Num != w.Num || r.Index != w.Index {
			t.Fatalf("ForEach item %d = %+v, gjson %+v, in %q", i, r, w, g.Raw)
		}
		if i%2 == 1 && (w.IsObject() || w.IsArray()) {
			compareForEach(t, w)
		}
	}
}

// TestScanStops: fn returning false ends the walk.
func TestScanStops(t *testing.T) {
	n := 0
	EachElement([]byte(`[1,2,3]`), func([]byte, int) bool { n++; return n < 2 })
	EachMember([]byte(`{"a":1,"b":2,"c":3}`), func([]byte, []byte, int) bool { n++; return n < 3 })
	if n != 3 {
		t.Fatalf("%d calls, want 3", n)
	}
}

// FuzzUnquote holds unquote to encoding/json's decoding of every valid
// JSON string.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{
		`""`, `"plain"`, `"a\nb\t\"c\"\\d\/e\b\f\r"`, `"\u00e9\u4E2D\ud83d\ude00"`, `"\ud800"`, `"\ud800\u0041"`,
		`"\udc00\ud800"`, `"\ud83d\ud83d\ude00"`, `"\ud800\\u0041"`, `"x\u0000y"`, `"é中😀"`, `"\\\\"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 || data[0] != '"' || !utf8.Valid(data) || !gjson.ValidBytes(data) || valueEnd(data, 0) != len(data) {
			t.Skip()
		}
		var want string
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatalf("gjson accepts %q, encoding/json does not: %v", data, err)
		}
		if got := unquote(data); got != want {
			t.Fatalf("unquote(%q) = %q, want %q", data, got, want)
		}
	})
}

// FuzzScanAnyInput: the scanner is for valid JSON, but on any input it
// ends, without panicking, should a bug ever hand it something else.
func FuzzScanAnyInput(f *testing.F) {
	for _, s := range []string{`[1}`, `{"a":}`, `[`, `{"a`, `"\u12`, `"\`, `"`, `[1 2]`, `{"a":1 "b":2}`, `[,]`, `{"k":"\ud800\u`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n := 0
		count := func([]byte, int) bool { n++; return true }
		EachElement(data, count)
		EachMember(data, func(k, v []byte, at int) bool { Key(k); return count(v, at) })
		ForEach(View(data), func(k, v gjson.Result) bool { n++; return true })
		Result(data, 0)
		Valid(data)
		if n > 2*len(data)+2 {
			t.Fatalf("%d values in %d bytes", n, len(data))
		}
	})
}
