package anthropic

import (
	"strconv"
	"unicode/utf8"

	"github.com/metaclaw/metaclaw/proxy/internal/rawjson"
	"github.com/tidwall/gjson"
)

// addDeltaFast is Add's gjson path for content_block_delta events, nearly
// every event of a stream: decoding each into streamEvent and then its
// delta with encoding/json was most of the time spent recording a native
// stream. It reports false, having changed nothing, unless decoding would
// read the event the same way: valid UTF-8 JSON nested no deeper than
// decoding allows, "type" content_block_delta (or absent, with that event
// name), an integer "index" of a known block, a "delta" object whose
// members the accumulator reads are strings or null, no other member
// streamEvent reads ("message", "content_block", "usage") unless null,
// and none of them repeated or spelt in another case.
func (a *Accumulator) addDeltaFast(event string, data []byte) bool {
	if event != "" && event != "content_block_delta" {
		return false // other events are few; they are decoded
	}
	if len(data) == 0 || data[0] != '{' || !utf8.Valid(data) || !rawjson.Valid(data) {
		return false
	}
	var typ string
	var index int
	var delta gjson.Result
	if !rawjson.Members(rawjson.View(data), eventKeys, func(i int, v gjson.Result) bool {
		switch i {
		case 0:
			typ = v.Str
			return rawjson.IsText(v)
		case 1:
			n, ok := rawjson.Int(v, strconv.IntSize)
			index = int(n)
			return ok
		case 2:
			delta = v
			return v.IsObject()
		default: // message, content_block, usage
			return v.Type == gjson.Null
		}
	}) || !delta.Exists() || firstNonEmpty(typ, event) != "content_block_delta" || index < 0 || index >= len(a.blocks) {
		return false
	}
	var d [5]string // type, text, partial_json, thinking, signature
	if !rawjson.Members(delta, deltaMemberKeys, func(i int, v gjson.Result) bool {
		d[i] = v.Str
		return rawjson.IsText(v)
	}) {
		return false
	}
	b := a.blocks[index]
	switch d[0] {
	case "text_delta":
		b.text.WriteString(d[1])
	case "input_json_delta":
		b.input.WriteString(d[2])
	case "thinking_delta":
		b.thinking.WriteString(d[3])
	case "signature_delta":
		b.signature.WriteString(d[4])
	}
	return true
}

// The members addDeltaFast reads: of the event, "type", "index", "delta"
// and the other members of streamEvent; of the delta, the members of
// blockDelta's struct.
var (
	eventKeys       = []string{"type", "index", "delta", "message", "content_block", "usage"}
	deltaMemberKeys = []string{"type", "text", "partial_json", "thinking", "signature"}
)
