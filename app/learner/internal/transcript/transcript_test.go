package transcript

import (
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body  string
		want        []Message
		instruction string
		results     []string
	}{
		{
			name: "openai with tool loop",
			body: `{"model":"m","messages":[{"role":"system","content":"sys"},{"role":"user","content":"fix the bug"},
				{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"p\":1}"}}]},
				{"role":"tool","tool_call_id":"c1","content":"file text"}]}`,
			want: []Message{{Role: "system", Text: "sys"}, {Role: "user", Text: "fix the bug"},
				{Role: "assistant", ToolCalls: []ToolCall{{Name: "read", Arguments: `{"p":1}`}}}, {Role: "tool", Text: "file text"}},
			instruction: "fix the bug", results: []string{"file text"},
		},
		{
			name: "openai parts",
			body: `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"x"}},{"type":"text","text":"b"}]}]}`,
			want: []Message{{Role: "user", Text: "a\nb"}}, instruction: "a\nb",
		},
		{
			name: "anthropic native",
			body: `{"model":"m","max_tokens":10,"system":[{"type":"text","text":"sys"}],"messages":[
				{"role":"user","content":"list files"},
				{"role":"assistant","content":[{"type":"text","text":"ok"},{"type":"tool_use","id":"t1","name":"ls","input":{"d":"."}}]},
				{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a.go"}]}]}`,
			want: []Message{{Role: "system", Text: "sys"}, {Role: "user", Text: "list files"},
				{Role: "assistant", Text: "ok", ToolCalls: []ToolCall{{Name: "ls", Arguments: `{"d":"."}`}}}, {Role: "tool", Text: "a.go"}},
			instruction: "list files", results: []string{"a.go"},
		},
		{
			name:        "anthropic without system",
			body:        `{"model":"m","messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"r"}]},{"type":"text","text":"and now?"}]}]}`,
			want:        []Message{{Role: "tool", Text: "r"}, {Role: "user", Text: "and now?"}},
			instruction: "and now?", results: []string{"r"},
		},
		{
			// OpenClaw ends every request with its internal-context message,
			// after the tool results too (reference/openclaw-client.md).
			name: "openclaw internal context",
			body: `{"model":"m","messages":[{"role":"user","content":"[Wed 2026-12-02 06:48 UTC] write the report"},
				{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"write","arguments":"{}"}}]},
				{"role":"tool","tool_call_id":"c1","content":"wrote"},
				{"role":"user","content":[{"type":"text","text":"<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nActive exec sessions:\nnone\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>"}]}]}`,
			want: []Message{{Role: "user", Text: "[Wed 2026-12-02 06:48 UTC] write the report"},
				{Role: "assistant", ToolCalls: []ToolCall{{Name: "write", Arguments: "{}"}}}, {Role: "tool", Text: "wrote"},
				{Role: "user", Text: "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nActive exec sessions:\nnone\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>"}},
			instruction: "[Wed 2026-12-02 06:48 UTC] write the report", results: []string{"wrote"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse([]byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse (-want +got):\n%s", diff)
			}
			if ins := Instruction(got); ins != tt.instruction {
				t.Errorf("Instruction = %q, want %q", ins, tt.instruction)
			}
			if diff := cmp.Diff(tt.results, TrailingToolResults(got)); diff != "" {
				t.Errorf("TrailingToolResults (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := Parse([]byte("not json")); err == nil {
		t.Error("Parse of garbage succeeded")
	}
}

func TestResponseToolCalls(t *testing.T) {
	t.Parallel()
	got := ResponseToolCalls(`[{"id":"c","type":"function","function":{"name":"run","arguments":"{}"}}]`)
	if diff := cmp.Diff([]ToolCall{{Name: "run", Arguments: "{}"}}, got); diff != "" {
		t.Error(diff)
	}
	if ResponseToolCalls("") != nil || ResponseToolCalls("{bad") != nil {
		t.Error("want nil for empty or bad JSON")
	}
}

func TestTrim(t *testing.T) {
	t.Parallel()
	s := "ééééééééééééééééééééééééééééééééééééééééé" // 2-byte runes
	got := Trim(s, 21)
	if !utf8.ValidString(got) || len(got) >= len(s)+30 {
		t.Fatalf("Trim = %q", got)
	}
	if Trim("short", 100) != "short" {
		t.Fatal("short text changed")
	}
}

// TestTextsAgreesWithParse holds Texts to Parse's roles and texts.
func TestTextsAgreesWithParse(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		`{"model":"m","messages":[{"role":"developer","content":"be brief"},{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},
			{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},
			{"role":"tool","tool_call_id":"c","content":"out"},{"role":"user","content":"next"}]}`,
		`{"model":"m","system":"s","messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"r"}]}]}`,
		`{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"thinking","thinking":"x"},{"type":"text","text":"yo"}]}]}`,
	} {
		want, err := Parse([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		got, err := Texts([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			want[i].ToolCalls = nil
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-Parse +Texts):\n%s\n%s", diff, body)
		}
	}
}
