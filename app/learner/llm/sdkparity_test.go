package llm_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	anoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	oaoption "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/metaclaw/metaclaw/app/learner/llm"
)

// The official SDKs are the reference: for the same call, the client must
// send the body the SDK-based client it replaced sent.

func TestOpenAIBodyMatchesSDK(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		model string
		opts  llm.Options
	}{
		{"gpt-4o", llm.Options{Temperature: 0.3, MaxTokens: 50, JSON: true}},
		{"kimi-k2.5", llm.Options{MaxTokens: 1500}},
		{"openai/o4-mini", llm.Options{Temperature: 0.7, MaxTokens: 100, JSON: true}},
	} {
		s := serve(t, chatReply("x"))
		sdk := openai.NewClient(oaoption.WithBaseURL(s.srv.URL+"/v1"), oaoption.WithAPIKey("k"), oaoption.WithMaxRetries(0))
		p := openai.ChatCompletionNewParams{Model: tc.model,
			Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("sys"), openai.UserMessage("user")}}
		if llm.ReasoningModel(tc.model) {
			p.MaxCompletionTokens = openai.Int(int64(tc.opts.MaxTokens) * 4)
		} else {
			p.Temperature, p.MaxTokens = openai.Float(tc.opts.Temperature), openai.Int(int64(tc.opts.MaxTokens))
		}
		if tc.opts.JSON {
			p.ResponseFormat.OfJSONObject = &shared.ResponseFormatJSONObjectParam{}
		}
		res, err := sdk.Chat.Completions.New(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := llm.New(llm.Endpoint{BaseURL: s.srv.URL + "/v1", APIKey: "k", Model: tc.model}).
			Complete(context.Background(), "sys", "user", tc.opts)
		if err != nil || got != res.Choices[0].Message.Content {
			t.Errorf("%s: Complete = %q, %v; SDK read %q", tc.model, got, err, res.Choices[0].Message.Content)
		}
		reqs := s.requests()
		sameJSON(t, tc.model, reqs[1].Body, string(reqs[0].Body))
		if reqs[0].Path != reqs[1].Path {
			t.Errorf("%s: path %s, SDK %s", tc.model, reqs[1].Path, reqs[0].Path)
		}
	}
}

func TestAnthropicBodyMatchesSDK(t *testing.T) {
	t.Parallel()
	s := serve(t, reply(http.StatusOK, `{"id":"m","type":"message","role":"assistant","model":"c",
		"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"usage":{"input_tokens":1,"output_tokens":1}}`))
	sdk := anthropic.NewClient(anoption.WithoutEnvironmentDefaults(), anoption.WithBaseURL(s.srv.URL),
		anoption.WithAPIKey("k"), anoption.WithMaxRetries(0))
	res, err := sdk.Messages.New(context.Background(), anthropic.MessageNewParams{
		Model: "claude-x", MaxTokens: 64, System: []anthropic.TextBlockParam{{Text: "sys"}},
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("user"))}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := llm.New(llm.Endpoint{API: llm.APIAnthropic, BaseURL: s.srv.URL + "/v1", APIKey: "k", Model: "claude-x"}).
		Complete(context.Background(), "sys", "user", llm.Options{Temperature: 0.3, MaxTokens: 64, JSON: true})
	if err != nil || got != res.Content[0].Text+res.Content[1].Text {
		t.Errorf("Complete = %q, %v", got, err)
	}
	reqs := s.requests()
	sameJSON(t, "body", reqs[1].Body, string(reqs[0].Body))
	if reqs[0].Path != reqs[1].Path {
		t.Errorf("path %s, SDK %s", reqs[1].Path, reqs[0].Path)
	}
	// anthropic-sdk-go v2 pins its own API version (2026-10-21); MetaClaw,
	// like the proxy, sends the version every compatible provider knows.
	if v := reqs[1].Header.Get("Anthropic-Version"); v != llm.AnthropicVersion {
		t.Errorf("anthropic-version %q", v)
	}
}
