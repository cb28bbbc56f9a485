package proxy

import (
	"fmt"

	"github.com/metaclaw/metaclaw/proxy/anthropic"
	"github.com/metaclaw/metaclaw/proxy/learning"
	"github.com/metaclaw/metaclaw/proxy/openai"
)

// Conversation reduces a request body of api ("openai": a chat
// completions request, "anthropic": a messages request) to the
// conversation the injectors see, by the same parsing and reduction the
// handlers use. Evaluations feed recorded agent requests through it, so
// that they measure retrieval on what a turn really gives it.
func Conversation(api string, body []byte) ([]learning.Message, error) {
	switch api {
	case apiOpenAI:
		req, err := openai.ParseChatRequest(body)
		if err != nil {
			return nil, err
		}
		texts, err := req.Conversation()
		if err != nil {
			return nil, err
		}
		return openaiConv(texts), nil
	case apiAnthropic:
		req, err := anthropic.ParseMessagesRequest(body)
		if err != nil {
			return nil, err
		}
		return anthropicConv(req)
	}
	return nil, fmt.Errorf("conversation: unknown API %q", api)
}
