package rawjson

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/tidwall/gjson"
)

// TestFoldEqual holds FoldEqual to encoding/json's matching of keys to a
// field, including runes whose case folding reaches ASCII letters.
func TestFoldEqual(t *testing.T) {
	var v struct {
		F string `json:"sk_id"`
	}
	for _, key := range []string{"sk_id", "SK_ID", "Sk_Id", "\u017fk_id", "s\u212a_id", "sk_ıd", "sk_İd", "sk_idx", "sk_i", "ßk_id", ""} {
		v.F = ""
		err := json.Unmarshal([]byte(fmt.Sprintf(`{%q:"x"}`, key)), &v)
		if matched := err == nil && v.F == "x"; matched != FoldEqual(key, "sk_id") {
			t.Errorf("key %q: decoder matched %v, FoldEqual says %v", key, matched, !matched)
		}
	}
}

// TestMembers shows Members reads the named members, skips others, and
// refuses what decoding would read otherwise: repeats, other spellings
// (the Kelvin sign included), and anything but an object.
func TestMembers(t *testing.T) {
	keys := []string{"id", "kind"}
	read := func(doc string) (map[string]string, bool) {
		got := map[string]string{}
		ok := Members(View([]byte(doc)), keys, func(i int, v gjson.Result) bool {
			got[keys[i]] = v.Raw
			return v.Raw != `"bad"`
		})
		return got, ok
	}
	if got, ok := read(`{"id":"a","other":1,"kind":2,"ID2":3}`); !ok || fmt.Sprint(got) != `map[id:"a" kind:2]` {
		t.Errorf("read = %v, %v", got, ok)
	}
	for _, doc := range []string{`{"id":1,"id":2}`, `{"ID":1}`, `{"\u212aind":1}`, `{"kind":"bad"}`, `[1]`, `"s"`, ``} {
		if got, ok := read(doc); ok {
			t.Errorf("Members(%s) accepted it: %v", doc, got)
		}
	}
}
