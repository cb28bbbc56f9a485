package fakeupstream

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

func TestRequestsRecorded(t *testing.T) {
	s, base := startServer(t)
	if _, err := openaiClient(base).Chat.Completions.New(context.Background(), chatParams(false)); err != nil {
		t.Fatal(err)
	}
	if _, err := anthropicClient(base).Messages.New(context.Background(), messageParams()); err != nil {
		t.Fatal(err)
	}
	reqs := s.Requests()
	if len(reqs) != 2 {
		t.Fatalf("recorded %d requests", len(reqs))
	}
	oa, an := reqs[0], reqs[1]
	if oa.Method != "POST" || oa.Path != "/v1/chat/completions" || oa.Header.Get("Authorization") != "Bearer x" || oa.Time.IsZero() {
		t.Errorf("openai request: %s %s auth=%q", oa.Method, oa.Path, oa.Header.Get("Authorization"))
	}
	var body struct {
		Model    string            `json:"model"`
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(oa.Body, &body); err != nil || body.Model != "kimi-k2-test" || len(body.Messages) != 1 {
		t.Errorf("openai body %s (%v)", oa.Body, err)
	}
	// anthropic-sdk-go v2 sends WithAPIKey as "Authorization: Bearer …".
	if an.Path != "/v1/messages" || an.Header.Get("Authorization") != "Bearer sk-ant-test" || an.Header.Get("Anthropic-Version") == "" {
		t.Errorf("anthropic request: %s auth=%q version=%q", an.Path, an.Header.Get("Authorization"), an.Header.Get("Anthropic-Version"))
	}
	resp := post(t, base+"/v1/messages", `{"model":"c"}`, map[string]string{"x-api-key": "raw-key"})
	resp.Body.Close()
	if got := s.Requests()[2].Header.Get("X-Api-Key"); got != "raw-key" {
		t.Errorf("x-api-key recorded as %q", got)
	}
	if !strings.Contains(string(an.Body), `"max_tokens":1024`) {
		t.Errorf("anthropic body %s", an.Body)
	}

	s.SetRecording(false)
	post(t, base+"/v1/chat/completions", `{}`, nil)
	if n := len(s.Requests()); n != 3 {
		t.Errorf("recorded %d requests with recording off", n)
	}
}

func TestQueueOrderAndDefault(t *testing.T) {
	s, base := startServer(t)
	client := openaiClient(base)
	ask := func() string {
		t.Helper()
		got, err := client.Chat.Completions.New(context.Background(), chatParams(false))
		if err != nil {
			t.Fatal(err)
		}
		return got.Choices[0].Message.Content
	}
	if got := ask(); got != DefaultText {
		t.Errorf("default = %q", got)
	}
	s.SetDefault(TextReply("new default"))
	s.Enqueue(TextReply("one"))
	s.Enqueue(TextReply("two"))
	s.EnqueueFor("/v1/chat/completions", TextReply("path first"))
	for _, want := range []string{"path first", "one", "two", "new default", "new default"} {
		if got := ask(); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	s.Reset()
	if got := ask(); got != DefaultText || len(s.Requests()) != 1 {
		t.Errorf("after Reset: %q, %d requests", got, len(s.Requests()))
	}
}

func TestFailNext(t *testing.T) {
	s, base := startServer(t)
	s.FailNext(2, http.StatusBadGateway)
	client := openaiClient(base)
	for i := range 3 {
		_, err := client.Chat.Completions.New(context.Background(), chatParams(false))
		var apiErr *openai.Error
		if failed := errors.As(err, &apiErr) && apiErr.StatusCode == 502; failed != (i < 2) {
			t.Errorf("request %d: err %v", i, err)
		}
	}
}

func TestFuncReply(t *testing.T) {
	s, base := startServer(t)
	s.SetDefault(Reply{Func: func(r *http.Request, body []byte) Reply {
		var req struct {
			Model string `json:"model"`
		}
		_ = json.Unmarshal(body, &req)
		return Reply{Text: "echo " + req.Model + " " + r.URL.Path, Func: func(*http.Request, []byte) Reply { panic("nested Func called") }}
	}})
	got, err := openaiClient(base).Chat.Completions.New(context.Background(), chatParams(false))
	if err != nil {
		t.Fatal(err)
	}
	if c := got.Choices[0].Message.Content; c != "echo kimi-k2-test /v1/chat/completions" {
		t.Errorf("content = %q", c)
	}
}

func TestHangUntilClientGoesAway(t *testing.T) {
	s, base := startServer(t)
	s.Enqueue(Reply{Hang: true})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := openaiClient(base).Chat.Completions.New(ctx, chatParams(false))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want deadline exceeded", err)
	}
	// The server still answers other requests.
	if _, err := openaiClient(base).Chat.Completions.New(context.Background(), chatParams(false)); err != nil {
		t.Errorf("after hang: %v", err)
	}
}

func TestCloseReleasesHangInHTTPTest(t *testing.T) {
	s := New()
	ts := httptest.NewServer(s.Handler())
	s.Enqueue(Reply{Hang: true})
	errc := make(chan error, 1)
	go func() {
		_, err := openaiClient(ts.URL).Chat.Completions.New(context.Background(), chatParams(false))
		errc <- err
	}()
	for len(s.Requests()) == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	s.Close()
	ts.Close() // would block forever if the hanging handler were not released
	if err := <-errc; err == nil {
		t.Errorf("hung request succeeded")
	}
}

func TestModels(t *testing.T) {
	s, base := startServer(t)
	s.SetModels([]string{"m-1", "m-2"})

	page, err := openaiClient(base).Models.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Data) != 2 || page.Data[0].ID != "m-1" || page.Data[1].Object != "model" || page.Data[1].OwnedBy == "" {
		t.Errorf("openai models = %+v", page.Data)
	}
	m, err := openaiClient(base).Models.Get(context.Background(), "m-2")
	if err != nil || m.ID != "m-2" {
		t.Errorf("get m-2: %v %+v", err, m)
	}
	var apiErr *openai.Error
	if _, err := openaiClient(base).Models.Get(context.Background(), "nope"); !errors.As(err, &apiErr) || apiErr.StatusCode != 404 {
		t.Errorf("get nope: %v", err)
	}

	apage, err := anthropicClient(base).Models.List(context.Background(), anthropic.ModelListParams{})
	if err != nil {
		t.Fatal(err)
	}
	if len(apage.Data) != 2 || apage.Data[1].ID != "m-2" || apage.Data[0].DisplayName == "" || apage.Data[0].CreatedAt.IsZero() || apage.HasMore {
		t.Errorf("anthropic models = %+v", apage.Data)
	}
	if apage.FirstID != "m-1" || apage.LastID != "m-2" {
		t.Errorf("first/last = %q/%q", apage.FirstID, apage.LastID)
	}
}

