package rawjson

import (
	"unicode"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// Members calls read for each member of obj whose key is one of keys,
// with the key's index, and reports whether obj is an object, every call
// accepted its value, and no member was repeated or named as one of keys
// only up to case: encoding/json would merge or replace repeats, and
// match such a key to the same struct field, so a gjson fast path that
// reads members one by one leaves those objects to decoding. Other members
// are skipped, as decoding skips them. keys must be at most 64, distinct
// up to case.
func Members(obj gjson.Result, keys []string, read func(i int, v gjson.Result) bool) bool {
	if !obj.IsObject() {
		return false
	}
	var seen uint64
	ok := true
	obj.ForEach(func(k, v gjson.Result) bool {
		ascii := isASCII(k.Str)
		for i, name := range keys {
			if k.Str == name {
				ok = seen&(1<<i) == 0 && read(i, v)
				seen |= 1 << i
				return ok
			}
			// An ASCII key folds to an (ASCII) name only if as long.
			if ascii && len(k.Str) != len(name) {
				continue
			}
			if FoldEqual(k.Str, name) {
				ok = false
				return false
			}
		}
		return true
	})
	return ok
}

// FoldEqual reports whether encoding/json matches the object key key to a
// struct field named name: whether they are equal once every rune is
// folded as its decoder folds them (see foldRune).
func FoldEqual(key, name string) bool {
	for key != "" && name != "" {
		a, n := utf8.DecodeRuneInString(key)
		b, m := utf8.DecodeRuneInString(name)
		if foldRune(a) != foldRune(b) {
			return false
		}
		key, name = key[n:], name[m:]
	}
	return key == "" && name == ""
}

// foldRune folds r as encoding/json does for field names: ASCII letters
// to upper case, ASCII otherwise unchanged, other runes to the smallest
// rune of their case-folding orbit (so the Kelvin sign folds to 'K').
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' {
			r -= 'a' - 'A'
		}
		return r
	}
	for {
		r2 := unicode.SimpleFold(r)
		if r2 <= r {
			return r2
		}
		r = r2
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
