package anthropic

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestFromOpenAI(t *testing.T) {
	tests := []struct {
		name, model, resp, want string
	}{
		{
			name:  "text",
			model: "claude-x",
			resp: `{"id":"chatcmpl-abc","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,
				"message":{"role":"assistant","content":"Hello"},"finish_reason":"stop"}],
				"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}}`,
			want: `{"id":"msg_abc","type":"message","role":"assistant","model":"claude-x",
				"content":[{"type":"text","text":"Hello"}],"stop_reason":"end_turn","stop_sequence":null,
				"usage":{"input_tokens":10,"output_tokens":2}}`,
		},
		{
			name: "tool calls, reasoning, cached usage",
			resp: `{"id":"x1","model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":null,
				"reasoning_content":"think","tool_calls":[
				{"id":"call_1","type":"function","function":{"name":"get","arguments":"{\"a\": 1}"}},
				{"id":"call_2","type":"function","function":{"name":"bad","arguments":"not json"}},
				{"id":"call_3","type":"function","function":{"name":"none","arguments":""}}]},
				"finish_reason":"tool_calls"}],
				"usage":{"prompt_tokens":100,"completion_tokens":20,"total_tokens":120,"prompt_tokens_details":{"cached_tokens":60}}}`,
			want: `{"id":"msg_x1","type":"message","role":"assistant","model":"gpt-4o","content":[
				{"type":"thinking","thinking":"think","signature":""},
				{"type":"tool_use","id":"call_1","name":"get","input":{"a":1}},
				{"type":"tool_use","id":"call_2","name":"bad","input":{"_raw":"not json"}},
				{"type":"tool_use","id":"call_3","name":"none","input":{}}],
				"stop_reason":"tool_use","stop_sequence":null,
				"usage":{"input_tokens":40,"output_tokens":20,"cache_read_input_tokens":60}}`,
		},
		{
			name: "length",
			resp: `{"id":"msg_keep","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"abc"},"finish_reason":"length"}]}`,
			want: `{"id":"msg_keep","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"abc"}],
				"stop_reason":"max_tokens","stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}`,
		},
		{
			name: "content filter with refusal",
			resp: `{"id":"r","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"I can't"},"finish_reason":"content_filter"}]}`,
			want: `{"id":"msg_r","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"I can't"}],
				"stop_reason":"refusal","stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}`,
		},
		{
			name: "stop sequence from vllm stop_reason",
			resp: `{"id":"s","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"a"},"finish_reason":"stop","stop_reason":"END"}]}`,
			want: `{"id":"msg_s","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"a"}],
				"stop_reason":"stop_sequence","stop_sequence":"END","usage":{"input_tokens":0,"output_tokens":0}}`,
		},
		{
			name: "tool calls with finish stop",
			resp: `{"id":"t","model":"m","choices":[{"index":0,"message":{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"[1]"}}]},"finish_reason":"stop"}]}`,
			want: `{"id":"msg_t","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use","id":"c","name":"f","input":{"_raw":"[1]"}}],
				"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}`,
		},
		{
			name: "unknown finish and empty content",
			resp: `{"id":"u","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"eos"}]}`,
			want: `{"id":"msg_u","type":"message","role":"assistant","model":"m","content":[],
				"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FromOpenAI([]byte(tt.resp), tt.model)
			if err != nil {
				t.Fatal(err)
			}
			jsonEqual(t, tt.want, string(got))
		})
	}
}

func TestFromOpenAIFinishReasons(t *testing.T) {
	for finish, want := range map[string]string{
		"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use",
		"function_call": "tool_use", "content_filter": "refusal", "": "end_turn",
	} {
		resp := `{"id":"a","choices":[{"index":0,"message":{"role":"assistant","content":"x"},"finish_reason":"` + finish + `"}]}`
		got, err := FromOpenAI([]byte(resp), "m")
		if err != nil {
			t.Fatal(err)
		}
		var m MessagesResponse
		if err := json.Unmarshal(got, &m); err != nil || m.StopReason == nil || *m.StopReason != want {
			t.Errorf("finish %q: got %s", finish, got)
		}
	}
}

func TestFromOpenAIErrors(t *testing.T) {
	for _, resp := range []string{`{`, `{"choices":[]}`, `[]`} {
		if _, err := FromOpenAI([]byte(resp), "m"); err == nil {
			t.Errorf("%s: expected error", resp)
		}
	}
	got, err := FromOpenAI([]byte(`{"choices":[{"message":{"content":"x"}}]}`), "m")
	if err != nil {
		t.Fatal(err)
	}
	var m MessagesResponse
	if err := json.Unmarshal(got, &m); err != nil || !strings.HasPrefix(m.ID, "msg_") || len(m.ID) != 28 {
		t.Errorf("generated id: %s", got)
	}
}
