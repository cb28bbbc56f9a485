package anthropic

import (
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/tidwall/gjson"
)

// FuzzConversationSDK holds the request reader to anthropic-sdk-go, the
// official client: for a body ParseMessagesRequest accepts and the SDK's
// request type decodes, a message with block content has the role the
// SDK gives it, counts as tool results only when the SDK reads every
// block as one, and otherwise has the text of the SDK's text blocks; a system prompt of
// blocks has the text of the SDK's. Bodies with a repeated key are left
// out: the SDK reads the first of them (with gjson), the proxy the last,
// as encoding/json does.
func FuzzConversationSDK(f *testing.F) {
	for _, s := range []string{
		`{"model":"m","max_tokens":1,"system":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`,
		`{"messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"text","text":"x"},{"type":"tool_use","id":"i","name":"n","input":{}}]}]}`,
		`{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"i","content":"out"},{"type":"tool_result","tool_use_id":"j","content":[{"type":"text","text":"r"}]}]}]}`,
		`{"messages":[{"role":"user","content":[{"type":"image","source":{"type":"url","url":"u"}},{"type":"text","text":"and \"this\"\n"}]}]}`,
		`{"messages":[{"role":"user","content":[]},{"role":"user","content":"plain"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := ParseMessagesRequest(body)
		if err != nil || repeatsKey(gjson.ParseBytes(body)) {
			return
		}
		conv, err := r.Conversation()
		if err != nil {
			t.Fatalf("Conversation of a parsed request: %v", err)
		}
		var p sdk.MessageNewParams
		if json.Unmarshal(body, &p) != nil || len(p.Messages) != len(conv.Messages) {
			return
		}
		if gjson.GetBytes(body, "system").IsArray() {
			var texts []string
			for _, b := range p.System {
				texts = append(texts, b.Text)
			}
			if want := strings.Join(texts, "\n"); want != conv.System && allText(gjson.GetBytes(body, "system")) {
				t.Fatalf("system %q, the SDK's %q\n%s", conv.System, want, body)
			}
		}
		msgs := gjson.GetBytes(body, "messages").Array()
		for i, m := range p.Messages {
			role, blocks, ok := sdkBlocks(m)
			if !ok || !msgs[i].Get("content").IsArray() || len(blocks) != len(msgs[i].Get("content").Array()) {
				continue
			}
			checkSDKMessage(t, body, i, role, blocks, conv.Messages[i])
		}
	})
}

// checkSDKMessage compares one message with the SDK's reading of it.
func checkSDKMessage(t *testing.T, body []byte, i int, role string, blocks []sdk.ContentBlockParamUnion, got RoleText) {
	t.Helper()
	if role != got.Role {
		t.Fatalf("messages[%d]: role %q, the SDK's %q\n%s", i, got.Role, role, body)
	}
	var texts []string
	results := true
	for _, b := range blocks {
		if b.OfText != nil {
			texts = append(texts, b.OfText.Text)
		}
		results = results && b.OfToolResult != nil
	}
	if want := strings.Join(texts, "\n"); !results && want != got.Text {
		t.Fatalf("messages[%d]: text %q, the SDK's %q\n%s", i, got.Text, want, body)
	}
	if results != got.ToolResultsOnly {
		t.Fatalf("messages[%d]: tool results only %v, the SDK's %v\n%s", i, got.ToolResultsOnly, results, body)
	}
}

// sdkBlocks returns the role and blocks of a user or assistant message as
// the SDK decoded it; ok is false for any other.
func sdkBlocks(m sdk.MessageParam) (role string, blocks []sdk.ContentBlockParamUnion, ok bool) {
	switch {
	case m.OfUser != nil:
		return "user", m.OfUser.Content, true
	case m.OfAssistant != nil:
		return "assistant", m.OfAssistant.Content, true
	}
	return "", nil, false
}

// allText reports whether every element of blocks has "type" "text".
func allText(blocks gjson.Result) bool {
	for _, b := range blocks.Array() {
		if b.Get("type").Str != "text" {
			return false
		}
	}
	return true
}

// repeatsKey reports whether an object in v has a key twice.
func repeatsKey(v gjson.Result) bool {
	if !v.IsObject() && !v.IsArray() {
		return false // ForEach would call back with v itself
	}
	seen := map[string]bool{}
	repeats := false
	v.ForEach(func(k, m gjson.Result) bool {
		if v.IsObject() {
			repeats = seen[k.Str]
			seen[k.Str] = true
		}
		repeats = repeats || repeatsKey(m)
		return !repeats
	})
	return repeats
}
