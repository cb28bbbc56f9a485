package transcript

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// conversationBodies are requests whose ends differ in what precedes the
// person's words: tool loops, Anthropic tool results, OpenClaw's context.
var conversationBodies = []string{
	`{"model":"m","messages":[{"role":"system","content":"sys"},{"role":"user","content":"fix the bug"},
		{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"c1","content":"file text"}]}`,
	`{"model":"m","messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"},{"role":"user","content":[{"type":"text","text":"d"},{"type":"text","text":"e"}]}]}`,
	`{"model":"m","max_tokens":10,"system":[{"type":"text","text":"sys"}],"messages":[{"role":"user","content":"list files"},
		{"role":"assistant","content":[{"type":"text","text":"ok"},{"type":"tool_use","id":"t1","name":"ls","input":{"d":"."}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a.go"},{"type":"text","text":"and b?"}]}]}`,
	`{"model":"m","messages":[{"role":"user","content":"[Wed 2026-12-02 06:48 UTC] write the report"},
		{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"write","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"c1","content":"wrote"},
		{"role":"user","content":"<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nnone\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>"}]}`,
	`{"model":"m","system":"only a system prompt","messages":[]}`,
	`{"model":"m","messages":[{"role":"developer","content":"be brief"},{"role":"function","content":"out"}]}`,
}

// TestConversationReadsWhatParseReads holds the lazy reader to Parse: the
// same messages backward, the same instruction, and as the new user texts
// those of the user messages after Parse's last assistant message.
func TestConversationReadsWhatParseReads(t *testing.T) {
	t.Parallel()
	for _, body := range conversationBodies {
		want, err := Parse([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		c, err := Open([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		back := slices.Collect(c.Backward())
		slices.Reverse(back)
		if diff := cmp.Diff(want, back); diff != "" {
			t.Errorf("Backward reversed (-Parse +got):\n%s\n%s", diff, body)
		}
		if got, ins := c.Instruction(), Instruction(want); got != ins {
			t.Errorf("Instruction = %q, want %q\n%s", got, ins, body)
		}
		var users []string
		for i := len(want) - 1; i >= 0 && want[i].Role != RoleAssistant; i-- {
			if want[i].Role == RoleUser {
				users = append([]string{want[i].Text}, users...)
			}
		}
		if diff := cmp.Diff(users, c.NewUserTexts()); diff != "" {
			t.Errorf("NewUserTexts (-want +got):\n%s\n%s", diff, body)
		}
	}
}

func TestOpenRefusesWhatParseRefuses(t *testing.T) {
	t.Parallel()
	for _, body := range []string{"not json", `{"messages":{}}`, `[]`, `{"messages":[{"content":"x"}]}`, `{"messages":[{"role":1}]}`} {
		if _, err := Open([]byte(body)); err == nil {
			t.Errorf("Open(%s) succeeded", body)
		}
		if _, err := Parse([]byte(body)); err == nil {
			t.Errorf("Parse(%s) succeeded", body)
		}
	}
}
