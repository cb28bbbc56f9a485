package anthropic

import (
	"fmt"
	"strings"
	"testing"
)

// benchStream is an OpenAI stream as a provider sends it for an agent
// turn: a role chunk, 30 text deltas, one tool call whose arguments come
// in 20 fragments, the finish chunk, the usage chunk and [DONE].
var benchStream = func() [][]byte {
	head := `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1764480000,"model":"fake-model","choices":[`
	var out [][]byte
	add := func(choice string) { out = append(out, []byte(head+choice+`]}`)) }
	add(`{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}`)
	for i := range 30 {
		add(fmt.Sprintf(`{"index":0,"delta":{"content":"word %d of the answer, "},"logprobs":null,"finish_reason":null}`, i))
	}
	add(`{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"run_tests","arguments":""}}]},"finish_reason":null}`)
	args := `{"package":"./store/...","race":true,"run":"TestRecordTurns","count":1,"timeout":"120s"}`
	for i := 0; i < len(args); i += len(args)/20 + 1 {
		frag := args[i:min(len(args), i+len(args)/20+1)]
		add(fmt.Sprintf(`{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":%q}}]},"finish_reason":null}`, frag))
	}
	add(`{"index":0,"delta":{},"finish_reason":"tool_calls"}`)
	out = append(out, []byte(strings.Replace(head, `"choices":[`, `"choices":[],"usage":{"prompt_tokens":14000,"completion_tokens":220,"total_tokens":14220}}`, 1)))
	return append(out, []byte("[DONE]"))
}()

// BenchmarkStreamTranslator measures translating one streamed answer
// (benchStream, 55 payloads) into Anthropic events; ns/op is per stream.
//
//	go test -run '^$' -bench BenchmarkStreamTranslator -benchmem ./proxy/anthropic/
func BenchmarkStreamTranslator(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		tr := NewStreamTranslator("claude-sonnet-4-5")
		for _, c := range benchStream {
			if _, err := tr.Chunk(c); err != nil {
				b.Fatal(err)
			}
		}
	}
}
