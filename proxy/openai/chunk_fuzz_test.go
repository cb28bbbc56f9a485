package openai

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// FuzzParseStreamChunk holds the chunk reader to what StreamChunk's types
// decode with encoding/json: the same chunk, or an error for both. Bodies
// that encoding/json reads in its own ways are left out: invalid UTF-8
// (it writes U+FFFD), repeated keys, and keys that match a member only up
// to case.
func FuzzParseStreamChunk(f *testing.F) {
	for _, b := range streamChunks() {
		f.Add(b)
	}
	for _, s := range []string{`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"c","function":{"name":"f","arguments":"{"}},null]},` +
		`"finish_reason":null,"stop_reason":[1]}],"error":null}`, `{"choices":[{"delta":{"content":5}}]}`, `{"created":1.5}`, `null`, `[1]`,
		`{"choices":{}}`, `{"usage":{"prompt_tokens":"1"}}`, `{"choices":[{"index":99999999999999999999}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !utf8.Valid(data) || repeatsKey(gjson.ParseBytes(data)) || foldedKey(gjson.ParseBytes(data)) {
			return
		}
		var want StreamChunk
		werr := json.Unmarshal(data, &want)
		got, err := ParseStreamChunk(data)
		if (err == nil) != (werr == nil) {
			t.Fatalf("err %v, decoding's %v\n%s", err, werr, data)
		}
		if err == nil && !cmp.Equal(want, got) {
			t.Fatalf("(-decoded +read):\n%s\n%s", cmp.Diff(want, got), data)
		}
	})
}

// chunkKeys are the JSON names of the members StreamChunk's types read.
var chunkKeys = []string{"id", "created", "model", "system_fingerprint", "choices", "usage", "error", "index", "delta",
	"finish_reason", "stop_reason", "role", "content", "refusal", "reasoning_content", "reasoning", "tool_calls", "type",
	"function", "name", "arguments", "prompt_tokens", "completion_tokens", "total_tokens", "prompt_tokens_details",
	"completion_tokens_details", "cached_tokens", "audio_tokens", "reasoning_tokens", "accepted_prediction_tokens",
	"rejected_prediction_tokens"}

// foldedKey reports whether a key in v matches one of chunkKeys only up
// to case, as encoding/json matches struct fields.
func foldedKey(v gjson.Result) bool {
	if !v.IsObject() && !v.IsArray() {
		return false
	}
	found := false
	v.ForEach(func(k, m gjson.Result) bool {
		for _, name := range chunkKeys {
			if k.Str != name && (strings.EqualFold(k.Str, name) || strings.EqualFold(strings.ToUpper(k.Str), strings.ToUpper(name))) {
				found = true
			}
		}
		found = found || foldedKey(m)
		return !found
	})
	return found
}
