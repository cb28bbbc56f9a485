package anthropic

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// checkReader holds a member's gjson reader and its accessor to its
// decoder, on the member raw of a request made from body: the reader must
// answer exactly when decoding succeeds and raw is valid UTF-8, with a
// value cmp-equal to decoding's, and the accessor must give decoding's
// value and error. It reports whether the reader answered.
func checkReader[T any](t *testing.T, body, raw []byte, decode func() (T, error), read func() (T, bool), access func() (T, error)) bool {
	t.Helper()
	want, wantErr := decode()
	got, ok := read()
	if ok != (wantErr == nil && utf8.Valid(raw)) {
		t.Fatalf("fast path ok = %v, decoding error = %v\n%s", ok, wantErr, body)
	}
	if diff := cmp.Diff(want, got); ok && diff != "" {
		t.Fatalf("fast path (-decoded +fast):\n%s\n%s", diff, body)
	}
	val, err := access()
	if !sameError(err, wantErr) {
		t.Fatalf("accessor error %v, decoding error %v\n%s", err, wantErr, body)
	}
	if diff := cmp.Diff(want, val); diff != "" {
		t.Fatalf("accessor (-decoded +got):\n%s\n%s", diff, body)
	}
	return ok
}

// checkMessages holds System and Messages, and their gjson readers, to
// decoding on body. It reports whether body parses and whether gjson read
// both members.
func checkMessages(t *testing.T, body []byte) (parsed, fast bool) {
	t.Helper()
	r, ok := parseGenerated(body)
	if !ok {
		return false, false
	}
	sys := r.obj.Get("system")
	sysFast := checkReader(t, body, sys, func() (Content, error) { return decodeSystem(sys) },
		func() (Content, bool) { return readSystem(sys) }, r.System)
	msgsFast := checkReader(t, body, r.obj.Get("messages"), r.decodeMessages, r.readMessages, r.Messages)
	return true, sysFast && msgsFast
}

// FuzzMessagesAgrees holds System and Messages to decoding: over requests
// whose system, messages, blocks, nested tool results and image sources
// have members of fuzzer-chosen presence, types, repeats, spacing and
// escapes, and unknown members of any type, gjson must answer exactly when
// decoding succeeds (on valid UTF-8) and build cmp-equal values.
func FuzzMessagesAgrees(f *testing.F) {
	addGenSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, text string) {
		checkMessages(t, newGen(data, text).request())
	})
}

// claudeCode is an ordinary Claude Code request: system blocks with cache
// control, thinking, tool calls, and tool results as strings and blocks
// with an image.
const claudeCode = `{"model":"claude-sonnet-4-5","max_tokens":32000,"stream":true,` +
	`"system":[{"type":"text","text":"You are Claude Code.","cache_control":{"type":"ephemeral"}},{"type":"text","text":"Follow the repository's conventions.\n"}],` +
	`"tools":[{"name":"Read","description":"Reads a file","input_schema":{"type":"object","properties":{"path":{"type":"string"}}}}],` +
	`"metadata":{"user_id":"u"},"messages":[` +
	`{"role":"user","content":[{"type":"text","text":"<system-reminder>ctx</system-reminder>"},{"type":"text","text":"Fix the \"bug\"\n","cache_control":{"type":"ephemeral"}}]},` +
	`{"role":"assistant","content":[{"type":"thinking","thinking":"Let me look.","signature":"sig=="},{"type":"text","text":"Reading."},` +
	`{"type":"tool_use","id":"toolu_01","name":"Read","input":{"path":"a.go"}}]},` +
	`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"package a\n"},` +
	`{"type":"tool_result","tool_use_id":"toolu_02","is_error":true,"content":[{"type":"text","text":"no such file"},` +
	`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBOR"}}]}]},` +
	`{"role":"assistant","content":"Done."},{"role":"user","content":[{"type":"image","source":{"type":"url","url":"https://x/y.png"}},{"type":"text","text":"and this?"}]}]}`

