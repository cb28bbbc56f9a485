package fakeupstream

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// chatParams returns minimal chat completion parameters.
func chatParams(stream bool) openai.ChatCompletionNewParams {
	p := openai.ChatCompletionNewParams{
		Model:    "kimi-k2-test",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("weather in Paris?")},
	}
	if stream {
		p.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	}
	return p
}

// rawString decodes the JSON string raw (empty when raw is empty).
func rawString(t *testing.T, raw string) string {
	t.Helper()
	if raw == "" {
		return ""
	}
	var s string
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	return s
}

// replyFromMessage converts an openai-go message back into a Reply.
func replyFromMessage(t *testing.T, msg openai.ChatCompletionMessage, finish string) Reply {
	t.Helper()
	r := Reply{Text: msg.Content, FinishReason: finish}
	if f, ok := msg.JSON.ExtraFields["reasoning_content"]; ok {
		r.Reasoning = rawString(t, f.Raw())
	}
	for _, tc := range msg.ToolCalls {
		if tc.Type != "function" {
			t.Errorf("tool call type = %q", tc.Type)
		}
		r.ToolCalls = append(r.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return r
}

// essentials keeps the content fields of a Reply for comparisons.
func essentials(r Reply) Reply {
	return Reply{Text: r.Text, Reasoning: r.Reasoning, ToolCalls: r.ToolCalls, FinishReason: r.FinishReason}
}

func TestOpenAINonStreaming(t *testing.T) {
	s, base := startServer(t)
	s.Enqueue(scripted)
	client := openaiClient(base)

	got, err := client.Chat.Completions.New(context.Background(), chatParams(false))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if !strings.HasPrefix(got.ID, "chatcmpl-") || got.Object != "chat.completion" || got.Model != "kimi-k2-test" || got.Created == 0 {
		t.Errorf("header fields: id=%q object=%q model=%q created=%d", got.ID, got.Object, got.Model, got.Created)
	}
	if len(got.Choices) != 1 {
		t.Fatalf("choices = %d", len(got.Choices))
	}
	c := got.Choices[0]
	if diff := cmp.Diff(essentials(scripted), replyFromMessage(t, c.Message, c.FinishReason)); diff != "" {
		t.Errorf("reply mismatch (-want +got):\n%s", diff)
	}
	u := got.Usage
	if u.PromptTokens <= 0 || u.CompletionTokens <= 0 || u.TotalTokens != u.PromptTokens+u.CompletionTokens {
		t.Errorf("usage = %+v", u)
	}
	if u.CompletionTokensDetails.ReasoningTokens <= 0 {
		t.Errorf("reasoning tokens = %d", u.CompletionTokensDetails.ReasoningTokens)
	}
}

func TestOpenAIToolOnlyContentNull(t *testing.T) {
	s, base := startServer(t)
	s.Enqueue(Reply{ToolCalls: scripted.ToolCalls})
	resp := post(t, base+"/v1/chat/completions", `{"model":"m","messages":[]}`, nil)
	var body struct {
		Choices []struct {
			Message      map[string]json.RawMessage `json:"message"`
			FinishReason string                     `json:"finish_reason"`
		} `json:"choices"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	m := body.Choices[0].Message
	if string(m["content"]) != "null" || body.Choices[0].FinishReason != "tool_calls" {
		t.Errorf("content = %s, finish = %q", m["content"], body.Choices[0].FinishReason)
	}
	if _, ok := m["reasoning_content"]; ok {
		t.Errorf("reasoning_content present without reasoning")
	}
}

func TestOpenAIStreamingAccumulates(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply Reply
	}{
		{"full", scripted},
		{"text", Reply{Text: "just text, streamed in tiny pieces", ChunkSize: 1}},
		{"tools-only", Reply{ToolCalls: scripted.ToolCalls}},
		{"length", Reply{Text: "cut", FinishReason: "max_tokens"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, base := startServer(t)
			s.Enqueue(tc.reply)
			client := openaiClient(base)
			stream := client.Chat.Completions.NewStreaming(context.Background(), chatParams(true))
			var acc openai.ChatCompletionAccumulator
			var reasoning strings.Builder
			chunks := 0
			for stream.Next() {
				chunk := stream.Current()
				if !acc.AddChunk(chunk) {
					t.Fatalf("AddChunk rejected chunk %d: %s", chunks, chunk.RawJSON())
				}
				if chunks == 0 && (len(chunk.Choices) != 1 || chunk.Choices[0].Delta.Role != "assistant") {
					t.Errorf("first chunk has no assistant role: %s", chunk.RawJSON())
				}
				if len(chunk.Choices) > 0 {
					if f, ok := chunk.Choices[0].Delta.JSON.ExtraFields["reasoning_content"]; ok {
						reasoning.WriteString(rawString(t, f.Raw()))
					}
				}
				chunks++
			}
			if err := stream.Err(); err != nil {
				t.Fatalf("stream: %v", err)
			}
			if len(acc.Choices) != 1 {
				t.Fatalf("choices = %d", len(acc.Choices))
			}
			got := replyFromMessage(t, acc.Choices[0].Message, acc.Choices[0].FinishReason)
			got.Reasoning = reasoning.String()
			want := essentials(tc.reply)
			want.FinishReason = compile(tc.reply).openaiFinish()
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("accumulated reply mismatch (-want +got):\n%s", diff)
			}
			if acc.Usage.TotalTokens == 0 || acc.Model != "kimi-k2-test" || !strings.HasPrefix(acc.ID, "chatcmpl-") {
				t.Errorf("usage=%+v model=%q id=%q", acc.Usage, acc.Model, acc.ID)
			}
		})
	}
}

func TestOpenAIStreamWireFormat(t *testing.T) {
	s, base := startServer(t)
	s.Enqueue(Reply{ToolCalls: scripted.ToolCalls[:1], ChunkSize: 100})
	resp := post(t, base+"/v1/chat/completions", `{"model":"m","stream":true}`, nil)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream; charset=utf-8" {
		t.Errorf("Content-Type = %q", ct)
	}
	events, err := readSSE(t, resp)
	if err != nil {
		t.Fatal(err)
	}
	var deltas []string
	for _, e := range events {
		if e.Event != "" {
			t.Errorf("OpenAI frame with event line: %+v", e)
		}
		if e.Data == "[DONE]" {
			deltas = append(deltas, "[DONE]")
			continue
		}
		var chunk struct {
			Object  string `json:"object"`
			Choices []struct {
				Delta        json.RawMessage `json:"delta"`
				FinishReason *string         `json:"finish_reason"`
			} `json:"choices"`
			Usage *json.RawMessage `json:"usage"`
		}
		if err := json.Unmarshal([]byte(e.Data), &chunk); err != nil {
			t.Fatalf("chunk %q: %v", e.Data, err)
		}
		if chunk.Object != "chat.completion.chunk" || chunk.Usage != nil || strings.Contains(e.Data, `"usage"`) {
			t.Errorf("chunk %s: object or usage wrong without include_usage", e.Data)
		}
		deltas = append(deltas, string(chunk.Choices[0].Delta))
	}
	want := []string{
		`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}],"refusal":null}`,
		`{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":\"Paris\",\"unit\":\"c\"}"}}]}`,
		`{}`,
		"[DONE]",
	}
	if diff := cmp.Diff(want, deltas); diff != "" {
		t.Errorf("deltas (-want +got):\n%s", diff)
	}
}

func TestOpenAIErrorReply(t *testing.T) {
	s, base := startServer(t)
	s.Enqueue(Reply{Status: http.StatusTooManyRequests, RetryAfter: "7"})
	s.Enqueue(Reply{Status: http.StatusInternalServerError, ErrorType: "server_error", ErrorMessage: "boom"})
	client := openaiClient(base)

	_, err := client.Chat.Completions.New(context.Background(), chatParams(false))
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v, want *openai.Error", err)
	}
	if apiErr.StatusCode != 429 || apiErr.Code != "rate_limit_exceeded" || apiErr.Response.Header.Get("Retry-After") != "7" {
		t.Errorf("429: status=%d code=%q retry-after=%q", apiErr.StatusCode, apiErr.Code, apiErr.Response.Header.Get("Retry-After"))
	}

	stream := client.Chat.Completions.NewStreaming(context.Background(), chatParams(true))
	for stream.Next() {
		t.Errorf("unexpected chunk")
	}
	if !errors.As(stream.Err(), &apiErr) || apiErr.StatusCode != 500 || apiErr.Message != "boom" || apiErr.Type != "server_error" {
		t.Errorf("streaming error = %v (%+v)", stream.Err(), apiErr)
	}
}

func TestOpenAIRetriesConsumeQueue(t *testing.T) {
	s, base := startServer(t)
	s.Enqueue(Reply{Status: 503, RetryAfter: "0"})
	s.Enqueue(Reply{Status: 503, RetryAfter: "0"})
	s.Enqueue(Reply{Text: "third time lucky"})
	client := openai.NewClient(option.WithBaseURL(base+"/v1"), option.WithAPIKey("x"), option.WithMaxRetries(2))
	got, err := client.Chat.Completions.New(context.Background(), chatParams(false))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if got.Choices[0].Message.Content != "third time lucky" || len(s.Requests()) != 3 {
		t.Errorf("content = %q after %d requests", got.Choices[0].Message.Content, len(s.Requests()))
	}
}

func TestOpenAIMalformedJSON(t *testing.T) {
	s, base := startServer(t)
	s.Enqueue(Reply{Text: "kept"})
	resp := post(t, base+"/v1/chat/completions", `{"model":`, nil)
	var body oaErrorBody
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 400 || body.Error.Type != "invalid_request_error" || !strings.Contains(body.Error.Message, "could not parse the JSON body") {
		t.Errorf("status %d body %+v", resp.StatusCode, body)
	}
	if s.Pending() != 1 {
		t.Errorf("malformed request consumed a queued reply")
	}
}

func TestOpenAIFailAfterChunks(t *testing.T) {
	s, base := startServer(t)
	s.Enqueue(Reply{Text: "this stream will break midway", FailAfterChunks: 3})
	stream := openaiClient(base).Chat.Completions.NewStreaming(context.Background(), chatParams(true))
	n := 0
	for stream.Next() {
		n++
	}
	if n != 3 || stream.Err() == nil {
		t.Errorf("got %d chunks, err %v; want 3 chunks then an error", n, stream.Err())
	}

	// Non-streaming: the body is truncated.
	s.Enqueue(Reply{Text: "truncated", FailAfterChunks: 1})
	if _, err := openaiClient(base).Chat.Completions.New(context.Background(), chatParams(false)); err == nil {
		t.Errorf("truncated body parsed without error")
	}
}

func TestOpenAIErrorAfterChunks(t *testing.T) {
	s, base := startServer(t)
	s.Enqueue(Reply{Text: "partial answer", ErrorAfterChunks: 2, ErrorMessage: "upstream overloaded"})
	stream := openaiClient(base).Chat.Completions.NewStreaming(context.Background(), chatParams(true))
	n := 0
	for stream.Next() {
		n++
	}
	if n != 2 || stream.Err() == nil || !strings.Contains(stream.Err().Error(), "upstream overloaded") {
		t.Errorf("got %d chunks, err %v", n, stream.Err())
	}
}

func TestOpenAIHoldAfterFirst(t *testing.T) {
	s, base := startServer(t)
	hold := make(chan struct{})
	s.Enqueue(Reply{Text: "held back", HoldAfterFirst: hold})
	stream := openaiClient(base).Chat.Completions.NewStreaming(context.Background(), chatParams(true))
	firstSeen := make(chan struct{})
	done := make(chan string)
	go func() {
		var acc openai.ChatCompletionAccumulator
		for i := 0; stream.Next(); i++ {
			acc.AddChunk(stream.Current())
			if i == 0 {
				close(firstSeen)
			}
		}
		done <- acc.Choices[0].Message.Content
	}()
	select {
	case <-firstSeen:
	case <-time.After(5 * time.Second):
		t.Fatal("first chunk did not arrive while the upstream was held")
	}
	select {
	case <-done:
		t.Fatal("stream finished while held")
	case <-time.After(50 * time.Millisecond):
	}
	close(hold)
	if got := <-done; got != "held back" {
		t.Errorf("content = %q", got)
	}
	if stream.Err() != nil {
		t.Errorf("stream: %v", stream.Err())
	}
}

func TestOpenAIChunkDelay(t *testing.T) {
	s, base := startServer(t)
	s.Enqueue(Reply{Text: "abcdefgh", ChunkSize: 2, ChunkDelay: 20 * time.Millisecond, FirstByteDelay: 30 * time.Millisecond})
	start := time.Now()
	stream := openaiClient(base).Chat.Completions.NewStreaming(context.Background(), chatParams(false))
	n := 0
	for stream.Next() {
		n++
	}
	// role + 4 text + finish = 6 chunks, 5 gaps (the [DONE] frame adds one).
	if el := time.Since(start); n != 6 || el < 30*time.Millisecond+5*20*time.Millisecond {
		t.Errorf("%d chunks in %v", n, el)
	}
}
