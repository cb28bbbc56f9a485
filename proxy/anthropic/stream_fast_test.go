package anthropic

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/metaclaw/metaclaw/proxy/sse"
)

// chunkGen builds OpenAI stream chunks from fuzz bytes: members of random
// types, sometimes null, repeated, spelt in another case or unknown.
type chunkGen struct {
	b    []byte
	text string
}

func (g *chunkGen) pick(n int) int {
	if len(g.b) == 0 {
		return 0
	}
	v := int(g.b[0]) % n
	g.b = g.b[1:]
	return v
}

// value is usually a value of the wanted JSON type, sometimes another.
func (g *chunkGen) value(want string) string {
	str, _ := json.Marshal(g.text)
	// The text also goes in raw, so that the fuzzer's escapes (and
	// broken JSON) reach the parsers.
	other := []string{"null", "5", "-1", "1.5", "1e2", "true", `"s"`, string(str), `{"a":1}`, `[1]`, "99999999999999999999",
		`"` + g.text + `"`}
	if g.pick(6) == 0 {
		return other[g.pick(len(other))]
	}
	switch want {
	case "int":
		return []string{"0", "1", "2", "0"}[g.pick(4)]
	case "string":
		if g.pick(4) == 0 {
			return `"` + g.text + `"`
		}
		return string(str)
	}
	return want
}

// object joins members, now and then dropping, repeating, re-casing one
// or adding an unknown one.
func (g *chunkGen) object(members [][2]string) string {
	var parts []string
	for _, m := range members {
		if g.pick(5) == 0 {
			continue
		}
		key := m[0]
		switch g.pick(16) {
		case 0:
			key = strings.ToUpper(key[:1]) + key[1:]
		case 1:
			parts = append(parts, fmt.Sprintf("%q:%s", key, m[1]))
		case 2:
			parts = append(parts, `"logprobs":null`)
		}
		parts = append(parts, fmt.Sprintf("%q:%s", key, m[1]))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func (g *chunkGen) array(elem func() string) string {
	switch g.pick(8) {
	case 0:
		return "null"
	case 1:
		return g.value("[]")
	}
	var es []string
	for range 1 + g.pick(2) {
		if g.pick(8) == 0 {
			es = append(es, "null")
		} else {
			es = append(es, elem())
		}
	}
	return "[" + strings.Join(es, ",") + "]"
}

func (g *chunkGen) chunk() []byte {
	fn := func() string {
		return g.object([][2]string{{"name", g.value("string")}, {"arguments", g.value("string")}})
	}
	tool := func() string {
		f := fn()
		if g.pick(6) == 0 {
			f = g.value("null")
		}
		return g.object([][2]string{{"index", g.value("int")}, {"id", g.value("string")}, {"type", g.value("string")}, {"function", f}})
	}
	delta := func() string {
		return g.object([][2]string{{"role", g.value("string")}, {"content", g.value("string")}, {"refusal", g.value("string")},
			{"reasoning_content", g.value("string")}, {"reasoning", g.value("string")}, {"tool_calls", g.array(tool)}})
	}
	choice := func() string {
		return g.object([][2]string{{"index", g.value("int")}, {"delta", g.value(delta())},
			{"finish_reason", g.value("string")}, {"stop_reason", g.value("string")}})
	}
	usage := []string{"null", `{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}`}[g.pick(2)]
	errv := []string{"null", `{"message":"boom"}`}[g.pick(2)]
	return []byte(g.object([][2]string{{"id", g.value("string")}, {"object", `"chat.completion.chunk"`},
		{"model", g.value("string")}, {"choices", g.array(choice)}, {"usage", usage}, {"error", errv}}))
}

// FuzzReadChunkAgrees holds readChunk to decoding: whenever it reads a
// chunk, decoding succeeds with an equal streamChunk.
func FuzzReadChunkAgrees(f *testing.F) {
	for _, s := range []string{"", "\x01\x02\x03\x04", "\xff\xfe\xfd\xfc\xfb\xfa\xf9", "abcdefghijklmnopqrstuvwxyz0123456789"} {
		f.Add([]byte(s), "héllo \"x\"\n\\u00e9 😀 \\ud800")
	}
	f.Fuzz(func(t *testing.T, data []byte, text string) {
		body := (&chunkGen{b: data, text: text}).chunk()
		got, ok := readChunk(body)
		if !ok {
			return
		}
		var want streamChunk
		if err := json.Unmarshal(body, &want); err != nil {
			t.Fatalf("read a chunk decoding refuses (%v):\n%s", err, body)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("(-decoded +read):\n%s\n%s", diff, body)
		}
	})
}

// TestReadChunk shows the gjson path takes the chunks providers send (so
// the fuzz test compares something) and leaves the unusual ones to
// decoding.
func TestReadChunk(t *testing.T) {
	for _, b := range benchStream[:len(benchStream)-2] { // not usage, not [DONE]
		got, ok := readChunk(b)
		var want streamChunk
		if err := json.Unmarshal(b, &want); !ok || err != nil || !cmp.Equal(want, got) {
			t.Fatalf("readChunk(%s) = %v (%v); decoding gives %+v", b, ok, cmp.Diff(want, got), want)
		}
	}
	for _, b := range []string{
		`{"choices":[{"delta":{"content":5}}]}`, `{"ID":"x","choices":[]}`, `{"choices":[],"choices":[]}`,
		`{"choices":[{"index":1.5}]}`, `{"choices":[],"usage":{"prompt_tokens":1}}`, `{"error":{"message":"x"}}`,
		"{\"choices\":[{\"delta\":{\"content\":\"\xff\"}}]}", `[1]`, `{"choices":{}}`,
	} {
		if _, ok := readChunk([]byte(b)); ok {
			t.Errorf("readChunk(%s) did not leave it to decoding", b)
		}
	}
}

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
