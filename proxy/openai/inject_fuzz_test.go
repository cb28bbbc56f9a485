package openai

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// FuzzInjectSystem checks what InjectSystem promises on any request that
// parses: the result parses, every other top-level member and every other
// message keeps its bytes, and the system text ends with the injected text
// (for string content: the old text, a blank line, the new text).
func FuzzInjectSystem(f *testing.F) {
	f.Add([]byte(`{"messages":[{"role":"system","content":"A"},{"role":"user","content":"u"}]}`), "MEM")
	f.Add([]byte(`{"messages":[ {"role" : "developer" , "content" : "x\"y\u00e9\n" , "k":[1, 2]} ],"model":"m"}`), "a\"b\\c\n\u2028\x01é")
	f.Add([]byte(`{"messages":[{"role":"system","content":"first","content":"second"}]}`), "t")
	f.Add([]byte(`{"messages":[{"role":"user","content":"u"},{"content":"S","role":"system","name":"n"}]}`), "")
	f.Add([]byte(`{"messages":[{"role":"system","content":""}],"x":{"y" : 1}}`), "t")
	f.Add([]byte(`{"messages":[{"role":"system","content":[{"type":"text","text":"A"}]}]}`), "t")
	f.Add([]byte(`{"messages":[{"role":"user","content":null}]}`), "t")
	f.Fuzz(func(t *testing.T, body []byte, text string) {
		if !utf8.ValidString(text) {
			t.Skip("invalid UTF-8 in the injected text is written as U+FFFD")
		}
		r, err := ParseChatRequest(body)
		if err != nil {
			return
		}
		items, roles, _ := r.items()
		items = slices.Clone(items)
		before, _ := r.Conversation()
		contents := slices.Clone(r.msgs.contents)
		other := otherMembers(r)
		if err := r.InjectSystem(text); err != nil {
			t.Fatalf("InjectSystem: %v", err)
		}
		out, _ := r.Marshal()
		got, err := ParseChatRequest(out)
		if err != nil {
			t.Fatalf("injected request does not parse: %v\n%s", err, out)
		}
		if o := otherMembers(got); !slices.EqualFunc(o, other, bytes.Equal) {
			t.Fatalf("other members changed:\n in %s\nout %s", body, out)
		}
		after, _ := got.Conversation()
		gotItems, _, _ := got.items()
		idx := slices.IndexFunc(roles, func(role string) bool { return role == "system" || role == "developer" })
		wantText, exact := text, true
		switch {
		case idx < 0:
			idx, items = 0, append([]json.RawMessage{nil}, items...)
		case contents[idx].Type == gjson.String && before[idx].Text != "":
			wantText = before[idx].Text + "\n\n" + text
		case contents[idx].IsArray():
			exact = false // a new text part, joined to the others with "\n"
		}
		if len(gotItems) != len(items) {
			t.Fatalf("%d messages became %d\n%s", len(items), len(gotItems), out)
		}
		for i := range items {
			if i != idx && !bytes.Equal(items[i], gotItems[i]) {
				t.Fatalf("message %d changed: %s -> %s", i, items[i], gotItems[i])
			}
		}
		if s := after[idx].Text; exact && s != wantText || !strings.HasSuffix(s, text) {
			t.Fatalf("system text = %q, want %q\n%s", s, wantText, out)
		}
	})
}

// otherMembers returns the raw top-level members other than "messages".
func otherMembers(r *ChatRequest) [][]byte {
	var out [][]byte
	for _, f := range r.obj.Fields {
		if f.Key != "messages" {
			out = append(out, append([]byte(f.Key+"="), f.Val...))
		}
	}
	return out
}
