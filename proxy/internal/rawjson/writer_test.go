package rawjson

import (
	"encoding/json"
	"errors"
	"testing"
)

// pair appends itself, and fails when Fail is set.
type pair struct {
	A    string
	N    int
	Fail bool
}

func (p pair) AppendJSON(dst []byte) ([]byte, error) {
	if p.Fail {
		return append(dst, "junk"...), errors.New("cannot encode")
	}
	w := ObjectAt(dst)
	w.String("a", p.A)
	w.Value("n", p.N)
	return w.Bytes()
}

func (p pair) MarshalJSON() ([]byte, error) { return p.AppendJSON(nil) }

// TestAppender shows Marshal and Writer encode Appenders as encoding/json
// encodes their MarshalJSON output, at any offset of a buffer, and report
// their errors.
func TestAppender(t *testing.T) {
	var nilPair *pair
	for _, v := range []any{
		pair{A: "x", N: 1}, &pair{A: "é\u2028\"", N: -3}, []pair{{A: "a", N: 1}, {A: "b", N: 2}}, []pair{}, []pair(nil),
		nilPair, struct {
			P []pair `json:"p"`
		}{[]pair{{A: "c", N: 3}}}, true, 42, "<&>",
	} {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Marshal(v)
		if err != nil {
			t.Fatalf("Marshal(%#v): %v", v, err)
		}
		var a, b any
		if json.Unmarshal(got, &a) != nil || json.Unmarshal(want, &b) != nil || !jsonEqual(a, b) {
			t.Errorf("Marshal(%#v) = %s; want %s", v, got, want)
		}
		prefixed, err := AppendValue([]byte("[0,"), v)
		if err != nil || string(prefixed) != "[0,"+string(got) {
			t.Errorf("AppendValue after a prefix = %s, %v; want [0,%s", prefixed, err, got)
		}
	}

	for _, ps := range [][]pair{nil, {}, {{A: "a", N: 1}, {A: "b", N: 2}}} {
		want, _ := Marshal(ps)
		if ps == nil {
			want = []byte("[]") // a list the wire types write: never null
		}
		if got, err := AppendArray([]byte("x"), ps); err != nil || string(got) != "x"+string(want) {
			t.Errorf("AppendArray(%v) = %s, %v; want x%s", ps, got, err, want)
		}
	}
	if _, err := AppendArray(nil, []pair{{}, {Fail: true}}); err == nil {
		t.Error("AppendArray hid an element's error")
	}

	w := ObjectAt([]byte(`[1,`))
	if b, _ := w.Bytes(); string(b) != `[1,{}` {
		t.Errorf("empty object at an offset = %s", b)
	}
	w = ObjectAt([]byte(`[1,`))
	w.String("k\"ey", "v")
	w.Value("p", pair{A: "x", N: 2})
	w.Raw("r", json.RawMessage(`[ 1 ]`))
	if b, err := w.Bytes(); err != nil || string(b) != `[1,{"k\"ey":"v","p":{"a":"x","n":2},"r":[ 1 ]}` {
		t.Errorf("object at an offset = %s, %v", b, err)
	}

	for _, v := range []any{pair{Fail: true}, []pair{{}, {Fail: true}}} {
		if b, err := Marshal(v); err == nil || b != nil {
			t.Errorf("Marshal(%#v) = %s, %v; want nil and an error", v, b, err)
		}
		w := NewWriterSize(64)
		w.Value("bad", v)
		w.String("after", "x")
		if b, err := w.Bytes(); err == nil || b != nil {
			t.Errorf("Writer with a failing member = %s, %v; want nil and an error", b, err)
		}
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
