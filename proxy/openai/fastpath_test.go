package openai

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/metaclaw/metaclaw/proxy/internal/jsontest"
)

// choices turns fuzz bytes into the messages of a request; its decisions
// come from chunkGen's pick.
type choices struct{ chunkGen }

// value returns a JSON value of a type chosen by the fuzzer; strings are
// the common case.
func (c *choices) value(str string) string {
	switch c.pick(8) {
	case 0:
		return "5"
	case 1:
		return "null"
	case 2:
		return "true"
	case 3:
		return `{"x":1}`
	case 4:
		return `["a"]`
	default:
		b, _ := json.Marshal(str)
		return string(b)
	}
}

// member appends `"key":value` to parts unless the fuzzer leaves it out.
func (c *choices) member(parts []string, key, val string) []string {
	if c.pick(3) == 0 {
		return parts
	}
	return append(parts, fmt.Sprintf("%q:%s", key, val))
}

func (c *choices) message(i int) string {
	if c.pick(16) == 0 {
		return c.value("not an object")
	}
	var m []string
	m = c.member(m, "role", c.value([]string{"system", "user", "assistant", "tool", "developer"}[c.pick(5)]))
	m = c.member(m, "name", c.value("n"))
	m = c.member(m, "tool_call_id", c.value("call_1"))
	m = c.member(m, "reasoning_content", c.value("thinking"))
	m = c.member(m, "extra", c.value("kept"))
	switch c.pick(3) {
	case 0:
		m = c.member(m, "content", c.value(fmt.Sprintf("text \u00e9 \\ \" %d", i)))
	case 1:
		m = c.member(m, "content", c.parts())
	}
	if c.pick(2) == 0 {
		m = c.member(m, "tool_calls", c.toolCalls())
	}
	return "{" + strings.Join(m, ",") + "}"
}

func (c *choices) parts() string {
	if c.pick(8) == 0 {
		return c.value("parts")
	}
	var ps []string
	for j := range c.pick(4) {
		if c.pick(10) == 0 {
			ps = append(ps, c.value("part"))
			continue
		}
		var p []string
		p = c.member(p, "type", c.value([]string{"text", "image_url", "input_audio"}[c.pick(3)]))
		p = c.member(p, "text", c.value(fmt.Sprintf("part %d", j)))
		if c.pick(2) == 0 {
			p = c.member(p, "image_url", []string{c.value("data:x"), `{"url":` + c.value("u") + `,"detail":` + c.value("low") + `}`}[c.pick(2)])
		}
		ps = append(ps, "{"+strings.Join(p, ",")+"}")
	}
	return "[" + strings.Join(ps, ",") + "]"
}

func (c *choices) toolCalls() string {
	if c.pick(8) == 0 {
		return c.value("calls")
	}
	var tcs []string
	for range c.pick(3) {
		if c.pick(10) == 0 {
			tcs = append(tcs, c.value("call"))
			continue
		}
		var tc []string
		tc = c.member(tc, "id", c.value("call_1"))
		tc = c.member(tc, "type", c.value("function"))
		fn := c.value("f")
		if c.pick(3) > 0 {
			var f []string
			f = c.member(f, "name", c.value("get_weather"))
			f = c.member(f, "arguments", c.value(`{"city":"Paris"}`))
			fn = "{" + strings.Join(f, ",") + "}"
		}
		tc = c.member(tc, "function", fn)
		tcs = append(tcs, "{"+strings.Join(tc, ",")+"}")
	}
	return "[" + strings.Join(tcs, ",") + "]"
}

// slowVerdict is what the decoding path says about messages: every element
// an object with a string role, and Messages decodes.
func slowVerdict(body []byte) ([]RoleText, bool) {
	var top struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if json.Unmarshal(body, &top) != nil {
		return nil, false
	}
	for _, item := range top.Messages {
		var head struct {
			Role *string `json:"role"`
		}
		if firstByte(item) != '{' || json.Unmarshal(item, &head) != nil || head.Role == nil {
			return nil, false
		}
	}
	var all struct {
		Messages []Message `json:"messages"`
	}
	if json.Unmarshal(body, &all) != nil {
		return nil, false
	}
	out := make([]RoleText, len(all.Messages))
	for i, m := range all.Messages {
		out[i] = RoleText{Role: m.Role, Text: m.Content.String()}
	}
	return out, true
}

// FuzzFastPathAgrees holds ParseChatRequest's gjson checks and
// Conversation to the verdicts and texts of decoding into Message values,
// over messages whose members have fuzzer-chosen types.
func FuzzFastPathAgrees(f *testing.F) {
	for _, s := range []string{"", "\x01\x02\x03", "\xff\xfe\xfd\xfc\xfb\xfa", "abcdefghijklmnopqrstuvwxyz0123456789"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &choices{chunkGen{b: data}}
		var msgs []string
		for i := range 1 + c.pick(4) {
			msgs = append(msgs, c.message(i))
		}
		body := []byte(`{"model":"m","messages":[` + strings.Join(msgs, ",") + `]}`)
		want, ok := slowVerdict(body)
		req, err := ParseChatRequest(body)
		if (err == nil) != ok {
			t.Fatalf("fast err = %v, decoding ok = %v\n%s", err, ok, body)
		}
		if err != nil {
			return
		}
		got, err := req.Conversation()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("Conversation (-decoded +fast):\n%s\n%s", diff, body)
		}
	})
}

// FuzzInjectSystemSplice holds InjectSystem's splicing fast path to the
// path that re-encodes the system message: both must give the same JSON
// value, whatever the request and the text.
func FuzzInjectSystemSplice(f *testing.F) {
	f.Add([]byte(`{"messages":[{"role":"system","content":"A"},{"role":"user","content":"u"}]}`), "MEM")
	f.Add([]byte(`{"messages":[ {"role" : "developer" , "content" : "x\"y\u00e9\n" , "k":[1, 2]} ],"model":"m"}`), "a\"b\\c\n\u2028\x01é\xff")
	f.Add([]byte(`{"messages":[{"role":"system","content":"first","content":"second"}]}`), "t")
	f.Add([]byte(`{"messages":[{"role":"user","content":"u"},{"content":"S","role":"system","name":"n"}]}`), "")
	f.Add([]byte(`{"messages":[{"role":"system","content":""}]}`), "t")
	f.Add([]byte(`{"messages":[{"role":"system","content":[{"type":"text","text":"A"}]}]}`), "t")
	f.Fuzz(func(t *testing.T, body []byte, text string) {
		fast, err := ParseChatRequest(body)
		if err != nil {
			return
		}
		slow, _ := ParseChatRequest(body)
		if err := fast.InjectSystem(text); err != nil {
			t.Fatalf("InjectSystem: %v", err)
		}
		items, roles, _ := slow.items()
		idx := slices.IndexFunc(roles, func(role string) bool { return role == "system" || role == "developer" })
		if err := slow.rebuildSystem(items, idx, text); err != nil {
			t.Fatalf("rebuildSystem: %v", err)
		}
		a, _ := fast.Marshal()
		b, _ := slow.Marshal()
		if diff := jsontest.Diff(t, b, a); diff != "" {
			t.Fatalf("(-rebuilt +spliced):\n%s\nbody %s", diff, body)
		}
		if _, err := ParseChatRequest(a); err != nil {
			t.Fatalf("spliced request does not parse: %v\n%s", err, a)
		}
	})
}
