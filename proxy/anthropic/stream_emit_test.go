package anthropic

import (
	"testing"

	"github.com/metaclaw/metaclaw/proxy/sse"
)

// TestEmitDeltaEncoding holds emitDelta's hand-written JSON to encoding
// the event from a struct, for each kind of block and awkward text.
func TestEmitDeltaEncoding(t *testing.T) {
	type delta struct {
		Type        string  `json:"type"`
		Text        *string `json:"text,omitempty"`
		Thinking    *string `json:"thinking,omitempty"`
		PartialJSON *string `json:"partial_json,omitempty"`
	}
	for _, s := range []string{"", "plain", "<a href=\"x\">&amp;</a>", "line\nbreak\ttab\x00\x1f", "\u2028\u2029 é 😀", "\xff bad", `{"a":[1]}`} {
		for kind, d := range map[blockKind]delta{
			kindText: {Type: "text_delta", Text: &s}, kindThinking: {Type: "thinking_delta", Thinking: &s},
			kindTool: {Type: "input_json_delta", PartialJSON: &s},
		} {
			tr := &StreamTranslator{open: &openBlock{kind: kind, index: 7}}
			tr.emitDelta(s)
			data, err := marshalJSON(struct {
				Type  string `json:"type"`
				Index int    `json:"index"`
				Delta delta  `json:"delta"`
			}{"content_block_delta", 7, d})
			if err != nil {
				t.Fatal(err)
			}
			if want := sse.AppendEvent(nil, "content_block_delta", data); string(tr.out) != string(want) {
				t.Errorf("kind %d, %q:\n got %s\nwant %s", kind, s, tr.out, want)
			}
		}
	}
}
