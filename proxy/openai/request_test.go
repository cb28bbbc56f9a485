package openai

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func mustParse(t *testing.T, body string) *ChatRequest {
	t.Helper()
	r, err := ParseChatRequest([]byte(body))
	if err != nil {
		t.Fatalf("ParseChatRequest: %v", err)
	}
	return r
}

func mustMarshal(t *testing.T, r *ChatRequest) string {
	t.Helper()
	b, err := r.Marshal()
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	if !json.Valid(b) {
		t.Fatalf("Marshal produced invalid JSON: %s", b)
	}
	return string(b)
}

func TestParseChatRequestValidation(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		code  string
		param string
	}{
		{"invalid utf8", "{\"messages\":[],\"x\":\"\xff\"}", CodeInvalidUTF8, ""},
		{"invalid json", `{"messages":[}`, CodeInvalidJSON, ""},
		{"empty body", ``, CodeInvalidJSON, ""},
		{"trailing data", `{"messages":[]} {}`, CodeInvalidJSON, ""},
		{"array body", `[1,2]`, CodeInvalidBody, ""},
		{"string body", `"hi"`, CodeInvalidBody, ""},
		{"missing messages", `{"model":"m"}`, CodeMissingMessages, "messages"},
		{"null messages", `{"messages":null}`, CodeMissingMessages, "messages"},
		{"messages object", `{"messages":{"role":"user"}}`, CodeInvalidMessages, "messages"},
		{"message not object", `{"messages":["hi"]}`, CodeInvalidMessages, "messages[0]"},
		{"message without role", `{"messages":[{"role":"user"},{"content":"x"}]}`, CodeInvalidMessages, "messages[1]"},
		{"role not string", `{"messages":[{"role":1}]}`, CodeInvalidMessages, "messages[0]"},
		{"model not string", `{"model":3,"messages":[]}`, CodeInvalidType, "model"},
		{"stream not bool", `{"stream":"true","messages":[]}`, CodeInvalidType, "stream"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseChatRequest([]byte(tt.body))
			var re *RequestError
			if !errors.As(err, &re) {
				t.Fatalf("err = %v, want *RequestError", err)
			}
			got := RequestError{Status: re.Status, Type: re.Type, Code: re.Code, Param: re.Param}
			want := RequestError{Status: 400, Type: ErrInvalidRequest, Code: tt.code, Param: tt.param}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if re.Message == "" {
				t.Error("empty message")
			}
			var body map[string]map[string]any
			if err := json.Unmarshal(re.Body(), &body); err != nil || body["error"]["code"] != tt.code {
				t.Errorf("Body() = %s (%v)", re.Body(), err)
			}
		})
	}
}

func TestParseChatRequestAccepts(t *testing.T) {
	for _, body := range []string{
		`{"messages":[]}`,
		`{"model":null,"stream":null,"messages":[{"role":"user","content":"hi"}]}`,
		` {"model":"m","stream":false,"messages":[{"role":"user"}]} `,
	} {
		if _, err := ParseChatRequest([]byte(body)); err != nil {
			t.Errorf("ParseChatRequest(%s) = %v", body, err)
		}
	}
	_, err := ParseChatRequest([]byte(`{`))
	var re *RequestError
	if errors.As(err, &re) && re.Message[:len("request body is not valid JSON")] != "request body is not valid JSON" {
		t.Errorf("message = %q", re.Message)
	}
}

