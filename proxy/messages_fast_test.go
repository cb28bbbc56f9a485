package proxy

import (
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/metaclaw/metaclaw/proxy/anthropic"
	"github.com/metaclaw/metaclaw/proxy/learning"
	"github.com/metaclaw/metaclaw/store/config"
)

// anthropicConvByDecoding is anthropicConv as it was before it read the
// conversation without decoding: the reference for the tests below.
func anthropicConvByDecoding(req *anthropic.MessagesRequest) ([]anthropic.Message, []learning.Message, error) {
	sys, err := req.System()
	if err != nil {
		return nil, nil, err
	}
	msgs, err := req.Messages()
	if err != nil {
		return nil, nil, err
	}
	conv := make([]learning.Message, 0, len(msgs)+1)
	if t := sys.Join("\n"); t != "" {
		conv = append(conv, learning.Message{Role: "system", Text: t})
	}
	for _, m := range msgs {
		role, text := m.Role, m.Content.Join("\n")
		if m.Role == "user" && m.Content.ToolResultsOnly() {
			role, text = "tool", m.Content.ToolResultText("\n") // a tool message carries its results' text
		}
		conv = append(conv, learning.Message{Role: role, Text: text})
	}
	return msgs, conv, nil
}

// truncateAnthropicByDecoding is truncateAnthropic as it was, given the
// messages anthropicConvByDecoding decoded (the size estimate and the
// truncation of the messages are unchanged, and shared).
func (s *Server) truncateAnthropicByDecoding(req *anthropic.MessagesRequest, msgs []anthropic.Message) error {
	budget := s.conf().MaxContextTokens
	if budget <= 0 || estimateTokens(req.Field("messages")) <= budget {
		return nil
	}
	_, _, err := truncateAnthropicMessages(req, msgs, budget)
	return err
}

// anthropicSession is a conversation with text, tool calls and results
// (string and block content), an image and a system prompt of blocks.
var anthropicSession = `{"model":"m","max_tokens":64,"system":[{"type":"text","text":"You are a coding agent.","cache_control":{"type":"ephemeral"}},{"type":"text","text":"Be brief."}],"messages":[` +
	`{"role":"user","content":"` + strings.Repeat("old question ", 40) + `"},` +
	`{"role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("old answer ", 40) + `"},{"type":"tool_use","id":"t1","name":"read","input":{"path":"a.go"}}]},` +
	`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"package a"}]}]},` +
	`{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"s"},{"type":"text","text":"Read it."}]},` +
	`{"role":"user","content":[{"type":"image","source":{"type":"url","url":"https://x/y.png"}},{"type":"text","text":"and \"this\"?\n"}]},` +
	`{"role":"assistant","content":[{"type":"tool_use","id":"t2","name":"read","input":{}}]},` +
	`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"file text","is_error":true}]},` +
	`{"role":"user","content":"thanks"}]}`

// TestAnthropicConvMatchesDecoding holds anthropicConv to the decoding
// version it replaced: the same conversation, or the same error, first the
// system prompt's.
func TestAnthropicConvMatchesDecoding(t *testing.T) {
	for _, body := range []string{
		anthropicSession,
		`{"system":"S","messages":[{"role":"user","content":[]},{"role":"assistant"},{"role":"user","content":null}]}`,
		`{"system":[{"type":"text","text":1}],"messages":[{"role":"user","content":5}]}`,
		`{"messages":[{"role":"user","content":"a"},{"role":"user","content":[{"type":"tool_result","is_error":"no"}]}]}`,
		`{"messages":[{"role":"user","content":[{"type":"text","text":"x","text":"last"}],"content":[{"type":"tool_result"}]}]}`,
	} {
		req, err := anthropic.ParseMessagesRequest([]byte(body))
		if err != nil {
			t.Fatalf("%v: %s", err, body)
		}
		_, want, wantErr := anthropicConvByDecoding(req)
		got, err := anthropicConv(req)
		var re, wantRE *anthropic.RequestError
		if errors.As(err, &re) != errors.As(wantErr, &wantRE) || re != nil && *re != *wantRE {
			t.Errorf("error %v, want %v: %s", err, wantErr, body)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-decoded +got):\n%s\n%s", diff, body)
		}
	}
}

// TestTruncateAnthropicMatchesDecoding holds truncateAnthropic, which
// decodes the messages itself when over budget, to the version given the
// messages up front.
func TestTruncateAnthropicMatchesDecoding(t *testing.T) {
	for _, budget := range []int{0, 60, 120, 100000} {
		s := &Server{log: slog.New(slog.DiscardHandler)}
		s.lv.Store(&live{cfg: config.Config{MaxContextTokens: budget}})
		req, err := anthropic.ParseMessagesRequest([]byte(anthropicSession))
		if err != nil {
			t.Fatal(err)
		}
		ref := req.Clone()
		msgs, _, err := anthropicConvByDecoding(ref)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.truncateAnthropic(&turnState{}, req); err != nil {
			t.Fatal(err)
		}
		if err := s.truncateAnthropicByDecoding(ref, msgs); err != nil {
			t.Fatal(err)
		}
		got, _ := req.Marshal()
		want, _ := ref.Marshal()
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("budget %d (-decoded +got):\n%s", budget, diff)
		}
		if budget == 120 && len(got) >= len(anthropicSession) {
			t.Errorf("budget %d dropped nothing", budget)
		}
	}
}
