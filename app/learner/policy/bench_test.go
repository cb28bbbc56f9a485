package policy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/metaclaw/metaclaw/app/learner/tinker"
)

// benchRequest is a 20-message agent conversation with tools and a large
// system prompt (as after skill injection).
func benchRequest() []byte {
	var b strings.Builder
	b.WriteString(`{"model":"m","stream":true,"tools":` + weatherTools + `,"messages":[{"role":"system","content":"`)
	b.WriteString(strings.Repeat("Use metric units and answer briefly. ", 100))
	b.WriteString(`"}`)
	for i := range 10 {
		fmt.Fprintf(&b, `,{"role":"user","content":"question %d: what is the weather in city %d today and tomorrow?"}`, i, i)
		fmt.Fprintf(&b, `,{"role":"assistant","content":"It is sunny in city %d, about %d degrees, with light wind."}`, i, 20+i)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// BenchmarkPrepare measures parsing, rendering and encoding a request.
func BenchmarkPrepare(b *testing.B) {
	rt, err := loadRuntime("testdata/tiny-qwen", "Qwen/Qwen3-8B")
	if err != nil {
		b.Fatal(err)
	}
	body := benchRequest()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := rt.prepare(body, 256); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAnswer measures decoding a 300-token completion with reasoning
// and a tool call and writing it as an SSE body.
func BenchmarkAnswer(b *testing.B) {
	rt, err := loadRuntime("testdata/tiny-qwen", "Qwen/Qwen3-8B")
	if err != nil {
		b.Fatal(err)
	}
	text := "<think>\n" + strings.Repeat("The user wants the weather. ", 20) + "\n</think>\n\n" +
		strings.Repeat("Let me check. ", 20) + `<tool_call>{"name":"get_weather","arguments":{"city":"Paris"}}</tool_call>`
	seq := tinker.SampledSequence{Tokens: append(rt.tok.Encode(text), rt.stopIDs[0]), StopReason: "stop"}
	j := &job{prompt: make([]int, 1000)}
	b.ReportAllocs()
	for b.Loop() {
		a := rt.decodeAnswer(j, seq)
		if _, err := streamBody(meta{id: "x", model: "m"}, a, true); err != nil {
			b.Fatal(err)
		}
	}
}
