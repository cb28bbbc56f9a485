package openai

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
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
// stream.
func BenchmarkAccumulatorAdd(b *testing.B) {
	stream := streamChunks()
	b.ReportAllocs()
	for b.Loop() {
		var a Accumulator
		for _, line := range stream {
			if err := a.Add(line); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(stream)), "ns/chunk")
}
