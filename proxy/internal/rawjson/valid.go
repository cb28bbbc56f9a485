package rawjson

import (
	"bytes"

	"github.com/tidwall/gjson"
)

// maxNesting is how deep arrays and objects may nest: encoding/json's own
// limit, so that a body Valid accepts is one encoding/json decodes.
const maxNesting = 10000

// Valid reports whether data is one JSON value nested at most as deep as
// encoding/json decodes. gjson checks the grammar (about twice as fast as
// encoding/json.Valid on an agent's 50 KB request); the nesting is bounded
// first because gjson's check recurses once per level, so a body of a
// million '[' would otherwise grow the stack without bound.
func Valid(data []byte) bool {
	return (fewOpenings(data, maxNesting) || nestedWithin(data, maxNesting)) && gjson.ValidBytes(data)
}

// fewOpenings reports whether data holds at most limit '[' and '{' bytes,
// inside strings or not: then nothing can nest deeper than limit. Counting
// is a vectorised pass, several times faster than nestedWithin's walk of
// the strings, and an agent's request holds a few hundred.
func fewOpenings(data []byte, limit int) bool {
	return bytes.Count(data, []byte{'['})+bytes.Count(data, []byte{'{'}) <= limit
}

// nestedWithin reports whether no array or object of data opens more than
// limit levels deep, skipping the contents of strings. data need not be
// valid JSON: the grammar is gjson's to check.
func nestedWithin(data []byte, limit int) bool {
	depth := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			for i++; i < len(data); i++ {
				j := bytes.IndexAny(data[i:], "\"\\")
				if j < 0 {
					return true // an unterminated string: invalid, gjson says so
				}
				i += j
				if data[i] == '"' {
					break
				}
				i++ // the escaped byte
			}
		case '[', '{':
			if depth++; depth > limit {
				return false
			}
		case ']', '}':
			depth--
		}
	}
	return true
}
