package fakeupstream

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/google/go-cmp/cmp"
)

// messageParams returns minimal messages parameters.
func messageParams() anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model:     "claude-sonnet-4-5",
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("weather in Paris?"))},
	}
}

// replyFromAnthropic converts an anthropic-sdk-go message back into a Reply.
func replyFromAnthropic(t *testing.T, msg *anthropic.Message) Reply {
	t.Helper()
	r := Reply{FinishReason: string(msg.StopReason)}
	for _, b := range msg.Content {
		switch b.Type {
		case "thinking":
			r.Reasoning += b.Thinking
			if b.Signature == "" {
				t.Errorf("thinking block without signature")
			}
		case "text":
			r.Text += b.Text
		case "tool_use":
			r.ToolCalls = append(r.ToolCalls, ToolCall{ID: b.ID, Name: b.Name, Arguments: string(b.Input)})
		default:
			t.Errorf("unexpected block type %q", b.Type)
		}
	}
	return r
}

// wantAnthropic is the Reply an Anthropic client should reconstruct.
func wantAnthropic(r Reply) Reply {
	want := essentials(r)
	want.FinishReason = compile(r).anthropicStop()
	return want
}

func TestAnthropicNonStreaming(t *testing.T) {
	s, base := startServer(t)
	s.Enqueue(scripted)
	got, err := anthropicClient(base).Messages.New(context.Background(), messageParams())
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if !strings.HasPrefix(got.ID, "msg_") || got.Model != "claude-sonnet-4-5" || got.Role != "assistant" {
		t.Errorf("id=%q model=%q role=%q", got.ID, got.Model, got.Role)
	}
	if diff := cmp.Diff(wantAnthropic(scripted), replyFromAnthropic(t, got)); diff != "" {
		t.Errorf("reply mismatch (-want +got):\n%s", diff)
	}
	if got.Usage.InputTokens <= 0 || got.Usage.OutputTokens <= 0 {
		t.Errorf("usage = %+v", got.Usage)
	}
	if got.JSON.StopSequence.Raw() != "null" {
		t.Errorf("stop_sequence = %s", got.JSON.StopSequence.Raw())
	}
}

func TestAnthropicStreamingAccumulates(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply Reply
	}{
		{"full", scripted},
		{"text", Reply{Text: "only text", ChunkSize: 1}},
		{"tools-only", Reply{ToolCalls: scripted.ToolCalls}},
		{"empty-args", Reply{ToolCalls: []ToolCall{{ID: "toolu_x", Name: "now"}}}},
		{"max-tokens", Reply{Text: "cut", FinishReason: "length"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, base := startServer(t)
			s.Enqueue(tc.reply)
			stream := anthropicClient(base).Messages.NewStreaming(context.Background(), messageParams())
			var msg anthropic.Message
			for stream.Next() {
				if err := msg.Accumulate(stream.Current()); err != nil {
					t.Fatalf("Accumulate: %v", err)
				}
			}
			if err := stream.Err(); err != nil {
				t.Fatalf("stream: %v", err)
			}
			want := wantAnthropic(tc.reply)
			for i := range want.ToolCalls {
				if want.ToolCalls[i].Arguments == "" {
					want.ToolCalls[i].Arguments = "{}"
				}
			}
			if diff := cmp.Diff(want, replyFromAnthropic(t, &msg)); diff != "" {
				t.Errorf("accumulated reply mismatch (-want +got):\n%s", diff)
			}
			if msg.Usage.OutputTokens != int64(compile(tc.reply).completionTokens) || msg.Usage.InputTokens <= 0 || !strings.HasPrefix(msg.ID, "msg_") {
				t.Errorf("usage=%+v id=%q", msg.Usage, msg.ID)
			}
		})
	}
}

