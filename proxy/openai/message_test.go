package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/metaclaw/metaclaw/proxy/internal/rawjson"
)

func TestMessagesDecode(t *testing.T) {
	r := mustParse(t, `{"messages":[
		{"role":"system","content":"be nice"},
		{"role":"user","name":"bob","content":[{"type":"text","text":"look"},
			{"type":"image_url","image_url":{"url":"https://x/y.png","detail":"high"}},
			{"type":"input_audio","input_audio":{"data":"AAA","format":"wav"}},
			{"type":"text","text":"","cache_control":{"type":"ephemeral"}}]},
		{"role":"assistant","content":null,"reasoning_content":"hmm","tool_calls":[
			{"id":"call_1","type":"function","function":{"name":"get","arguments":"{\"a\":1}"},"extra_content":{"g":1}}]},
		{"role":"tool","tool_call_id":"call_1","content":"42","custom":[1]},
		{"role":"assistant"}]}`)
	got, err := r.Messages()
	if err != nil {
		t.Fatal(err)
	}
	want := []Message{
		{Role: "system", Content: TextContent("be nice")},
		{Role: "user", Name: "bob", Content: PartsContent(
			TextPart("look"),
			ImagePart("https://x/y.png", "high"),
			ContentPart{Type: "input_audio", Extra: map[string]json.RawMessage{"input_audio": json.RawMessage(`{"data":"AAA","format":"wav"}`)}},
			ContentPart{Type: "text", Extra: map[string]json.RawMessage{"cache_control": json.RawMessage(`{"type":"ephemeral"}`)}},
		)},
		{Role: "assistant", Content: Content{Kind: ContentNull}, ReasoningContent: "hmm", ToolCalls: []ToolCall{{
			ID: "call_1", Type: "function", Function: FunctionCall{Name: "get", Arguments: `{"a":1}`},
			Extra: map[string]json.RawMessage{"extra_content": json.RawMessage(`{"g":1}`)},
		}}},
		{Role: "tool", ToolCallID: "call_1", Content: TextContent("42"), Extra: map[string]json.RawMessage{"custom": json.RawMessage(`[1]`)}},
		{Role: "assistant"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if s := got[1].Content.String(); s != "look\n" {
		t.Errorf("Content.String() = %q", s)
	}
}

func TestMessagesRoundTrip(t *testing.T) {
	body := `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}}],"zzz":1},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},` +
		`{"role":"tool","content":"ok","tool_call_id":"c"},{"role":"assistant"}],"extra":true}`
	r := mustParse(t, body)
	msgs, err := r.Messages()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SetMessages(msgs); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(body, mustMarshal(t, r)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	again, err := r.Messages()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(msgs, again); diff != "" {
		t.Errorf("second decode differs (-want +got):\n%s", diff)
	}
}

func TestSetMessagesNil(t *testing.T) {
	r := mustParse(t, `{"messages":[{"role":"user","content":"x"}]}`)
	if err := r.SetMessages(nil); err != nil {
		t.Fatal(err)
	}
	if got := mustMarshal(t, r); got != `{"messages":[]}` {
		t.Errorf("got %s", got)
	}
}

func TestMessagesInvalid(t *testing.T) {
	for _, body := range []string{
		`{"messages":[{"role":"user","content":5}]}`,
		`{"messages":[{"role":"user","content":[{"type":"text","text":5}]}]}`,
		`{"messages":[{"role":"user","tool_calls":"x"}]}`,
		`{"messages":[{"role":"user","content":[{"type":"image_url","image_url":5}]}]}`,
	} {
		_, err := ParseChatRequest([]byte(body))
		var re *RequestError
		if !errors.As(err, &re) || re.Code != CodeInvalidMessages {
			t.Errorf("%s: err = %v, want invalid_messages", body, err)
		}
	}
}

func TestImageURLStringForm(t *testing.T) {
	var p ContentPart
	if err := json.Unmarshal([]byte(`{"type":"image_url","image_url":"data:x"}`), &p); err != nil {
		t.Fatal(err)
	}
	if p.ImageURL == nil || p.ImageURL.URL != "data:x" {
		t.Errorf("got %+v", p)
	}
}

func TestMessageMarshal(t *testing.T) {
	tests := []struct {
		name string
		msg  Message
		want string
	}{
		{"absent content", Message{Role: "assistant"}, `{"role":"assistant"}`},
		{"null content", Message{Role: "assistant", Content: Content{Kind: ContentNull}}, `{"role":"assistant","content":null}`},
		{"empty string", Message{Role: "user", Content: TextContent("")}, `{"role":"user","content":""}`},
		{"empty parts", Message{Role: "user", Content: Content{Kind: ContentParts}}, `{"role":"user","content":[]}`},
		{"no html escape", Message{Role: "user", Content: TextContent("<a&b>")}, `{"role":"user","content":"<a&b>"}`},
		{"tool call default type", Message{Role: "assistant", ToolCalls: []ToolCall{{ID: "1", Function: FunctionCall{Name: "f"}}}},
			`{"role":"assistant","tool_calls":[{"id":"1","type":"function","function":{"name":"f","arguments":""}}]}`},
		{"text part empty text", Message{Role: "user", Content: PartsContent(TextPart(""))}, `{"role":"user","content":[{"type":"text","text":""}]}`},
		{"extras sorted", Message{Role: "user", Content: TextContent("x"), Extra: map[string]json.RawMessage{"b": json.RawMessage(`2`), "a": json.RawMessage(`1`)}},
			`{"role":"user","content":"x","a":1,"b":2}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := marshalJSON(tt.msg)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(b)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestInjectSystem(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"string content", `{"messages":[{"role":"system","content":"A"},{"role":"user","content":"u"}]}`,
			`{"messages":[{"role":"system","content":"A\n\nMEM"},{"role":"user","content":"u"}]}`},
		{"empty string content", `{"messages":[{"role":"system","content":""}]}`,
			`{"messages":[{"role":"system","content":"MEM"}]}`},
		{"array content", `{"messages":[{"role":"system","content":[{"type":"text","text":"A","cache_control":{"type":"ephemeral"}}]}]}`,
			`{"messages":[{"role":"system","content":[{"type":"text","text":"A","cache_control":{"type":"ephemeral"}},{"type":"text","text":"MEM"}]}]}`},
		{"no system", `{"model":"m","messages":[{"role":"user","content":"u",  "k":1}]}`,
			`{"model":"m","messages":[{"role":"system","content":"MEM"},{"role":"user","content":"u",  "k":1}]}`},
		{"developer counts", `{"messages":[{"role":"user","content":"u"},{"role":"developer","content":"D"},{"role":"system","content":"S"}]}`,
			`{"messages":[{"role":"user","content":"u"},{"role":"developer","content":"D\n\nMEM"},{"role":"system","content":"S"}]}`},
		{"null content keeps extras", `{"messages":[{"role":"system","content":null,"x":true}]}`,
			`{"messages":[{"role":"system","content":"MEM","x":true}]}`},
		{"empty messages", `{"messages":[]}`, `{"messages":[{"role":"system","content":"MEM"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustParse(t, tt.body)
			if err := r.InjectSystem("MEM"); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, mustMarshal(t, r)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	r := mustParse(t, `{"messages":[{"role":"system","content":"s"}]}`)
	r.SetField("messages", json.RawMessage(`[{"role":"system","content":5}]`))
	if err := r.InjectSystem("x"); err == nil {
		t.Error("expected error for malformed system message")
	}
}

// TestToolAppendJSON holds the tools' encoding to encoding/json's (with
// HTML left unescaped, as rawjson writes strings), the parameters compared
// after compacting, as encoding/json compacts them.
func TestToolAppendJSON(t *testing.T) {
	yes, no := true, false
	tools := []Tool{
		{Type: "function", Function: FunctionDefinition{Name: "read_file", Description: "Reads <a> & \"b\"\n\u2028",
			Parameters: json.RawMessage(`{ "type": "object", "properties": {"path": {"type":"string"}} }`), Strict: &yes}},
		{Type: "function", Function: FunctionDefinition{Name: "no_params"}},
		{Type: "function", Function: FunctionDefinition{Name: "strict_false", Strict: &no, Parameters: json.RawMessage(`null`)}},
		{Function: FunctionDefinition{Name: "é\x7f", Description: "d"}},
	}
	got, err := rawjson.Marshal(tools)
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, got); err != nil {
		t.Fatalf("invalid JSON %s: %v", got, err)
	}
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(tools); err != nil {
		t.Fatal(err)
	}
	if compact.String() != strings.TrimSuffix(want.String(), "\n") {
		t.Errorf("tools encode as\n%s\nwant\n%s", compact.String(), want.String())
	}
}
