package tokenizer

import (
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// roundTripSamples are texts that Encode then Decode must give back.
var roundTripSamples = []string{
	"", " ", "Hello world", "a  b   c    d", "end   ", "\n\n\n", "\r\n", "x\r\n\r\ny",
	"\tindented\n\t\ttab", "1234567890", "I'm it'll they've we'd", "今天天气很好，我们。",
	"東京の天気は晴れです", "안녕하세요", "🎉 👍🏽 ❤️ 👨‍👩‍👧", "café naïve Zürich", "Ελλάδα Москва",
	"a\u00a0b\u3000c", "<|im_start|>user\nHi<|im_end|>\n", "<tool_call>\n{\"name\": \"f\"}\n</tool_call>",
	"<think>\nreasoning\n</think>\n\nanswer", "<|im_start", "<|im_end|><|im_end|>", "\x00\x01\x7f",
	"func main() {\n\tfmt.Println(\"hi\")\n}\n", strings.Repeat("ab", 300), strings.Repeat("=", 1000),
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	for _, fx := range fixtures {
		tok := loadFixture(t, fx)
		for _, s := range append(roundTripSamples, loadStringTexts(t)...) {
			if fx == "tiny-qwen" {
				s = norm.NFC.String(s) // Qwen normalises, so only NFC text comes back as it was
			}
			ids := tok.Encode(s)
			if got := tok.Decode(ids); got != s {
				t.Errorf("%s: Decode(Encode(%q)) = %q", fx, s, got)
			}
			if got := streamDecode(tok, ids); got != s {
				t.Errorf("%s: streaming decode of %q = %q", fx, s, got)
			}
			if got := tok.Decode(tok.EncodeOrdinary(s)); got != s {
				t.Errorf("%s: Decode(EncodeOrdinary(%q)) = %q", fx, s, got)
			}
		}
	}
}

func loadStringTexts(t testing.TB) []string {
	var out []string
	for _, c := range loadStrings(t) {
		out = append(out, c.Text)
	}
	return out
}

// streamDecode feeds ids one at a time to a Decoder, checking that every
// piece it returns is whole UTF-8, and returns the joined text.
func streamDecode(tok *Tokenizer, ids []int) string {
	d := tok.NewDecoder()
	var b strings.Builder
	for _, id := range ids {
		piece := d.Add(id)
		if !utf8.ValidString(piece) {
			return "invalid UTF-8 piece " + piece
		}
		b.WriteString(piece)
	}
	b.WriteString(d.Flush())
	return b.String()
}

func TestDecoderHoldsPartialCharacters(t *testing.T) {
	t.Parallel()
	tok := loadFixture(t, "tiny-qwen")
	// "é" is two bytes and "🎉" four; one token per byte.
	var ids []int
	for _, b := range []byte("é🎉") {
		ids = append(ids, tok.model.byteIDs[b])
	}
	d := tok.NewDecoder()
	want := []string{"", "é", "", "", "", "🎉"}
	for i, id := range ids {
		if got := d.Add(id); got != want[i] {
			t.Errorf("after token %d: got %q, want %q", i, got, want[i])
		}
	}
	if got := d.Flush(); got != "" {
		t.Errorf("Flush = %q, want empty", got)
	}
}

func TestDecodeInvalidBytes(t *testing.T) {
	t.Parallel()
	tok := loadFixture(t, "tiny-llama3")
	byteID := func(b byte) int { return tok.model.byteIDs[b] }
	im, _ := tok.TokenID("<|eot_id|>")
	tests := []struct {
		name  string
		bytes []byte
		want  string
	}{
		{"truncated three-byte", []byte{0xE2, 0x82}, "\uFFFD"},
		{"truncated four-byte then ascii", []byte{0xF0, 0x9F, 0x98, 'a'}, "\uFFFDa"},
		{"overlong lead bytes", []byte{0xC0, 0x80}, "\uFFFD\uFFFD"},
		{"lone continuation", []byte{0x80, 'x'}, "\uFFFDx"},
		{"surrogate", []byte{0xED, 0xA0, 0x80}, "\uFFFD\uFFFD\uFFFD"},
		{"bad second byte", []byte{0xE0, 0x80, 0x80}, "\uFFFD\uFFFD\uFFFD"},
	}
	for _, tt := range tests {
		var ids []int
		for _, b := range tt.bytes {
			ids = append(ids, byteID(b))
		}
		if got := tok.Decode(ids); got != tt.want {
			t.Errorf("%s: Decode = %q, want %q", tt.name, got, tt.want)
		}
		if got := streamDecode(tok, ids); got != tt.want {
			t.Errorf("%s: streaming = %q, want %q", tt.name, got, tt.want)
		}
		// An added token ends the pending bytes, as tokenizers.js does.
		withToken := append(append([]int{}, ids...), im)
		if got := tok.Decode(withToken); got != tt.want+"<|eot_id|>" {
			t.Errorf("%s + added token: Decode = %q", tt.name, got)
		}
	}
}

// FuzzRoundTrip checks that Encode loses no byte: the tokens' bytes are
// the text's bytes, for any text, valid UTF-8 or not, and that the
// streaming decoder agrees with Decode.
func FuzzRoundTrip(f *testing.F) {
	for _, s := range roundTripSamples {
		f.Add(s)
	}
	f.Add("\xff\xfe<|eot_id|>\xe2\x82")
	tok := loadFixture(f, "tiny-llama3")
	f.Fuzz(func(t *testing.T, s string) {
		ids := tok.Encode(s)
		var raw []byte
		for _, id := range ids {
			if tok.added[id] {
				raw = append(raw, tok.tokens[id]...)
			} else {
				raw = appendTokenBytes(raw, tok.tokens[id])
			}
		}
		if string(raw) != s {
			t.Fatalf("token bytes %q, text %q", raw, s)
		}
		if utf8.ValidString(s) && tok.Decode(ids) != s {
			t.Fatalf("Decode(Encode(%q)) = %q", s, tok.Decode(ids))
		}
		if got, want := streamDecode(tok, ids), tok.Decode(ids); got != want {
			t.Fatalf("streaming %q, Decode %q", got, want)
		}
	})
}

func TestConcurrentEncode(t *testing.T) {
	t.Parallel()
	tok := loadFixture(t, "tiny-qwen")
	texts := loadStringTexts(t)
	want := make([][]int, len(texts))
	for i, s := range texts {
		want[i] = tok.Encode(s)
	}
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for rep := 0; rep < 20; rep++ {
				for i, s := range texts {
					if got := tok.Encode(s); len(got) != len(want[i]) {
						t.Errorf("concurrent Encode(%q) gave %d ids, want %d", s, len(got), len(want[i]))
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}