// TestMessagesFastPath shows gjson reads ordinary Claude Code requests (so
// the fuzz test above is not vacuous) and members that decoding reads in
// unusual ways, and leaves the rest to decoding.
func TestMessagesFastPath(t *testing.T) {
	for _, body := range [][]byte{[]byte(claudeCode), claudeCodeRequest()} {
		if _, fast := checkMessages(t, body); !fast {
			t.Fatalf("the fast path refused an ordinary Claude Code request: %.200s", body)
		}
	}
	for _, tt := range []struct {
		body string
		fast bool
	}{
		{`{"messages":[{"role":"user","content":[]}],"system":[]}`, true},
		{`{"messages":[{"role":"user","content":null,"x":1,"x" : { "a" : 2 } ,"Content":"c"}],"system":null}`, true},
		{`{"messages":[{"role":"user","content":[{"type":"tool_use","input":null,"cache_control":null,"content":null,"source":null,"is_error":null}]}]}`, true},
		{`{"messages":[{"role":"user","content":[{"type":"tool_result","content":[],"is_error":false,"Input":[ 1 ],"input":"x","input":[1, 2]}]}]}`, true},
		{`{"messages":[{"role":"user","content":"\ud800\u0041\udc00\u0000\ud83d\ude00 \ud800\udbff\udc00"}]}`, true},
		{`{"messages":[{"role":"user","content":[{"type":"image","source":{"type":"a","TYPE":null,"Type":"b","type":null,"x":5,"ſata":"d"}}]}]}`, true},
		{`{"messages":[{"role":"user","content":[{"type":"image","source":{"type":"a","Type":5,"type":"b"}}]}]}`, false},
		{`{"messages":[{"role":"user","content":[{"type":"text","text":"a","c\u006fntent":5}]}]}`, false},
		{`{"messages":[{"role":"user","content":[{"type":"text","text":"a","\u0000":5,"\ud800":6,"\udfff":7}]}]}`, true},
		{`{"messages":[{"role":"user","content":[{"type":"tool_result","content":[{"type":"text","is_error":"no"}]}]}]}`, false},
	} {
		if parsed, fast := checkMessages(t, []byte(tt.body)); !parsed || fast != tt.fast {
			t.Errorf("parsed %v, fast path %v, want true, %v: %s", parsed, fast, tt.fast, tt.body)
		}
	}
}

// TestMessagesAfterChange shows System and Messages read members changed
// with SetField as they are: one that is not valid UTF-8 is decoded, as
// only decoding replaces its invalid bytes.
func TestMessagesAfterChange(t *testing.T) {
	r := mustParse(t, claudeCode)
	for _, tt := range []struct {
		name, raw string
		fast      bool
	}{
		{"messages", `[{"role":"user","content":[{"type":"text","text":"new \u00e9"}]}]`, true},
		{"messages", "[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"bad \xff\"}]}]", false},
		{"messages", "[{\"role\":\"user\",\"content\":\"ok\",\"k\xc3\":1}]", false},
		{"messages", `[{"content":"no role"}]`, false},
		{"system", "\"sys \xed\xa0\x80\"", false},
		{"system", `[{"type":"text","text":"s","x":null}]`, true},
	} {
		r.SetField(tt.name, json.RawMessage(tt.raw))
		raw := r.obj.Get(tt.name)
		var fast bool
		if tt.name == "system" {
			fast = checkReader(t, raw, raw, func() (Content, error) { return decodeSystem(raw) },
				func() (Content, bool) { return readSystem(raw) }, r.System)
		} else if _, err := r.split(raw); err == nil {
			fast = checkReader(t, raw, raw, r.decodeMessages, r.readMessages, r.Messages)
		} else if _, ok := r.readMessages(); ok {
			t.Errorf("the fast path read messages validate refuses: %s", raw)
		}
		if fast != tt.fast {
			t.Errorf("%s %q: fast path %v, want %v", tt.name, tt.raw, fast, tt.fast)
		}
	}
}

