package rawjson

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzValid holds Valid to encoding/json.Valid, whose decoder later reads
// the members: a body one accepts and the other refuses would either fail
// late or be refused wrongly.
func FuzzValid(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":[1,2,{"b":"c\"]"}]}`, ` [1] `, `{"a":}`, `"\u00e9"`, `[1,]`,
		`{"a":"\`, strings.Repeat("[", 10001) + strings.Repeat("]", 10001), `{"a":1}x`, "\"\xff\"", `-0.5e+3`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := Valid(data), json.Valid(data); got != want {
			t.Errorf("Valid(%q) = %v, encoding/json.Valid = %v", data, got, want)
		}
	})
}

// TestValidNesting: the nesting bound is encoding/json's, and a deep body
// is refused without recursing through it.
func TestValidNesting(t *testing.T) {
	for _, n := range []int{1, maxNesting, maxNesting + 1, 1 << 22} {
		body := []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
		if got, want := Valid(body), n <= maxNesting; got != want {
			t.Errorf("%d levels: Valid = %v, want %v", n, got, want)
		}
	}
	if !Valid([]byte(`["[[[[", "\"{{{"]`)) {
		t.Error("brackets inside strings counted as nesting")
	}
	// More openings than the bound, all in strings: the count alone cannot
	// accept it, the walk must.
	many := []byte(`["` + strings.Repeat("[{", maxNesting) + `", {"k": "\"[["}]`)
	if fewOpenings(many, maxNesting) || !Valid(many) {
		t.Error("openings inside strings beyond the bound counted as nesting")
	}
}
