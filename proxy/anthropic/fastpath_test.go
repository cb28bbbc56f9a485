package anthropic

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/metaclaw/metaclaw/proxy/internal/rawjson"
)

// decodedConversation is Conversation from the decoded system prompt and
// messages: the reference for the fast path.
func decodedConversation(r *MessagesRequest) (Conversation, error) {
	sys, err := decodeSystem(r.obj.Get("system"))
	if err != nil {
		return Conversation{}, err
	}
	msgs, err := r.decodeMessages()
	if err != nil {
		return Conversation{}, err
	}
	return conversationOf(sys, msgs), nil
}

// TestToolResultsOnly: user content only answers tool calls when it is
// blocks, all of them tool results (no blocks counts).
func TestToolResultsOnly(t *testing.T) {
	result := Block{Type: "tool_result", ToolUseID: "t1"}
	for name, tc := range map[string]struct {
		c    Content
		want bool
	}{
		"string":          {TextContent("hi"), false},
		"absent":          {Content{}, false},
		"no blocks":       {BlocksContent(), true},
		"results":         {BlocksContent(result, result), true},
		"result and text": {BlocksContent(result, Block{Type: "text", Text: "and"}), false},
		"image":           {BlocksContent(Block{Type: "image"}), false},
	} {
		if got := tc.c.ToolResultsOnly(); got != tc.want {
			t.Errorf("%s: ToolResultsOnly = %v", name, got)
		}
	}
}

// sameError reports whether a and b are both nil or equal errors.
func sameError(a, b error) bool {
	var ra, rb *RequestError
	if errors.As(a, &ra) && errors.As(b, &rb) {
		return *ra == *rb
	}
	return a == nil && b == nil
}

// fastConversation is Conversation read with gjson alone: it reports false
// when System or Messages would decode.
func fastConversation(r *MessagesRequest) (Conversation, bool) {
	sys, ok := readSystem(r.obj.Get("system"))
	if !ok {
		return Conversation{}, false
	}
	msgs, ok := r.readMessages()
	if !ok {
		return Conversation{}, false
	}
	return conversationOf(sys, msgs), true
}

// parseGenerated parses a generated body as the proxy meets it: with
// ParseMessagesRequest, or, for a body that is not valid UTF-8 (which
// ParseMessagesRequest refuses), by setting its members with SetField on a
// parsed request, when the body with its invalid bytes replaced parses (so
// that only the bytes of strings and keys differ from a body that passes
// validate).
func parseGenerated(body []byte) (*MessagesRequest, bool) {
	if utf8.Valid(body) {
		r, err := ParseMessagesRequest(body)
		return r, err == nil
	}
	if _, err := ParseMessagesRequest([]byte(strings.ToValidUTF8(string(body), "\uFFFD"))); err != nil {
		return nil, false
	}
	obj, err := parseObject(body)
	if err != nil {
		return nil, false
	}
	r, err := ParseMessagesRequest([]byte(`{"messages":[]}`))
	if err != nil {
		panic(err)
	}
	for _, f := range obj.Fields {
		r.SetField(f.Key, f.Val)
	}
	return r, true
}

// readable reports whether the fast path may read the request's members:
// "system" and "messages" are valid UTF-8.
func readable(r *MessagesRequest) bool {
	return utf8.Valid(r.obj.Get("system")) && utf8.Valid(r.obj.Get("messages"))
}

// checkConversation holds fastConversation and Conversation on body to
// decodedConversation. It reports whether body parses and whether the fast
// path read it.
func checkConversation(t *testing.T, body []byte) (parsed, fast bool) {
	t.Helper()
	r, ok := parseGenerated(body)
	if !ok {
		return false, false
	}
	want, wantErr := decodedConversation(r)
	got, ok := fastConversation(r)
	if ok != (wantErr == nil && readable(r)) {
		t.Fatalf("fast path ok = %v, decoding error = %v\n%s", ok, wantErr, body)
	}
	if diff := cmp.Diff(want, got); ok && diff != "" {
		t.Fatalf("fastConversation (-decoded +fast):\n%s\n%s", diff, body)
	}
	checkAnswer(t, r, body)
	return true, ok
}

// checkAnswer holds Conversation on r to decodedConversation.
func checkAnswer(t *testing.T, r *MessagesRequest, body []byte) {
	t.Helper()
	want, wantErr := decodedConversation(r)
	got, err := r.Conversation()
	if !sameError(err, wantErr) {
		t.Fatalf("Conversation error %v, decoding error %v\n%s", err, wantErr, body)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Conversation (-decoded +got):\n%s\n%s", diff, body)
	}
}

// addGenSeeds adds seeds for the generator.
func addGenSeeds(f *testing.F) {
	for i, s := range []string{"", "\x01\x02\x03\x04", "\xff\xfe\xfd\xfc\xfb\xfa\xf9", "abcdefghijklmnopqrstuvwxyz0123456789"} {
		f.Add([]byte(s), []string{"text \u00e9 \\ \" \n\u2028 <&>", "", "a\xffb\xc3", "\x00\xed\xa0\x80\U0001F600"}[i])
	}
}