func TestAnthropicStreamEventSequence(t *testing.T) {
	s, base := startServer(t)
	s.Enqueue(Reply{Reasoning: "hmm", Text: "hi", ToolCalls: scripted.ToolCalls[:1], ChunkSize: 100})
	resp := post(t, base+"/v1/messages", `{"model":"claude","stream":true,"max_tokens":5,"messages":[]}`,
		map[string]string{"anthropic-version": "2023-06-01", "x-api-key": "k"})
	events, err := readSSE(t, resp)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range events {
		var data struct {
			Type  string `json:"type"`
			Delta struct {
				Type string `json:"type"`
			} `json:"delta"`
		}
		if err := json.Unmarshal([]byte(e.Data), &data); err != nil {
			t.Fatalf("data %q: %v", e.Data, err)
		}
		if data.Type != e.Event {
			t.Errorf("event %q carries data type %q", e.Event, data.Type)
		}
		name := e.Event
		if data.Delta.Type != "" {
			name += "/" + data.Delta.Type
		}
		got = append(got, name)
	}
	want := []string{
		"message_start",
		"content_block_start", "ping",
		"content_block_delta/thinking_delta", "content_block_delta/signature_delta", "content_block_stop",
		"content_block_start", "content_block_delta/text_delta", "content_block_stop",
		"content_block_start", "content_block_delta/input_json_delta", "content_block_delta/input_json_delta", "content_block_stop",
		"message_delta", "message_stop",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("event sequence (-want +got):\n%s", diff)
	}
	if resp.Header.Get("Request-Id") == "" {
		t.Errorf("no request-id header")
	}
}

func TestAnthropicErrorReply(t *testing.T) {
	s, base := startServer(t)
	s.Enqueue(Reply{Status: 529})
	s.Enqueue(Reply{Status: http.StatusTooManyRequests, RetryAfter: "3", ErrorMessage: "slow down"})
	client := anthropicClient(base)

	_, err := client.Messages.New(context.Background(), messageParams())
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 529 || apiErr.Type() != "overloaded_error" || apiErr.RequestID == "" {
		t.Fatalf("err = %v", err)
	}

	stream := client.Messages.NewStreaming(context.Background(), messageParams())
	for stream.Next() {
		t.Errorf("unexpected event")
	}
	if !errors.As(stream.Err(), &apiErr) || apiErr.StatusCode != 429 || apiErr.Type() != anthropic.ErrorTypeRateLimitError ||
		apiErr.Message != "slow down" || apiErr.Response.Header.Get("Retry-After") != "3" {
		t.Errorf("streaming err = %v", stream.Err())
	}
}

func TestAnthropicMalformedJSON(t *testing.T) {
	_, base := startServer(t)
	resp := post(t, base+"/v1/messages", `nope`, nil)
	var body anErrorBody
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 400 || body.Type != "error" || body.Error.Type != "invalid_request_error" {
		t.Errorf("status %d body %+v", resp.StatusCode, body)
	}
}

func TestAnthropicFailAndErrorMidStream(t *testing.T) {
	s, base := startServer(t)
	s.Enqueue(Reply{Text: "breaks after two events", FailAfterChunks: 2})
	s.Enqueue(Reply{Text: "errors after three events", ErrorAfterChunks: 3})
	client := anthropicClient(base)

	stream := client.Messages.NewStreaming(context.Background(), messageParams())
	n := 0
	for stream.Next() {
		n++
	}
	// message_start and content_block_start; the ping is swallowed.
	if n != 2 || stream.Err() == nil {
		t.Errorf("abort: %d events, err %v", n, stream.Err())
	}

	stream = client.Messages.NewStreaming(context.Background(), messageParams())
	n = 0
	for stream.Next() {
		n++
	}
	if n != 2 || stream.Err() == nil || !strings.Contains(stream.Err().Error(), "verloaded") {
		t.Errorf("in-stream error: %d events, err %v", n, stream.Err())
	}
}

func TestAnthropicHoldAfterFirst(t *testing.T) {
	s, base := startServer(t)
	hold := make(chan struct{})
	s.Enqueue(Reply{Text: "held", HoldAfterFirst: hold})
	stream := anthropicClient(base).Messages.NewStreaming(context.Background(), messageParams())
	if !stream.Next() || stream.Current().Type != "message_start" {
		t.Fatalf("first event: %v %v", stream.Current().Type, stream.Err())
	}
	released := make(chan struct{})
	go func() {
		time.Sleep(30 * time.Millisecond)
		close(released)
		close(hold)
	}()
	if !stream.Next() {
		t.Fatalf("second event: %v", stream.Err())
	}
	select {
	case <-released:
	default:
		t.Errorf("second event arrived before the hold was released")
	}
	for stream.Next() {
	}
	if stream.Err() != nil {
		t.Errorf("stream: %v", stream.Err())
	}
}
