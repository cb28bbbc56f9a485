package fakeupstream

import (
	"bufio"
	"net/http"
	"strings"
	"testing"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	anthropicoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// startServer starts a fake upstream on 127.0.0.1 and closes it at the end
// of the test.
func startServer(t *testing.T) (*Server, string) {
	t.Helper()
	s := New()
	base, err := s.Start()
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s, base
}

// openaiClient returns an openai-go client for the fake, without retries.
func openaiClient(base string) *openai.Client {
	c := openai.NewClient(
		option.WithBaseURL(base+"/v1"),
		option.WithAPIKey("x"),
		option.WithMaxRetries(0),
	)
	return &c
}

// anthropicClient returns an anthropic-sdk-go client for the fake, without
// retries.
func anthropicClient(base string) *anthropic.Client {
	c := anthropic.NewClient(
		anthropicoption.WithBaseURL(base),
		anthropicoption.WithAPIKey("sk-ant-test"),
		anthropicoption.WithMaxRetries(0),
	)
	return &c
}

// scripted is the reply most tests script: reasoning, text with non-ASCII
// and HTML-ish characters, and two tool calls.
var scripted = Reply{
	Reasoning: "The user wants weather; call the tools.",
	Text:      "Let me check <both> cities — ünïcödé 👍.",
	ToolCalls: []ToolCall{
		{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris","unit":"c"}`},
		{ID: "call_2", Name: "get_time", Arguments: `{"tz":"Europe/Paris"}`},
	},
	FinishReason: "tool_calls",
}

// sseEvent is one raw SSE event.
type sseEvent struct {
	Event string
	Data  string
}

// readSSE reads raw SSE events from a response body until EOF or error.
func readSSE(t *testing.T, resp *http.Response) ([]sseEvent, error) {
	t.Helper()
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.Data != "" || cur.Event != "" {
				out = append(out, cur)
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.Event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.Data = strings.TrimPrefix(line, "data: ")
		default:
			t.Errorf("unexpected SSE line %q", line)
		}
	}
	return out, sc.Err()
}

// post sends a raw JSON POST to the fake.
func post(t *testing.T, url, body string, header map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}