// FuzzConversationAgrees holds the fast conversation reader to decoding:
// over requests whose system, messages and blocks have members of
// fuzzer-chosen presence, types and repeats, it must accept exactly what
// System and Messages decode (when valid UTF-8) and read the same texts,
// roles and tool result flags; Conversation must give decoding's errors.
func FuzzConversationAgrees(f *testing.F) {
	addGenSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, text string) {
		checkConversation(t, newGen(data, text).request())
	})
}

// TestConversationFastPath shows the fast path reads an ordinary Claude
// Code request (so the fuzz test above is not vacuous) and that requests
// decoding rejects or reads in an unusual way get decoding's answer.
func TestConversationFastPath(t *testing.T) {
	if _, fast := checkConversation(t, []byte(claudeCode)); !fast {
		t.Fatal("the fast path refused an ordinary Claude Code request")
	}
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, tt := range []struct {
		body string
		fast bool
	}{
		{`{"system":"s","messages":[{"role":"user","content":"a","content":[{"type":"tool_result"}]}]}`, true},
		{`{"messages":[{"role":"user","content":[{"type":"text","text":5,"text":"last wins"}]}]}`, true},
		{`{"messages":[{"role":"user","content":[{"type":"text","text":"x","text":5}]}]}`, false},
		{`{"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","TYPE":5}}]}]}`, false},
		{`{"messages":[{"role":"user","content":[{"type":"image","source":{"fıle_id":5}}]}]}`, true},
		{`{"messages":[{"role":"user","content":[{"type":"image","source":"u"}]}]}`, false},
		{`{"messages":[{"role":"user","content":[{"type":"tool_result","content":{"type":"text"}}]}]}`, false},
		{`{"messages":[{"role":"user","content":[{"type":"tool_result","content":[null]}]}]}`, false},
		{`{"messages":[{"role":"user","content":[{"type":"tool_result","is_error":"yes"}]}]}`, false},
		{`{"messages":[{"role":null,"Role":"user","content":[]}]}`, true},
		{`{"messages":[{"r\u006fle":"user","content":[{"t\u0079pe":"text","text":"escaped keys"}]}]}`, true},
		{`{"messages":[{"role":"user","content":5}]}`, false},
		{`{"system":[5],"messages":[{"role":"user","content":5}]}`, false},
		{`{"system":[{"type":"text","input":` + deep(rawjson.MaxDepth-2) + `}],"messages":[]}`, true},
		{`{"system":[{"type":"text","input":"` + deep(rawjson.MaxDepth) + `"}],"messages":[]}`, true},
		{`{"messages":[{"role":"user","content":[{"type":"text","input":` + deep(rawjson.MaxDepth-4) + `}]}]}`, true},
	} {
		if parsed, fast := checkConversation(t, []byte(tt.body)); !parsed || fast != tt.fast {
			t.Errorf("parsed %v, fast path %v, want true, %v: %.200s", parsed, fast, tt.fast, tt.body)
		}
	}
	// A member nested deeper than encoding/json decodes is refused by the
	// parser itself, as decoding the member would be.
	tooDeep := `{"system":[{"type":"text","input":` + deep(rawjson.MaxDepth-1) + `}],"messages":[]}`
	if _, err := ParseMessagesRequest([]byte(tooDeep)); err == nil || !strings.Contains(err.Error(), "depth") {
		t.Errorf("a system member nested %d deep parsed: %v", rawjson.MaxDepth+1, err)
	}
}

// TestConversationAfterChange shows Conversation reads the messages as
// they are, not as validate split them, once the member has changed.
func TestConversationAfterChange(t *testing.T) {
	r := mustParse(t, `{"system":"s","messages":[{"role":"user","content":"old"}]}`)
	for _, tt := range []struct {
		messages string // "" deletes the member
		fast     bool
	}{
		{`[{"role":"assistant","content":[{"type":"text","text":"new"}]}]`, true},
		{`[{"content":"no role"}]`, false}, // decodes, but the split refuses it as validate does
		{`[{"role":"user","content":5}]`, false},
		{"", true},
	} {
		if tt.messages == "" {
			r.DeleteField("messages")
		} else {
			r.SetField("messages", json.RawMessage(tt.messages))
		}
		checkAnswer(t, r, []byte(tt.messages))
		if _, fast := fastConversation(r); fast != tt.fast {
			t.Errorf("messages %s: fast path %v, want %v", tt.messages, fast, tt.fast)
		}
	}
}

// TestSourceFieldsMatchImageSource keeps sourceFields in step with
// ImageSource's JSON names.
func TestSourceFieldsMatchImageSource(t *testing.T) {
	b, _ := json.Marshal(ImageSource{Type: "a", MediaType: "b", Data: "c", URL: "d", FileID: "e"})
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil || len(m) != len(sourceFields) {
		t.Fatalf("ImageSource has members %v, sourceFields %v", m, sourceFields)
	}
	for _, f := range sourceFields {
		if _, ok := m[f]; !ok {
			t.Errorf("ImageSource has no member %q", f)
		}
	}
}