// TestMessagesOwnMemory shows Messages' values depend on no buffer but the
// request's own: the caller may reuse the body it parsed, and changing the
// raw members it got does not change the request.
func TestMessagesOwnMemory(t *testing.T) {
	body := []byte(claudeCode)
	r, err := ParseMessagesRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Messages()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := r.decodeMessages()
	before, _ := r.Marshal()
	copy(body, bytes.Repeat([]byte("x"), len(body)))
	if again, _ := r.Messages(); !cmp.Equal(want, again) {
		t.Fatalf("Messages after the caller reused its buffer:\n%s", cmp.Diff(want, again))
	}
	for _, m := range got {
		for _, b := range m.Content.Blocks {
			for i := range b.Input {
				b.Input[i] = 'x'
			}
			for i := range b.CacheControl {
				b.CacheControl[i] = 'x'
			}
		}
	}
	if after, _ := r.Marshal(); !bytes.Equal(before, after) {
		t.Fatalf("changing what Messages returned changed the request:\n%s\n%s", before, after)
	}
}

// TestMessagesKeptUntilChanged shows Messages reads the member once, and
// again after any change of it.
func TestMessagesKeptUntilChanged(t *testing.T) {
	r, err := ParseMessagesRequest([]byte(claudeCode))
	if err != nil {
		t.Fatal(err)
	}
	first, _ := r.Messages()
	if again, _ := r.Messages(); len(again) == 0 || &again[0] != &first[0] {
		t.Fatal("a second call read the messages again")
	}
	if again := append(first, Message{Role: "user"}); &again[0] == &first[0] {
		t.Fatal("appending to the result wrote into the kept messages")
	}
	short := []Message{{Role: "user", Content: Content{Kind: ContentString, Text: "hi"}}}
	changes := map[string]func(){
		"SetMessages":   func() { _ = r.SetMessages(short) },
		"SetField":      func() { r.SetField("messages", json.RawMessage(`[{"role":"user","content":"hi"}]`)) },
		"SetFieldValue": func() { _ = r.SetFieldValue("messages", short) },
		"DeleteField":   func() { r.DeleteField("messages") },
	}
	for name, change := range changes {
		r, _ = ParseMessagesRequest([]byte(claudeCode))
		_, _ = r.Messages()
		change()
		got, err := r.Messages()
		want, derr := r.decodeMessages()
		if err != nil || derr != nil || !cmp.Equal(want, got) {
			t.Errorf("after %s: Messages = %v, %v; decoding gives %v, %v", name, got, err, want, derr)
		}
	}
	c := r.Clone()
	c.SetField("messages", json.RawMessage(`[]`))
	if got, _ := c.Messages(); len(got) != 0 {
		t.Errorf("clone: Messages = %v after setting []", got)
	}
}

// TestSplitKnownKeeps pins down what the fast path copies from decoding:
// SplitKnown keeps the last of repeated keys, matched exactly (map keys
// are case-sensitive, unlike struct fields) after unescaping, with values
// as their bytes without surrounding white space and null as "null";
// an empty block array is a non-nil empty slice.
func TestSplitKnownKeeps(t *testing.T) {
	known, extra, err := splitKnown([]byte(`{ "input" :  null , "Input" : [ 1 , 2 ] ,"x":"a", "\u0078" : { "y" : 5 } ,"z":-1E3}`), "input")
	if err != nil {
		t.Fatal(err)
	}
	wantKnown := map[string]json.RawMessage{"input": json.RawMessage("null")}
	wantExtra := map[string]json.RawMessage{"Input": json.RawMessage("[ 1 , 2 ]"), "x": json.RawMessage(`{ "y" : 5 }`), "z": json.RawMessage("-1E3")}
	if diff := cmp.Diff(wantKnown, known); diff != "" {
		t.Errorf("known (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantExtra, extra); diff != "" {
		t.Errorf("extra (-want +got):\n%s", diff)
	}
	if _, extra, _ := splitKnown([]byte(`{"input":1}`), "input"); extra != nil {
		t.Errorf("extra without unknown members = %v, want nil", extra)
	}
	var c Content
	if err := json.Unmarshal([]byte(" [ ] "), &c); err != nil || c.Kind != ContentBlocks || c.Blocks == nil || len(c.Blocks) != 0 {
		t.Errorf("empty block array decodes as %#v, %v", c, err)
	}
	var s string
	if err := json.Unmarshal([]byte("\"\xff\\ud800\""), &s); err != nil || s != strings.Repeat("\uFFFD", 2) {
		t.Errorf("decoding replaces invalid UTF-8 and lone surrogates: got %q, %v", s, err)
	}
}
