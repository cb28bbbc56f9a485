package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/metaclaw/metaclaw/proxy/internal/rawjson"
)

// chunkGen turns fuzz bytes into streamed chunks whose members are
// present or not, and of the type the accumulator expects or another, at
// the fuzzer's choice. Once the bytes run out every choice is the first
// option, which is the ordinary one.
type chunkGen struct {
	b    []byte
	text string // the fuzz string, for text with escapes and any Unicode
}

// pick returns a number in [0, n).
func (g *chunkGen) pick(n int) int {
	if len(g.b) == 0 {
		return 0
	}
	v := int(g.b[0]) % n
	g.b = g.b[1:]
	return v
}

// oneOf returns one of vals.
func (g *chunkGen) oneOf(vals ...string) string { return vals[g.pick(len(vals))] }

// typed returns good() most of the time and a value of any type otherwise.
func (g *chunkGen) typed(good func() string) string {
	if g.pick(8) == 7 {
		return g.any()
	}
	return good()
}

// any returns a JSON value of any type.
func (g *chunkGen) any() string {
	switch g.pick(4) {
	case 0:
		return g.str()
	case 1:
		return g.number()
	case 2:
		return g.oneOf("null", "true", "false")
	default:
		return g.oneOf(`{}`, `[]`, `{"x":[1,{"y":null}]}`, `[ "a" , 1 ]`, `{ "stop" : [ 1, 2 ] }`, `{"x":{"x":1},"x":2}`)
	}
}

// number returns a JSON number, usually an integer that fits an int.
func (g *chunkGen) number() string {
	return g.oneOf("0", "1", "2", "7", "-1", "-0", "1700000000", "1.5", "1e2", "0.0", "-2E-1",
		"9223372036854775807", "9223372036854775808", "-9223372036854775809", "99999999999999999999")
}

// str returns a JSON string, usually holding some of the fuzz text.
func (g *chunkGen) str() string {
	switch g.pick(8) {
	case 0, 1, 2:
		return quote(g.text)
	case 3:
		return quote(g.piece())
	case 4:
		return `""`
	case 5:
		return g.oneOf(`"\ud83d\ude00"`, `"\uD83D\uDE00x"`, `"\ud800"`, `"\udc00a"`, `"\ud800\u0041"`,
			`"\ud800\ud800\udc00"`, `"a\u0000b\u001f"`, `"\/\\\"\b\f\n\r\t"`, `"\u00e9\u2028"`)
	case 6:
		return `"` + g.piece() + `"` // raw: may be invalid JSON or UTF-8
	default:
		return g.oneOf("\"a\xffb\"", "\"\xc3\"", "\"\xed\xa0\x80\"", `"stop"`, `"assistant"`, `"call_1"`)
	}
}

// piece returns a part of the fuzz text, cut anywhere.
func (g *chunkGen) piece() string {
	if g.text == "" {
		return ""
	}
	i := g.pick(len(g.text))
	return g.text[i : i+g.pick(len(g.text)-i+1)]
}

// quote returns s as a JSON string.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// ws returns JSON whitespace, usually none.
func (g *chunkGen) ws() string { return g.oneOf("", "", "", " ", "\n\t", "\r\n ") }

