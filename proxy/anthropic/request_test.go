package anthropic

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func mustParse(t *testing.T, body string) *MessagesRequest {
	t.Helper()
	r, err := ParseMessagesRequest([]byte(body))
	if err != nil {
		t.Fatalf("ParseMessagesRequest: %v", err)
	}
	return r
}

func mustMarshal(t *testing.T, r *MessagesRequest) string {
	t.Helper()
	b, err := r.Marshal()
	if err != nil || !json.Valid(b) {
		t.Fatalf("Marshal = %s, %v", b, err)
	}
	return string(b)
}

func TestParseMessagesRequestValidation(t *testing.T) {
	tests := []struct{ name, body, code string }{
		{"invalid utf8", "{\"messages\":[],\"x\":\"\xc3\"}", CodeInvalidUTF8},
		{"invalid json", `{"messages":`, CodeInvalidJSON},
		{"empty", ``, CodeInvalidJSON},
		{"array", `[]`, CodeInvalidBody},
		{"number", `12`, CodeInvalidBody},
		{"missing messages", `{"model":"claude"}`, CodeMissingMessages},
		{"messages string", `{"messages":"hi"}`, CodeInvalidMessages},
		{"message not object", `{"messages":[1]}`, CodeInvalidMessages},
		{"message role missing", `{"messages":[{"content":"x"}]}`, CodeInvalidMessages},
		{"model number", `{"model":1,"messages":[]}`, CodeInvalidType},
		{"stream string", `{"stream":"yes","messages":[]}`, CodeInvalidType},
		{"max_tokens float", `{"max_tokens":1.5,"messages":[]}`, CodeInvalidType},
		{"max_tokens string", `{"max_tokens":"10","messages":[]}`, CodeInvalidType},
		{"system object", `{"system":{"text":"x"},"messages":[]}`, CodeInvalidType},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseMessagesRequest([]byte(tt.body))
			var re *RequestError
			if !errors.As(err, &re) {
				t.Fatalf("err = %v, want *RequestError", err)
			}
			if re.Status != 400 || re.Type != ErrInvalidRequest || re.Code != tt.code || re.Message == "" {
				t.Errorf("got %+v, want code %s", re, tt.code)
			}
			var body struct {
				Type  string `json:"type"`
				Error struct{ Type, Message string }
			}
			if err := json.Unmarshal(re.Body(), &body); err != nil || body.Type != "error" || body.Error.Type != ErrInvalidRequest {
				t.Errorf("Body() = %s", re.Body())
			}
		})
	}
	for _, ok := range []string{
		`{"messages":[]}`,
		`{"model":null,"max_tokens":1024,"stream":true,"system":[{"type":"text","text":"s"}],"messages":[{"role":"user","content":"x"}]}`,
	} {
		if _, err := ParseMessagesRequest([]byte(ok)); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

func TestMessagesRequestRoundTrip(t *testing.T) {
	body := `{"model":"claude-x","max_tokens":100,"system":[{"type":"text","text":"S","cache_control":{"type":"ephemeral"}}],` +
		`"messages":[{"role":"user","content":"hi"}],"session_id":"abc","mcp_servers":[{"url":"u"}],"context_management":{"x":1}}`
	r := mustParse(t, body)
	if got := mustMarshal(t, r); got != body {
		t.Errorf("unmodified round trip:\n got %s\nwant %s", got, body)
	}
	r.SetModel("gpt-4o")
	r.DeleteField("session_id")
	want := `{"model":"gpt-4o","max_tokens":100,"system":[{"type":"text","text":"S","cache_control":{"type":"ephemeral"}}],` +
		`"messages":[{"role":"user","content":"hi"}],"mcp_servers":[{"url":"u"}],"context_management":{"x":1}}`
	if diff := cmp.Diff(want, mustMarshal(t, r)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	c := r.Clone()
	c.DeleteField("model")
	if r.Model() != "gpt-4o" || c.Model() != "" {
		t.Error("Clone not independent")
	}
	if diff := cmp.Diff([]string{"max_tokens", "system", "messages", "mcp_servers", "context_management"}, c.Fields()); diff != "" {
		t.Errorf("Fields (-want +got):\n%s", diff)
	}
	c.SetField("x", json.RawMessage(`[1]`))
	if string(c.Field("x")) != `[1]` {
		t.Error("SetField")
	}
	if err := c.SetFieldValue("bad", make(chan int)); err == nil {
		t.Error("expected encode error")
	}
}

func TestAccessors(t *testing.T) {
	r := mustParse(t, `{"model":"m","max_tokens":64,"stream":true,"temperature":0.2,"top_p":0.8,"top_k":5,
		"stop_sequences":["X"],"metadata":{"user_id":"u"},"thinking":{"type":"enabled","budget_tokens":2048},
		"tools":[{"name":"get","description":"d","input_schema":{"type":"object"}},{"type":"web_search_20250305","name":"web_search"}],
		"tool_choice":{"type":"tool","name":"get","disable_parallel_tool_use":true},"messages":[]}`)
	n, okN := r.MaxTokens()
	temp, okT := r.Temperature()
	topP, _ := r.TopP()
	topK, _ := r.TopK()
	th, okTh := r.Thinking()
	tc, okTC := r.ToolChoice()
	tools, err := r.Tools()
	if err != nil {
		t.Fatal(err)
	}
	got := []any{r.Model(), n, okN, r.Stream(), temp, okT, topP, topK, r.StopSequences(), r.Metadata(), th, okTh, tc, okTC, tools}
	want := []any{"m", 64, true, true, 0.2, true, 0.8, 5, []string{"X"}, Metadata{UserID: "u"},
		Thinking{Type: "enabled", BudgetTokens: 2048}, true,
		ToolChoice{Type: "tool", Name: "get", DisableParallelToolUse: true}, true,
		[]Tool{{Name: "get", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)}, {Type: "web_search_20250305", Name: "web_search"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	empty := mustParse(t, `{"messages":[],"tools":5}`)
	if _, ok := empty.MaxTokens(); ok || empty.Stream() || empty.Model() != "" {
		t.Error("expected zero values")
	}
	if _, err := empty.Tools(); err == nil {
		t.Error("expected tools error")
	}
	if s, err := empty.System(); err != nil || s.Kind != ContentAbsent {
		t.Errorf("System = %+v, %v", s, err)
	}
}

func TestMessagesDecodeAndRoundTrip(t *testing.T) {
	body := `{"messages":[{"role":"user","content":[` +
		`{"type":"text","text":"look","cache_control":{"type":"ephemeral"}},` +
		`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAA"}},` +
		`{"type":"document","source":{"type":"text","data":"doc"},"title":"T"}]},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"sig"},` +
		`{"type":"text","text":""},{"type":"tool_use","id":"toolu_1","name":"get","input":{"a":1}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"r"}],"is_error":true}],"extra":1}]}`
	r := mustParse(t, body)
	msgs, err := r.Messages()
	if err != nil {
		t.Fatal(err)
	}
	want := []Message{
		{Role: "user", Content: BlocksContent(
			Block{Type: "text", Text: "look", CacheControl: json.RawMessage(`{"type":"ephemeral"}`)},
			Block{Type: "image", Source: &ImageSource{Type: "base64", MediaType: "image/png", Data: "AAA"}},
			Block{Type: "document", Source: &ImageSource{Type: "text", Data: "doc"}, Extra: map[string]json.RawMessage{"title": json.RawMessage(`"T"`)}},
		)},
		{Role: "assistant", Content: BlocksContent(
			Block{Type: "thinking", Thinking: "hm", Signature: "sig"},
			Block{Type: "text"},
			Block{Type: "tool_use", ID: "toolu_1", Name: "get", Input: json.RawMessage(`{"a":1}`)},
		)},
		{Role: "user", Extra: map[string]json.RawMessage{"extra": json.RawMessage(`1`)}, Content: BlocksContent(
			Block{Type: "tool_result", ToolUseID: "toolu_1", IsError: true, Content: &Content{Kind: ContentBlocks, Blocks: []Block{{Type: "text", Text: "r"}}}},
		)},
	}
	if diff := cmp.Diff(want, msgs); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if err := r.SetMessages(msgs); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(body, mustMarshal(t, r)); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	bad := mustParse(t, `{"messages":[{"role":"user","content":[{"type":"text","text":1}]}]}`)
	var re *RequestError
	if _, err := bad.Messages(); !errors.As(err, &re) || re.Code != CodeInvalidMessages {
		t.Errorf("err = %v", err)
	}
	if err := bad.SetMessages(nil); err != nil || mustMarshal(t, bad) != `{"messages":[]}` {
		t.Errorf("SetMessages(nil): %v", err)
	}
}

func TestInjectSystem(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"string", `{"system":"S","messages":[]}`, `{"system":"S\n\nMEM","messages":[]}`},
		{"empty string", `{"system":"","messages":[]}`, `{"system":"MEM","messages":[]}`},
		{"blocks keep cache_control", `{"system":[{"type":"text","text":"S", "cache_control":{"type":"ephemeral"}}],"messages":[]}`,
			`{"system":[{"type":"text","text":"S", "cache_control":{"type":"ephemeral"}},{"type":"text","text":"MEM"}],"messages":[]}`},
		{"absent", `{"model":"m","messages":[]}`, `{"model":"m","messages":[],"system":"MEM"}`},
		{"null", `{"system":null,"messages":[]}`, `{"system":"MEM","messages":[]}`},
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
}

func TestContentJSON(t *testing.T) {
	tests := []struct {
		name string
		b    Block
		want string
	}{
		{"empty text", Block{Type: "text"}, `{"type":"text","text":""}`},
		{"tool_use default input", Block{Type: "tool_use", ID: "i", Name: "n"}, `{"type":"tool_use","id":"i","name":"n","input":{}}`},
		{"tool_result string", Block{Type: "tool_result", ToolUseID: "i", Content: &Content{Kind: ContentString, Text: "ok"}},
			`{"type":"tool_result","tool_use_id":"i","content":"ok"}`},
		{"thinking", Block{Type: "thinking"}, `{"type":"thinking","thinking":"","signature":""}`},
		{"redacted", Block{Type: "redacted_thinking", Data: "x"}, `{"type":"redacted_thinking","data":"x"}`},
		{"url image", Block{Type: "image", Source: &ImageSource{Type: "url", URL: "https://a"}}, `{"type":"image","source":{"type":"url","url":"https://a"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := marshalJSON(tt.b)
			if err != nil || string(b) != tt.want {
				t.Errorf("got %s, %v; want %s", b, err, tt.want)
			}
		})
	}
	var c Content
	if err := json.Unmarshal([]byte(`5`), &c); err == nil {
		t.Error("expected error for number content")
	}
	if b, _ := marshalJSON(Content{}); string(b) != "null" {
		t.Errorf("absent content = %s", b)
	}
	if b, _ := marshalJSON(Content{Kind: ContentBlocks}); string(b) != "[]" {
		t.Errorf("nil blocks = %s", b)
	}
	if b, _ := marshalJSON(Message{Role: "user"}); string(b) != `{"role":"user"}` {
		t.Errorf("message without content = %s", b)
	}
}