func TestMarshalKeepsUnknownFields(t *testing.T) {
	body := `{"model":"gpt-x","messages":[{"role":"user","content":"hi","weird":{"a":[1,2]}}],` +
		`"session_id":"s1","custom":{"nested":true},"n":1,"logit_bias":{"50256":-100},"x_big":123456789012345678901234567890}`
	r := mustParse(t, body)
	if got := mustMarshal(t, r); got != body {
		t.Errorf("unmodified round trip changed body:\n got %s\nwant %s", got, body)
	}
	r.SetModel("other<&>")
	r.DeleteField("session_id")
	r.DeleteField("not_there")
	want := `{"model":"other<&>","messages":[{"role":"user","content":"hi","weird":{"a":[1,2]}}],` +
		`"custom":{"nested":true},"n":1,"logit_bias":{"50256":-100},"x_big":123456789012345678901234567890}`
	if diff := cmp.Diff(want, mustMarshal(t, r)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := string(r.Field("custom")); got != `{"nested":true}` {
		t.Errorf("Field(custom) = %s", got)
	}
	if r.Field("session_id") != nil {
		t.Error("session_id still present")
	}
	if diff := cmp.Diff([]string{"model", "messages", "custom", "n", "logit_bias", "x_big"}, r.Fields()); diff != "" {
		t.Errorf("Fields (-want +got):\n%s", diff)
	}
}

func TestCloneIsIndependent(t *testing.T) {
	r := mustParse(t, `{"model":"a","messages":[]}`)
	c := r.Clone()
	c.SetModel("b")
	c.DeleteField("messages")
	if r.Model() != "a" || r.Field("messages") == nil {
		t.Error("Clone shares state with original")
	}
}

func TestAccessors(t *testing.T) {
	r := mustParse(t, `{"model":"m","stream":true,"stream_options":{"include_usage":true,"x":1},
		"messages":[],"tools":[{"type":"function","function":{"name":"f","description":"d","parameters":{"type":"object"}}}],
		"tool_choice":{"type":"function","function":{"name":"f"}},"max_tokens":100,"max_completion_tokens":200,
		"temperature":0.5,"top_p":0.9,"stop":"END","user":"u1","metadata":{"k":"v"}}`)
	type view struct {
		Model                  string
		Stream, IncludeUsage   bool
		Tools                  []Tool
		ToolChoice             ToolChoice
		MaxTokens, MaxCompl    int
		Temperature, TopP      float64
		Stop                   []string
		User                   string
		Metadata               map[string]string
		HasMax, HasTemp, HasTC bool
	}
	tools, err := r.Tools()
	if err != nil {
		t.Fatal(err)
	}
	got := view{Model: r.Model(), Stream: r.Stream(), IncludeUsage: r.IncludeUsage(), Tools: tools,
		Stop: r.Stop(), User: r.User(), Metadata: r.Metadata()}
	got.ToolChoice, got.HasTC = r.ToolChoice()
	got.MaxTokens, got.HasMax = r.MaxTokens()
	got.MaxCompl, _ = r.MaxCompletionTokens()
	got.Temperature, got.HasTemp = r.Temperature()
	got.TopP, _ = r.TopP()
	want := view{
		Model: "m", Stream: true, IncludeUsage: true,
		Tools: []Tool{{Type: "function", Function: FunctionDefinition{Name: "f", Description: "d",
			Parameters: json.RawMessage(`{"type":"object"}`)}}},
		ToolChoice: ToolChoice{Function: "f"}, MaxTokens: 100, MaxCompl: 200, Temperature: 0.5, TopP: 0.9,
		Stop: []string{"END"}, User: "u1", Metadata: map[string]string{"k": "v"},
		HasMax: true, HasTemp: true, HasTC: true,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	empty := mustParse(t, `{"messages":[],"stop":["a","b"],"tool_choice":"required","max_tokens":"x"}`)
	if empty.Model() != "" || empty.Stream() || empty.IncludeUsage() {
		t.Error("zero values expected")
	}
	if _, ok := empty.MaxTokens(); ok {
		t.Error("MaxTokens ok for a string")
	}
	if _, ok := empty.Temperature(); ok {
		t.Error("Temperature ok when absent")
	}
	if diff := cmp.Diff([]string{"a", "b"}, empty.Stop()); diff != "" {
		t.Errorf("Stop (-want +got):\n%s", diff)
	}
	if tc, ok := empty.ToolChoice(); !ok || tc.Mode != "required" {
		t.Errorf("ToolChoice = %+v, %v", tc, ok)
	}
	if tools, err := empty.Tools(); err != nil || tools != nil {
		t.Errorf("Tools = %v, %v", tools, err)
	}
}

func TestSetIncludeUsage(t *testing.T) {
	tests := []struct{ body, want string }{
		{`{"messages":[]}`, `{"messages":[],"stream_options":{"include_usage":true}}`},
		{`{"stream_options":{"x":1,"include_usage":false},"messages":[]}`, `{"stream_options":{"x":1,"include_usage":true},"messages":[]}`},
		{`{"stream_options":"bad","messages":[]}`, `{"stream_options":{"include_usage":true},"messages":[]}`},
	}
	for _, tt := range tests {
		r := mustParse(t, tt.body)
		r.SetIncludeUsage(true)
		if got := mustMarshal(t, r); got != tt.want {
			t.Errorf("got %s, want %s", got, tt.want)
		}
		if !r.IncludeUsage() {
			t.Error("IncludeUsage false after set")
		}
	}
}

func TestToolChoiceJSON(t *testing.T) {
	for _, tt := range []struct {
		tc   ToolChoice
		json string
	}{
		{ToolChoice{Mode: "auto"}, `"auto"`},
		{ToolChoice{Function: "get"}, `{"type":"function","function":{"name":"get"}}`},
	} {
		b, err := json.Marshal(tt.tc)
		if err != nil || string(b) != tt.json {
			t.Errorf("Marshal(%+v) = %s, %v", tt.tc, b, err)
		}
		var back ToolChoice
		if err := json.Unmarshal(b, &back); err != nil || back != tt.tc {
			t.Errorf("Unmarshal(%s) = %+v, %v", b, back, err)
		}
	}
	var tc ToolChoice
	if err := json.Unmarshal([]byte(`{"type":"function"}`), &tc); err == nil {
		t.Error("expected error for nameless tool_choice")
	}
}

func TestSetFieldValue(t *testing.T) {
	r := mustParse(t, `{"messages":[]}`)
	if err := r.SetFieldValue("bad", func() {}); err == nil {
		t.Error("expected encode error")
	}
	r.SetField("parallel_tool_calls", json.RawMessage(`false`))
	if got := mustMarshal(t, r); got != `{"messages":[],"parallel_tool_calls":false}` {
		t.Errorf("got %s", got)
	}
}
