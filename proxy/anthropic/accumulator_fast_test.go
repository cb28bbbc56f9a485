package anthropic

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// startedAccumulator returns an accumulator after message_start and two
// block starts (text and tool_use), fed through decoding.
func startedAccumulator(t *testing.T) *Accumulator {
	a := &Accumulator{}
	for _, ev := range [][2]string{
		{"message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"usage":{"input_tokens":3,"output_tokens":1}}}`},
		{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
		{"content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t1","name":"f","input":{}}}`},
	} {
		if err := a.addDecoded(ev[0], []byte(ev[1])); err != nil {
			t.Fatal(err)
		}
	}
	return a
}

// FuzzAccumulatorDeltaAgrees holds addDeltaFast to decoding: for delta
// events whose members the fuzzer gives random types, repeats and cases,
// Add and decoding alone leave the same message and agree on errors.
func FuzzAccumulatorDeltaAgrees(f *testing.F) {
	for _, s := range []string{"", "\x01\x02\x03\x04\x05", "\xff\xfe\xfd\xfc\xfb\xfa", "abcdefghijklmnopqrstuvwxyz"} {
		f.Add([]byte(s), "héllo \"x\"\n\\u00e9 😀 \\ud800")
	}
	f.Fuzz(func(t *testing.T, data []byte, text string) {
		g := newGen(data, text)
		dtype := []string{"text_delta", "input_json_delta", "thinking_delta", "signature_delta", "other"}[g.pick(5)]
		var d []string
		d = g.member(d, "type", g.typed("", dtype))
		for _, k := range []string{"text", "partial_json", "thinking", "signature"} {
			d = g.member(d, k, g.typed("", text))
		}
		delta := jsonObject(g.extras(d))
		if g.pick(8) == 7 {
			delta = g.anyValue(text)
		}
		var ev []string
		ev = g.member(ev, "type", g.typed("", "content_block_delta"))
		ev = g.member(ev, "index", []string{"0", "1", "2", "null", "1.0", `"0"`}[g.pick(6)])
		ev = g.member(ev, "delta", delta)
		for _, k := range []string{"message", "content_block", "usage"} {
			if g.pick(4) == 3 {
				ev = g.member(ev, k, g.anyValue(k))
			}
		}
		body := jsonObject(g.extras(ev))
		event := []string{"content_block_delta", "", "message_delta"}[g.pick(3)]
		fast, slow := startedAccumulator(t), startedAccumulator(t)
		errFast, errSlow := fast.Add(event, []byte(body)), slow.addDecoded(event, []byte(body))
		if (errFast == nil) != (errSlow == nil) {
			t.Fatalf("Add: %v, decoding: %v\n%s", errFast, errSlow, body)
		}
		if diff := cmp.Diff(slow.Message(), fast.Message()); diff != "" {
			t.Fatalf("(-decoded +Add):\n%s\n%s %s", diff, event, body)
		}
	})
}

// TestAccumulatorDeltaFast shows the gjson path takes the deltas Anthropic
// sends (so the fuzz test compares something).
func TestAccumulatorDeltaFast(t *testing.T) {
	a := startedAccumulator(t)
	for i, d := range []string{`{"type":"text_delta","text":"Hel"}`, `{"type":"text_delta","text":"lo \"you\""}`,
		`{"type":"input_json_delta","partial_json":"{\"a\":"}`, `{"type":"input_json_delta","partial_json":"1}"}`} {
		body := fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":%s}`, i/2, d)
		if !a.addDeltaFast("content_block_delta", []byte(body)) {
			t.Fatalf("addDeltaFast(%s) = false", body)
		}
	}
	m := a.Message()
	if m.Content[0].Text != `Hello "you"` || string(m.Content[1].Input) != `{"a":1}` {
		t.Errorf("message = %+v", m.Content)
	}
}

// BenchmarkAccumulatorDeltas records 30 text deltas of a native stream;
// ns/op is per stream.
//
//	go test -run '^$' -bench BenchmarkAccumulatorDeltas -benchmem ./proxy/anthropic/
func BenchmarkAccumulatorDeltas(b *testing.B) {
	var deltas [][]byte
	for i := range 30 {
		deltas = append(deltas, fmt.Appendf(nil, `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"word %d of the answer, "}}`, i))
	}
	for _, path := range []string{"Add", "decoded"} {
		b.Run(path, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				a := &Accumulator{blocks: []*accBlock{{block: Block{Type: "text"}}}}
				for _, d := range deltas {
					var err error
					if path == "Add" {
						err = a.Add("content_block_delta", d)
					} else {
						err = a.addDecoded("content_block_delta", d)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
