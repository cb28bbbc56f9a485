package rawjson

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// FuzzValidAgrees holds Valid to encoding/json.Valid on every input.
func FuzzValidAgrees(f *testing.F) {
	for _, s := range []string{
		``, ` `, `{}`, `[]`, `{"a":1}`, ` {"a" : [1, 2.5, -0, 1e9, -1.5E-3, true, false, null, "x"]} `,
		`{"a":01}`, `{"a":1,}`, `[1,]`, `{"a" 1}`, `{,}`, `[,1]`, `{"a":1}x`, `{"a":"\x01"}`, `"\u12g4"`,
		`"\ud83d\ude00\n\"\\\/\b\f\r\t"`, `"bad \q"`, `1.`, `.5`, `-`, `+1`, `1e`, `1e+`, `tru`, `nulls`,
		`"` + strings.Repeat("abcdefgh", 9) + `\"` + strings.Repeat("é", 9) + `"`, "\"a\x7f\xff\"", `"abc`,
		`{"a":{"b":[{"c":[]}]}}`, `[[[[]]]]`, `[[[]]`, `{"a":[}`, `{"a"}`, `{"a":}`, `{1:2}`, "[1\n,\t2\r]",
		`"1234567\"`, `"12345678\\"`, `"\u00"`, `"\`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := Valid(data), json.Valid(data); got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", data, got, want)
		}
	})
}

// TestValidDepth: nesting is refused past encoding/json's limit, and deep
// nesting within it is accepted.
func TestValidDepth(t *testing.T) {
	for _, n := range []int{63, 64, 65, MaxDepth, MaxDepth + 1} {
		for _, open := range []string{"[", `{"a":`} {
			close := "]"
			if open != "[" {
				close = "}"
			}
			doc := []byte(strings.Repeat(open, n) + "1" + strings.Repeat(close, n))
			if got, want := Valid(doc), json.Valid(doc); got != want {
				t.Errorf("%d levels of %s: Valid %v, encoding/json %v", n, open, got, want)
			}
		}
	}
}

// BenchmarkValid compares Valid with gjson's and encoding/json's on an
// agent-sized chat request.
func BenchmarkValid(b *testing.B) {
	doc := []byte(`{"model":"m","messages":[` + strings.Repeat(`{"role":"tool","tool_call_id":"call_1","content":"`+
		strings.Repeat(`store/store.go:118: func (db *DB) RecordTurns(ctx context.Context, turns []*Turn) error {\n`, 16)+`"},`, 30) +
		`{"role":"user","content":"go"}]}`)
	for _, v := range []struct {
		name  string
		valid func([]byte) bool
	}{{"rawjson", Valid}, {"gjson", gjson.ValidBytes}, {"encoding-json", json.Valid}} {
		b.Run(v.name, func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				if !v.valid(doc) {
					b.Fatal("invalid")
				}
			}
		})
	}
}
