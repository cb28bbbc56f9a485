package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/metaclaw/metaclaw/proxy/openai"
)

// jsonEqual compares two JSON documents semantically.
func jsonEqual(t *testing.T, want, got string) {
	t.Helper()
	var w, g any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want JSON: %v\n%s", err, want)
	}
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("bad got JSON: %v\n%s", err, got)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("JSON mismatch (-want +got):\n%s\ngot: %s", diff, got)
	}
}

func TestToOpenAI(t *testing.T) {
	tests := []struct {
		name, model, body, want string
	}{
		{
			name: "system string and sampling",
			body: `{"model":"claude","max_tokens":100,"system":"be brief","temperature":0.3,"top_p":0.9,"top_k":40,
				"stop_sequences":["END"],"metadata":{"user_id":"u1"},"thinking":{"type":"enabled","budget_tokens":1024},
				"messages":[{"role":"user","content":"hi"}]}`,
			want: `{"model":"claude","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hi"}],
				"max_tokens":100,"stop":["END"],"temperature":0.3,"top_p":0.9,"user":"u1"}`,
		},
		{
			name:  "system blocks joined and model override",
			model: "gpt-4o",
			body: `{"model":"claude","system":[{"type":"text","text":"A","cache_control":{"type":"ephemeral"}},{"type":"text","text":"B"}],
				"messages":[{"role":"user","content":[{"type":"text","text":"only"}]}]}`,
			want: `{"model":"gpt-4o","messages":[{"role":"system","content":"A\n\nB"},{"role":"user","content":"only"}]}`,
		},
		{
			name: "images base64 and url",
			body: `{"messages":[{"role":"user","content":[{"type":"text","text":"what?"},
				{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"QUJD"}},
				{"type":"image","source":{"type":"url","url":"https://x/i.png"}},
				{"type":"image","source":{"type":"file","file_id":"f"}}]}]}`,
			want: `{"model":"","messages":[{"role":"user","content":[{"type":"text","text":"what?"},
				{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,QUJD"}},
				{"type":"image_url","image_url":{"url":"https://x/i.png"}}]}]}`,
		},
		{
			name: "tool use and results",
			body: `{"model":"m","messages":[
				{"role":"user","content":"weather?"},
				{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"text","text":"Checking."},
					{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city": "Paris"}},
					{"type":"tool_use","id":"toolu_2","name":"get_time","input":{}}]},
				{"role":"user","content":[{"type":"text","text":"before"},
					{"type":"tool_result","tool_use_id":"toolu_1","content":"sunny"},
					{"type":"tool_result","tool_use_id":"toolu_2","is_error":true,"content":[{"type":"text","text":"no"},{"type":"text","text":"clock"}]},
					{"type":"text","text":"after"}]}]}`,
			want: `{"model":"m","messages":[
				{"role":"user","content":"weather?"},
				{"role":"assistant","content":"Checking.","tool_calls":[
					{"id":"toolu_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},
					{"id":"toolu_2","type":"function","function":{"name":"get_time","arguments":"{}"}}]},
				{"role":"tool","tool_call_id":"toolu_1","content":"sunny"},
				{"role":"tool","tool_call_id":"toolu_2","content":"Error: no\nclock"},
				{"role":"user","content":[{"type":"text","text":"before"},{"type":"text","text":"after"}]}]}`,
		},
		{
			name: "tool only assistant, error without content, image in result",
			body: `{"model":"m","messages":[
				{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"shot"}]},
				{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","is_error":true},
					{"type":"tool_result","tool_use_id":"b","content":[{"type":"text","text":"img:"},
						{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA"}}]}]},
				{"role":"assistant","content":[{"type":"thinking","thinking":"x","signature":"y"}]},
				{"role":"assistant","content":"plain"}]}`,
			want: `{"model":"m","messages":[
				{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"shot","arguments":"{}"}}]},
				{"role":"tool","tool_call_id":"a","content":"Error"},
				{"role":"tool","tool_call_id":"b","content":"img:"},
				{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,AA"}}]},
				{"role":"assistant","content":""},
				{"role":"assistant","content":"plain"}]}`,
		},
		{
			name: "empty user blocks",
			body: `{"model":"m","messages":[{"role":"user","content":[]}]}`,
			want: `{"model":"m","messages":[{"role":"user","content":""}]}`,
		},
		{
			name: "stream",
			body: `{"model":"m","stream":true,"messages":[]}`,
			want: `{"model":"m","messages":[],"stream":true,"stream_options":{"include_usage":true}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ToOpenAI(mustParse(t, tt.body), tt.model)
			if err != nil {
				t.Fatal(err)
			}
			jsonEqual(t, tt.want, string(got))
			if _, err := openai.ParseChatRequest(got); err != nil {
				t.Errorf("output rejected by openai.ParseChatRequest: %v", err)
			}
		})
	}
}

func TestToOpenAITools(t *testing.T) {
	tools := `"tools":[{"name":"get","description":"Get it","input_schema":{"type":"object","properties":{"a":{"type":"string"}}}},
		{"name":"bare"},{"type":"bash_20250124","name":"bash"}]`
	wantTools := `"tools":[{"type":"function","function":{"name":"get","description":"Get it","parameters":{"type":"object","properties":{"a":{"type":"string"}}}}},
		{"type":"function","function":{"name":"bare","parameters":{"type":"object","properties":{}}}}]`
	tests := []struct{ name, choice, want string }{
		{"no choice", ``, ``},
		{"auto", `,"tool_choice":{"type":"auto"}`, `,"tool_choice":"auto"`},
		{"any", `,"tool_choice":{"type":"any"}`, `,"tool_choice":"required"`},
		{"none", `,"tool_choice":{"type":"none"}`, `,"tool_choice":"none"`},
		{"tool", `,"tool_choice":{"type":"tool","name":"get"}`, `,"tool_choice":{"type":"function","function":{"name":"get"}}`},
		{"tool without name", `,"tool_choice":{"type":"tool"}`, ``},
		{"disable parallel", `,"tool_choice":{"type":"auto","disable_parallel_tool_use":true}`, `,"tool_choice":"auto","parallel_tool_calls":false`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := `{"model":"m","messages":[],` + tools + tt.choice + `}`
			got, err := ToOpenAI(mustParse(t, body), "")
			if err != nil {
				t.Fatal(err)
			}
			jsonEqual(t, `{"model":"m","messages":[],`+wantTools+tt.want+`}`, string(got))
		})
	}
	// Only server tools: tools and tool_choice are omitted.
	got, err := ToOpenAI(mustParse(t, `{"model":"m","messages":[],"tools":[{"type":"web_search_20250305","name":"w"}],"tool_choice":{"type":"any"}}`), "")
	if err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, `{"model":"m","messages":[]}`, string(got))
}

func TestToOpenAIErrors(t *testing.T) {
	for _, body := range []string{
		`{"messages":[{"role":"user","content":5}]}`,
		`{"system":[1],"messages":[]}`,
		`{"messages":[],"tools":{"a":1}}`,
	} {
		if _, err := ToOpenAI(mustParse(t, body), "m"); err == nil {
			t.Errorf("%s: expected error", body)
		}
	}
}
