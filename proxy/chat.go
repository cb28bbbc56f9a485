package proxy

import (
	"errors"
	"net/http"

	"github.com/gofiber/fiber/v2"
	"github.com/metaclaw/metaclaw/proxy/learning"
	"github.com/metaclaw/metaclaw/proxy/openai"
)

// handleChat serves POST /v1/chat/completions.
func (s *Server) handleChat(c *fiber.Ctx) error {
	ts := &turnState{start: s.opts.Now(), api: apiOpenAI, policy: s.usePolicy(), lease: leaseOf(c)}
	req, err := openai.ParseChatRequest(c.Body())
	dropBody(c)
	if err != nil {
		return sendRequestError(c, err)
	}
	texts, err := req.Conversation()
	if err != nil {
		return sendRequestError(c, err)
	}
	conv := openaiConv(texts)
	ts.fresh = endsWithPerson(conv)
	if ts.id, err = s.identifyRequest(c, req.Field, req.DeleteField, conv); err != nil {
		return sendError(c, http.StatusBadRequest, "invalid_header", err.Error())
	}
	if inj := s.inject(ts.id, apiOpenAI, conv); inj.text != "" {
		if err := req.InjectSystem(inj.text); err != nil {
			return sendError(c, http.StatusBadRequest, "invalid_messages", err.Error())
		}
		ts.injected = inj.ids
	}
	if err := s.truncateOpenAI(ts, req); err != nil {
		return sendError(c, http.StatusBadRequest, "invalid_messages", err.Error())
	}
	ts.model = s.cur().models.resolve(req.Model())
	req.SetModel(ts.model)
	ts.stream = req.Stream()
	if ts.request, err = req.Marshal(); err != nil {
		return sendError(c, http.StatusBadRequest, "invalid_request", err.Error())
	}
	rebody := func(model string) []byte { req.SetModel(model); b, _ := req.Marshal(); return b }
	out := outRequest{method: http.MethodPost, path: "/chat/completions", body: ts.request, header: forwardHeaders(c), auth: callerAuth(c)}
	return s.forward(c, ts, out, rebody, flavor{
		path: "/chat/completions", api: apiOpenAI,
		stream: func() streamConv { return &openaiRelay{} },
		body: func(b []byte) ([]byte, func() response, error) {
			return b, func() response { return fromOpenAIBody(b) }, nil
		},
	})
}

// sendRequestError answers a request the parser refused, in its API's
// shape.
func sendRequestError(c *fiber.Ctx, err error) error {
	var oe *openai.RequestError
	if errors.As(err, &oe) {
		return sendError(c, oe.Status, oe.Code, oe.Message)
	}
	var ae interface{ Body() []byte }
	if errors.As(err, &ae) {
		c.Status(http.StatusBadRequest)
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
		return c.Send(ae.Body())
	}
	return sendError(c, http.StatusBadRequest, "invalid_request", err.Error())
}

func openaiConv(msgs []openai.RoleText) []learning.Message {
	conv := make([]learning.Message, len(msgs))
	for i, m := range msgs {
		conv[i] = learning.Message{Role: m.Role, Text: m.Text}
	}
	return conv
}

// truncateOpenAI cuts the oldest turns of a chat request that does not fit
// the prompt limit of the model serving it (see promptLimit), decoding the
// messages only when they are over it, and notes the cut in ts.
func (s *Server) truncateOpenAI(ts *turnState, req *openai.ChatRequest) error {
	maxTok, _ := req.MaxTokens()
	budget := s.promptLimit(ts, maxTok)
	if budget <= 0 || estimateTokens(req.Field("messages")) <= budget {
		return nil
	}
	msgs, err := req.Messages()
	if err != nil {
		return err
	}
	infos := make([]msgInfo, len(msgs))
	for i, m := range msgs {
		size := len(m.Content.String()) + 16
		for _, tc := range m.ToolCalls {
			size += len(tc.Function.Name) + len(tc.Function.Arguments) + 16
		}
		infos[i] = msgInfo{system: m.Role == "system" || m.Role == "developer", user: m.Role == "user", tokens: size/4 + 1}
	}
	drop := truncate(infos, budget)
	if drop == nil {
		return nil
	}
	s.noteCut(ts, infos, drop, budget)
	return req.SetMessages(keep(msgs, drop))
}