// object returns a JSON object of those members the fuzzer keeps, in
// order; a member may come twice and a key may be written with escapes.
func (g *chunkGen) object(members ...[2]string) string {
	var parts []string
	for _, m := range members {
		if g.pick(4) == 3 {
			continue
		}
		key := quote(m[0])
		switch g.pick(32) {
		case 31:
			key = fmt.Sprintf(`"\u%04x%s`, m[0][0], key[2:])
		case 30: // another case: decoding matches it to the same field
			key = quote(strings.ToUpper(m[0][:1]) + m[0][1:])
		}
		parts = append(parts, g.ws()+key+g.ws()+":"+g.ws()+m[1]+g.ws())
		if g.pick(32) == 31 {
			parts = append(parts, parts[len(parts)-1])
		}
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// array returns a JSON array of up to max elements made by elem.
func (g *chunkGen) array(max int, elem func() string) string {
	items := make([]string, g.pick(max+1))
	for i := range items {
		items[i] = g.ws() + elem() + g.ws()
	}
	return "[" + strings.Join(items, ",") + "]"
}

// chunk returns one "data:" payload.
func (g *chunkGen) chunk() string {
	switch g.pick(16) {
	case 13:
		return g.ws() + "[DONE]" + g.ws()
	case 14:
		c := g.chunk()
		return c[:g.pick(len(c)+1)] // usually cut short
	case 15:
		n := min(g.pick(len(g.b)+1), len(g.b))
		garbage := string(g.b[:n])
		g.b = g.b[n:]
		return garbage
	}
	members := [][2]string{
		{"id", g.typed(g.str)},
		{"object", `"chat.completion.chunk"`},
		{"created", g.typed(g.number)},
		{"model", g.typed(g.str)},
		{"system_fingerprint", g.typed(g.str)},
		{"choices", g.typed(func() string { return g.array(3, g.choice) })},
		{"usage", g.typed(g.usage)},
	}
	if g.pick(8) == 7 {
		members = append(members, [2]string{"error", g.oneOf(`{"message":"m","type":"t","code":5}`, `"plain"`, "null", g.any())})
	}
	return g.ws() + g.object(members...) + g.ws()
}

// choice returns one element of "choices".
func (g *chunkGen) choice() string {
	if g.pick(16) == 15 {
		return "null"
	}
	return g.object(
		[2]string{"index", g.typed(func() string { return g.oneOf("0", "0", "1", "2", "null", "-0") })},
		[2]string{"delta", g.typed(g.delta)},
		[2]string{"logprobs", "null"},
		[2]string{"finish_reason", g.typed(func() string { return g.oneOf("null", `"stop"`, `""`, g.str()) })},
		[2]string{"stop_reason", g.any()},
	)
}

// delta returns a choice's "delta".
func (g *chunkGen) delta() string {
	if g.pick(16) == 15 {
		return "null"
	}
	return g.object(
		[2]string{"role", g.typed(func() string { return g.oneOf(`"assistant"`, g.str(), "null") })},
		[2]string{"content", g.typed(func() string { return g.oneOf(g.str(), "null") })},
		[2]string{"refusal", g.typed(func() string { return g.oneOf("null", g.str()) })},
		[2]string{"reasoning_content", g.typed(func() string { return g.oneOf(g.str(), "null", `""`) })},
		[2]string{"reasoning", g.typed(func() string { return g.oneOf(g.str(), "null", `""`) })},
		[2]string{"tool_calls", g.typed(func() string { return g.array(3, g.toolCall) })},
	)
}

// toolCall returns one element of a delta's "tool_calls".
func (g *chunkGen) toolCall() string {
	if g.pick(16) == 15 {
		return "null"
	}
	return g.object(
		[2]string{"index", g.typed(func() string { return g.oneOf("0", "1", "2", "null") })},
		[2]string{"id", g.typed(g.str)},
		[2]string{"type", g.typed(func() string { return g.oneOf(`"function"`, g.str()) })},
		[2]string{"function", g.typed(func() string {
			if g.pick(8) == 7 {
				return "null"
			}
			return g.object([2]string{"name", g.typed(g.str)}, [2]string{"arguments", g.typed(g.str)})
		})},
	)
}

// usage returns a chunk's "usage".
func (g *chunkGen) usage() string {
	if g.pick(4) != 3 {
		return "null"
	}
	return g.object(
		[2]string{"prompt_tokens", g.typed(g.number)},
		[2]string{"completion_tokens", g.typed(g.number)},
		[2]string{"total_tokens", g.typed(g.number)},
		[2]string{"prompt_tokens_details", g.typed(func() string {
			return g.object([2]string{"cached_tokens", g.typed(g.number)})
		})},
	)
}

// FuzzAccumulatorFastPath feeds the same generated chunks to Add and to
// addDecoded, which decodes every chunk, and requires the same errors and
// the same accumulated response. The buffer given to Add is overwritten
// after each call, as a caller reusing it would, so anything the gjson
// path kept without copying shows up as a difference.
func FuzzAccumulatorFastPath(f *testing.F) {
	for _, s := range []string{"", "\x00\x00\x00\x00\x00\x01\x02\x03\x04\x05\x06\x07", "\x07\x06\x05\x04\x03\x02\x01\x00",
		"\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19"} {
		f.Add([]byte(s), "hello \"world\"\n\\ \u00e9 \U0001F600")
		f.Add([]byte(s), "")
	}
	f.Fuzz(func(t *testing.T, data []byte, text string) {
		g := &chunkGen{b: data, text: text}
		var fast, slow Accumulator
		for range 1 + g.pick(8) {
			line := g.chunk()
			buf := []byte(line)
			errFast := fast.Add(buf)
			for i := range buf {
				buf[i] = 'x'
			}
			errSlow := slow.addDecoded([]byte(line))
			if (errFast == nil) != (errSlow == nil) || errFast != nil && errFast.Error() != errSlow.Error() {
				t.Fatalf("Add(%q) = %v, decoding gives %v", line, errFast, errSlow)
			}
		}
		if diff := cmp.Diff(slow.Completion(), fast.Completion()); diff != "" {
			t.Fatalf("Completion (-decoded +gjson):\n%s", diff)
		}
		if diff := cmp.Diff(slow.ToolCalls(), fast.ToolCalls()); diff != "" {
			t.Fatalf("ToolCalls (-decoded +gjson):\n%s", diff)
		}
		if diff := cmp.Diff(slow.Usage(), fast.Usage()); diff != "" {
			t.Fatalf("Usage (-decoded +gjson):\n%s", diff)
		}
		if slow.Done() != fast.Done() || slow.Text() != fast.Text() || slow.Reasoning() != fast.Reasoning() ||
			slow.FinishReason() != fast.FinishReason() {
			t.Fatalf("getters differ: decoded %v %q %q %q, gjson %v %q %q %q", slow.Done(), slow.Text(), slow.Reasoning(),
				slow.FinishReason(), fast.Done(), fast.Text(), fast.Reasoning(), fast.FinishReason())
		}
	})
}

// FuzzParseStreamChunkAgrees holds readStreamChunk to decoding: whenever
// it reads a generated chunk, decoding succeeds with an equal StreamChunk.
func FuzzParseStreamChunkAgrees(f *testing.F) {
	for _, s := range []string{"", "\x01\x02\x03\x04", "\xff\xfe\xfd\xfc\xfb\xfa\xf9", "abcdefghijklmnopqrstuvwxyz0123456789"} {
		f.Add([]byte(s), "héllo \"x\"\n\\u00e9 😀 \\ud800")
	}
	f.Fuzz(func(t *testing.T, data []byte, text string) {
		body := []byte((&chunkGen{b: data, text: text}).chunk())
		got, ok := readStreamChunk(bytes.TrimSpace(body))
		if !ok {
			return
		}
		var want StreamChunk
		if err := json.Unmarshal(body, &want); err != nil {
			t.Fatalf("read a chunk decoding refuses (%v):\n%s", err, body)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("(-decoded +read):\n%s\n%s", diff, body)
		}
	})
}

// TestReadStreamChunk shows the gjson path takes the chunks providers
// send (so the fuzz test compares something) and leaves the unusual ones
// to decoding.
func TestReadStreamChunk(t *testing.T) {
	for _, b := range streamChunks() {
		if string(b) == "[DONE]" {
			continue
		}
		got, ok := readStreamChunk(b)
		var want StreamChunk
		if err := json.Unmarshal(b, &want); !ok || err != nil || !cmp.Equal(want, got) {
			t.Fatalf("readStreamChunk(%s) = %v (%v); decoding gives %+v", b, ok, cmp.Diff(want, got), want)
		}
	}
	for _, b := range []string{
		`{"choices":[{"delta":{"content":5}}]}`, `{"ID":"x","choices":[]}`, `{"choices":[],"choices":[]}`,
		`{"choices":[{"index":1.5}]}`, `{"error":{"message":"x"}}`, `{"choices":[{"index":0},{"index":0}]}`,
		"{\"choices\":[{\"delta\":{\"content\":\"\xff\"}}]}", `[1]`, `{"choices":{}}`,
	} {
		if _, ok := readStreamChunk([]byte(b)); ok {
			t.Errorf("readStreamChunk(%s) did not leave it to decoding", b)
		}
	}
}

// streamChunks returns the lines of a typical streamed answer: a role
// chunk, 28 content deltas of about 16 characters, a finish chunk, a usage
// chunk and [DONE].
func streamChunks() [][]byte {
	const head = `{"id":"chatcmpl-BjQ3v8fLqQ0eXbJX8sR0fKq1m2n3o","object":"chat.completion.chunk","created":1750000000,` +
		`"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_34a54ae93c",`
	lines := []string{head + `"choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}`}
	text := strings.Repeat("The quick brown fox jumps over the lazy dog.\nIt says \"hi\" ", 10)
	for i := range 28 {
		lines = append(lines, head+`"choices":[{"index":0,"delta":{"content":`+quote(text[i*16:i*16+16])+
			`},"logprobs":null,"finish_reason":null}],"usage":null}`)
	}
	lines = append(lines,
		head+`"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}`,
		head+`"choices":[],"usage":{"prompt_tokens":1234,"completion_tokens":420,"total_tokens":1654,`+
			`"prompt_tokens_details":{"cached_tokens":1024,"audio_tokens":0},"completion_tokens_details":`+
			`{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}`,
		"[DONE]")
	out := make([][]byte, len(lines))
	for i, l := range lines {
		out[i] = []byte(l)
	}
	return out
}

// TestAddFast checks that the gjson path takes ordinary chunks (so the
// fuzz test compares it with something) and leaves the others to
// decoding, changing nothing.
func TestAddFast(t *testing.T) {
	ordinary := []string{
		`{"choices":[{"index":0,"delta":{"reasoning_content":"r","tool_calls":[{"index":0,"id":"c","type":"function",` +
			`"function":{"name":"f","arguments":"{\"a\":"}},null]},"finish_reason":"tool_calls","stop_reason":[1, 2]}]}`,
		`{"choices":[{"index":1,"delta":{"content":"other"}},null],"created":null,"error":null}`,
		`{"id":"\u0041","choices":null,"usage":{"prompt_tokens":3}}`,
	}
	var fast, slow Accumulator
	for _, line := range streamChunks() {
		if s := string(line); s != "[DONE]" {
			ordinary = append(ordinary, s)
		}
	}
	for _, c := range ordinary {
		if !fast.addFast([]byte(c)) {
			t.Errorf("addFast(%s) deferred", c)
		}
		if err := slow.addDecoded([]byte(c)); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(slow.Completion(), fast.Completion()); diff != "" {
		t.Errorf("(-decoded +gjson):\n%s", diff)
	}
	for _, c := range []string{
		`{"id":5}`, `{"created":1.5}`, `{"created":"1"}`, `{"choices":{}}`, `{"usage":[]}`, `{"usage":{"prompt_tokens":"1"}}`,
		`{"choices":[{"index":1,"delta":{"content":5}},{"index":0}]}`, `{"choices":[{"index":"0"}]}`,
		`{"choices":[{"index":0},{"index":0}]}`, `{"choices":[{"delta":{"tool_calls":[{"index":1e0}]}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"function":"f"}]}}]}`, `{"choices":[{"finish_reason":false}]}`,
		`{"error":{"message":"overloaded"}}`, `{"id":"a","id":"b"}`, "{\"id\":\"\xff\"}", `{"id":"a"`, `null`,
		`{"x":` + strings.Repeat("[", rawjson.MaxDepth) + strings.Repeat("]", rawjson.MaxDepth) + `}`,
	} {
		var a Accumulator
		if a.addFast([]byte(c)) {
			t.Errorf("addFast(%.80s) did not defer", c)
		}
		if diff := cmp.Diff(new(Accumulator).Completion(), a.Completion()); diff != "" {
			t.Errorf("addFast(%.80s) changed the accumulator:\n%s", c, diff)
		}
	}
}

// TestAddCopies checks that nothing Add keeps aliases the caller's buffer.
func TestAddCopies(t *testing.T) {
	var a Accumulator
	for _, c := range []string{
		`{"id":"i","model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"role":"r","tool_calls":` +
			`[{"index":0,"id":"c","type":"t","function":{"name":"n","arguments":"x"}}]},"finish_reason":"f","stop_reason":"s"}]}`,
		`{"choices":[],"usage":{"prompt_tokens":1}}`,
	} {
		buf := []byte(c)
		if err := a.Add(buf); err != nil {
			t.Fatal(err)
		}
		for i := range buf {
			buf[i] = '#'
		}
	}
	want := ChatCompletion{ID: "i", Object: "chat.completion", Model: "m", SystemFingerprint: "fp",
		Choices: []Choice{{Message: ResponseMessage{Role: "r", ToolCalls: []ToolCall{{ID: "c", Type: "t",
			Function: FunctionCall{Name: "n", Arguments: "x"}}}}, FinishReason: "f", StopReason: json.RawMessage(`"s"`)}},
		Usage: &Usage{PromptTokens: 1}}
	if diff := cmp.Diff(want, a.Completion()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// BenchmarkAccumulatorAdd feeds a typical 30-chunk stream; one op is one
// stream. "decode" is the encoding/json path Add used before the gjson
// path.
func BenchmarkAccumulatorAdd(b *testing.B) {
	stream := streamChunks()
	for _, bc := range []struct {
		name string
		add  func(*Accumulator, []byte) error
	}{{"gjson", (*Accumulator).Add}, {"decode", (*Accumulator).addDecoded}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var a Accumulator
				for _, line := range stream {
					if err := bc.add(&a, line); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(stream)), "ns/chunk")
		})
	}
}

// addFast is Add for a chunk ParseStreamChunk reads with gjson; it reports
// false, having changed nothing, for the others. The tests use it to see
// which chunks take that path.
func (a *Accumulator) addFast(data []byte) bool {
	c, ok := readStreamChunk(data)
	if ok {
		_ = a.AddChunk(&c) // readStreamChunk leaves chunks with errors to decoding
	}
	return ok
}

// addDecoded is Add decoding every chunk with encoding/json: the reference
// the tests hold Add to.
func (a *Accumulator) addDecoded(data []byte) error {
	data = bytes.TrimSpace(data)
	if string(data) == "[DONE]" {
		a.done = true
		return nil
	}
	var c StreamChunk
	if err := json.Unmarshal(data, &c); err != nil {
		return fmt.Errorf("decode chunk: %w", err)
	}
	return a.AddChunk(&c)
}
