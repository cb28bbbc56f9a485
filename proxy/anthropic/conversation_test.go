package anthropic

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

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

// TestConversation checks what the hot path reads of a request: the
// system prompt's text, and each message's role, text and whether it
// only answers tool calls, the last of repeated members counting.
func TestConversation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body string
		want       Conversation
	}{
		{"claude code", claudeCode, Conversation{System: "You are Claude Code.\nFollow the repository's conventions.\n", Messages: []RoleText{
			{Role: "user", Text: "<system-reminder>ctx</system-reminder>\nFix the \"bug\"\n"}, {Role: "assistant", Text: "Reading."},
			{Role: "user", Text: "package a\n\nno such file", ToolResultsOnly: true}, {Role: "assistant", Text: "Done."}, {Role: "user", Text: "and this?"}}}},
		{"string system, null content", `{"system":"S","messages":[{"role":"user","content":null},{"role":"user"}]}`,
			Conversation{System: "S", Messages: []RoleText{{Role: "user"}, {Role: "user"}}}},
		{"repeats", `{"messages":[{"role":"x","content":"a","role":"user","content":[{"type":"text","text":"b"}]}]}`,
			Conversation{Messages: []RoleText{{Role: "user", Text: "b"}}}},
		{"no blocks", `{"messages":[{"role":"user","content":[]}]}`,
			Conversation{Messages: []RoleText{{Role: "user", ToolResultsOnly: true}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err := ParseMessagesRequest([]byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.Conversation()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestConversationAfterChange shows Conversation walks "messages" again
// after it changed, and reports a changed member that is not messages.
func TestConversationAfterChange(t *testing.T) {
	r, err := ParseMessagesRequest([]byte(claudeCode))
	if err != nil {
		t.Fatal(err)
	}
	r.SetField("messages", json.RawMessage(`[{"role":"user","content":"hi"}]`))
	if c, err := r.Conversation(); err != nil || len(c.Messages) != 1 || c.Messages[0].Text != "hi" {
		t.Fatalf("Conversation after SetField = %+v, %v", c, err)
	}
	r.SetField("messages", json.RawMessage(`[{"content":"hi"}]`))
	if _, err := r.Conversation(); err == nil {
		t.Fatal("Conversation accepted a message without a role")
	}
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
	want, _ := r.Clone().decodeMessages()
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

// TestReadKeeps pins down what the readers keep: the last of repeated
// keys, matched exactly after unescaping; raw members as their bytes,
// null as "null"; Extra nil when there are no other members; an empty
// block array as a non-nil empty slice; and an error for a member of the
// wrong type.
func TestReadKeeps(t *testing.T) {
	var b Block
	if err := json.Unmarshal([]byte(`{ "input" :  null , "Input" : [ 1 , 2 ] ,"x":"a", "\u0078" : { "y" : 5 } ,"z":-1E3,"text":"a","text":"b"}`), &b); err != nil {
		t.Fatal(err)
	}
	want := Block{Text: "b", Input: json.RawMessage("null"),
		Extra: map[string]json.RawMessage{"Input": json.RawMessage("[ 1 , 2 ]"), "x": json.RawMessage(`{ "y" : 5 }`), "z": json.RawMessage("-1E3")}}
	if diff := cmp.Diff(want, b); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	var m Message
	if err := json.Unmarshal([]byte(`{"role":"user","content":" [ ] "}`), &m); err != nil || m.Extra != nil {
		t.Errorf("message = %#v, %v", m, err)
	}
	var c Content
	if err := json.Unmarshal([]byte(" [ ] "), &c); err != nil || c.Kind != ContentBlocks || c.Blocks == nil || len(c.Blocks) != 0 {
		t.Errorf("empty block array reads as %#v, %v", c, err)
	}
	for _, bad := range []string{`{"text":5}`, `{"is_error":"yes"}`, `{"source":"s"}`, `{"source":{"url":1}}`, `{"content":{}}`, `[]`} {
		if err := json.Unmarshal([]byte(bad), &b); err == nil {
			t.Errorf("block %s read without error", bad)
		}
	}
}
