package proxy

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzReadOpenAIBody holds fromOpenAIBody's gjson path to decoding with
// encoding/json: for chat completions whose members the fuzzer gives
// random types and values, the two must record the same response.
func FuzzReadOpenAIBody(f *testing.F) {
	for _, s := range []string{"", "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09", "\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8", "abcdefghijklmnopqrstuvwxyz"} {
		f.Add([]byte(s), "hello \"world\"\n\\u00e9")
	}
	f.Fuzz(func(t *testing.T, data []byte, text string) {
		g := &gen{b: data}
		str, _ := json.Marshal(text)
		val := func() string { // a value of a random type, usually a string
			return []string{"5", "-3", "1.5", "1e2", "null", "true", `{"x":1}`, `["a"]`, string(str), string(str), string(str), "99999999999999999999"}[g.pick(12)]
		}
		num := func() string {
			return []string{"0", "7", "-1", "1.0", "2e1", "null", `"3"`, "123456", "18446744073709551616"}[g.pick(9)]
		}
		member := func(parts []string, key, v string) []string {
			if g.pick(4) == 0 {
				return parts
			}
			return append(parts, fmt.Sprintf("%q:%s", key, v))
		}
		var msg []string
		msg = member(msg, "role", `"assistant"`)
		msg = member(msg, "content", val())
		msg = member(msg, "reasoning_content", val())
		msg = member(msg, "reasoning", val())
		tcs := []string{`null`, `[]`, `[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]`,
			`[{"id":5}]`, `{"x":1}`, `[{"function":{"name":` + string(str) + `,"arguments":` + val() + `},"extra":[1]}]`}[g.pick(6)]
		msg = member(msg, "tool_calls", tcs)
		var choice []string
		choice = member(choice, "index", "0")
		choice = member(choice, "message", []string{"{" + strings.Join(msg, ",") + "}", "null", `"m"`}[g.pick(3)])
		choice = member(choice, "finish_reason", val())
		var usage []string
		usage = member(usage, "prompt_tokens", num())
		usage = member(usage, "completion_tokens", num())
		usage = member(usage, "total_tokens", num())
		var top []string
		top = member(top, "id", `"chatcmpl-1"`)
		top = member(top, "choices", []string{"[{" + strings.Join(choice, ",") + "}]", "[]", "null", `{"0":{}}`,
			"[{" + strings.Join(choice, ",") + `},{"message":{"content":"second"}}]`}[g.pick(5)])
		top = member(top, "usage", []string{"{" + strings.Join(usage, ",") + "}", "null", "3"}[g.pick(3)])
		body := []byte("{" + strings.Join(top, ",") + "}")

		want := decodeOpenAIBody(body)
		got, ok := readOpenAIBody(body)
		if !ok {
			return // fromOpenAIBody decodes these
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(response{})); diff != "" {
			t.Fatalf("(-decoded +read):\n%s\n%s", diff, body)
		}
	})
}

// gen turns fuzz bytes into small decisions.
type gen struct{ b []byte }

func (g *gen) pick(n int) int {
	if len(g.b) == 0 {
		return n - 1
	}
	v := int(g.b[0]) % n
	g.b = g.b[1:]
	return v
}

// TestReadOpenAIBody checks that the gjson path takes an ordinary answer
// (so the fuzz test compares something) and refuses what it must decode.
func TestReadOpenAIBody(t *testing.T) {
	body := `{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"hi \"you\"","reasoning_content":"r",` +
		`"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}],` +
		`"usage":{"prompt_tokens":12,"completion_tokens":3}}`
	got, ok := readOpenAIBody([]byte(body))
	want := response{text: `hi "you"`, reasoning: "r", finish: "tool_calls", promptTokens: 12, outTokens: 3,
		toolCalls: decodeOpenAIBody([]byte(body)).toolCalls}
	if !ok || len(want.toolCalls) != 1 {
		t.Fatalf("readOpenAIBody = %+v, %v", got, ok)
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(response{})); diff != "" {
		t.Error(diff)
	}
	for _, b := range []string{`{"choices":[{"message":{"content":5}}]}`, `{"choices":[],"usage":{"prompt_tokens":1.5}}`,
		"{\"choices\":[{\"message\":{\"content\":\"\xff\"}}]}", `not json`,
		`{"choices":[{"message":{"content":"a","reasoning":"r"},"message":{"content":"b"}}]}`,
		`{"choices":[{"message":{"content":"a"}}],"usage":{"prompt_tokens":1,"prompt_tokens":2}}`} {
		if _, ok := readOpenAIBody([]byte(b)); ok {
			t.Errorf("readOpenAIBody(%s) did not defer to decoding", b)
		}
	}
}

// BenchmarkReadOpenAIBody reads the benchmark's answer for the record.
//
//	go test -run '^$' -bench BenchmarkReadOpenAIBody ./proxy/
func BenchmarkReadOpenAIBody(b *testing.B) {
	body := []byte(`{"id":"chatcmpl-1","object":"chat.completion","created":1764480000,"model":"fake-model","choices":[{"index":0,"message":{"role":"assistant","content":"Running ` + "`go test -race ./...`" + ` now; I will report the first failure and my guess. Running go test now; I will report the first failure and my guess. Running go test now; I will report the first failure and my guess. Running go test now; I will report the first failure and my guess. Running go test now."},"finish_reason":"stop"}],"usage":{"prompt_tokens":812,"completion_tokens":100,"total_tokens":912}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := readOpenAIBody(body); !ok {
			b.Fatal("not read")
		}
	}
}
