package openai

import (
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/openai/openai-go/v3"
	"github.com/tidwall/gjson"
)

// FuzzConversationSDK holds the request reader to openai-go, the official
// client: for a body ParseChatRequest accepts and the SDK's request type
// decodes, the messages are the SDK's, each with the role the SDK gives
// it and, when the SDK reads its content as text (a string or text
// parts), the same text. Bodies with a repeated key are left out: the SDK
// reads the first of them (with gjson), encoding/json and the proxy the
// last.
func FuzzConversationSDK(f *testing.F) {
	for _, s := range []string{
		`{"model":"m","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hi \"you\"\n\u00e9"}]}`,
		`{"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"u"}},{"type":"text","text":"b"}]}]}`,
		`{"messages":[{"role":"developer","content":[{"type":"text","text":"x","text":"y"}]},{"role":"tool","tool_call_id":"c","content":"out"}]}`,
		`{"messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}]}`,
		`{"messages":[{"role":"assistant","content":[{"type":"text","text":"t"},{"type":"refusal","refusal":"no"}]},{"role":"user","content":"a","content":"b"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := ParseChatRequest(body)
		if err != nil || repeatsKey(gjson.ParseBytes(body)) {
			return
		}
		conv, err := r.Conversation()
		if err != nil {
			t.Fatalf("Conversation of a parsed request: %v", err)
		}
		var p sdk.ChatCompletionNewParams
		if json.Unmarshal(body, &p) != nil {
			return
		}
		if len(p.Messages) != len(conv) {
			t.Fatalf("%d messages, the SDK decodes %d\n%s", len(conv), len(p.Messages), body)
		}
		for i, m := range p.Messages {
			role := m.GetRole()
			if role == nil {
				continue // a role the SDK has no type for
			}
			if *role != conv[i].Role {
				t.Fatalf("messages[%d]: role %q, the SDK's %q\n%s", i, conv[i].Role, *role, body)
			}
			if text, ok := sdkText(m); ok && text != conv[i].Text {
				t.Fatalf("messages[%d]: text %q, the SDK's %q\n%s", i, conv[i].Text, text, body)
			}
		}
	})
}

// sdkText is the text of an SDK-decoded message's content, a string or
// its text parts joined with "\n"; ok is false for content the SDK does
// not hold as text.
func sdkText(m sdk.ChatCompletionMessageParamUnion) (string, bool) {
	var texts []string
	switch c := m.GetContent().AsAny().(type) {
	case *string:
		return *c, true
	case *[]sdk.ChatCompletionContentPartTextParam:
		for _, p := range *c {
			texts = append(texts, p.Text)
		}
	case *[]sdk.ChatCompletionContentPartUnionParam:
		for _, p := range *c {
			if p.OfText != nil {
				texts = append(texts, p.OfText.Text)
			}
		}
	case *[]sdk.ChatCompletionAssistantMessageParamContentArrayOfContentPartUnion:
		for _, p := range *c {
			if p.OfText != nil {
				texts = append(texts, p.OfText.Text)
			}
		}
	default:
		return "", false
	}
	return strings.Join(texts, "\n"), true
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