func TestNotFound(t *testing.T) {
	_, base := startServer(t)
	resp := post(t, base+"/v1/responses", `{}`, nil)
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 404 || string(b) != `{"error":{"message":"Invalid URL (POST /v1/responses)","type":"invalid_request_error","param":null,"code":null}}` {
		t.Errorf("openai 404: %d %s", resp.StatusCode, b)
	}
	resp = post(t, base+"/v2/x", `{}`, map[string]string{"anthropic-version": "2023-06-01"})
	var body anErrorBody
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != 404 || body.Error.Type != "not_found_error" {
		t.Errorf("anthropic 404: %d %+v %v", resp.StatusCode, body, err)
	}
}

func TestConcurrentClients(t *testing.T) {
	s, base := startServer(t)
	s.SetDefault(Reply{Text: "concurrent answer", ToolCalls: scripted.ToolCalls})
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				s.Enqueue(TextReply("queued"))
			}
			stream := openaiClient(base).Chat.Completions.NewStreaming(context.Background(), chatParams(true))
			var acc openai.ChatCompletionAccumulator
			for stream.Next() {
				acc.AddChunk(stream.Current())
			}
			if stream.Err() != nil {
				t.Errorf("stream %d: %v", i, stream.Err())
			}
			msg, err := anthropicClient(base).Messages.New(context.Background(), messageParams())
			if err != nil || len(msg.Content) == 0 {
				t.Errorf("messages %d: %v", i, err)
			}
			_ = s.Requests()
		}()
	}
	wg.Wait()
	if n := len(s.Requests()); n != 32 {
		t.Errorf("recorded %d requests", n)
	}
}

func TestStartTwice(t *testing.T) {
	s, _ := startServer(t)
	if _, err := s.Start(); err == nil {
		t.Errorf("second Start succeeded")
	}
}

func TestFirstByteDelayAndClientTimeout(t *testing.T) {
	s, base := startServer(t)
	s.Enqueue(Reply{FirstByteDelay: time.Second})
	client := openai.NewClient(option.WithBaseURL(base+"/v1"), option.WithAPIKey("x"), option.WithMaxRetries(0),
		option.WithRequestTimeout(50*time.Millisecond))
	start := time.Now()
	if _, err := client.Chat.Completions.New(context.Background(), chatParams(false)); err == nil {
		t.Errorf("no timeout")
	}
	if el := time.Since(start); el > 900*time.Millisecond {
		t.Errorf("took %v", el)
	}
}
