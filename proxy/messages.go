package proxy

import (
	"encoding/json"
	"net/http"

	"github.com/gofiber/fiber/v2"
	"github.com/metaclaw/metaclaw/proxy/anthropic"
	"github.com/metaclaw/metaclaw/proxy/learning"
)

// handleMessages serves POST /v1/messages (Anthropic). Against an
// Anthropic upstream the request passes natively; against an OpenAI-style
// upstream it is translated both ways, streaming included.
func (s *Server) handleMessages(c *fiber.Ctx) error {
	ts := &turnState{start: s.opts.Now(), api: apiAnthropic, policy: s.usePolicy(), lease: leaseOf(c)}
	req, err := anthropic.ParseMessagesRequest(c.Body())
	dropBody(c)
	if err != nil {
		return sendRequestError(c, err)
	}
	conv, err := anthropicConv(req)
	if err != nil {
		return sendRequestError(c, err)
	}
	ts.fresh = endsWithPerson(conv)
	if ts.id, err = s.identifyRequest(c, req.Field, req.DeleteField, conv); err != nil {
		return sendError(c, http.StatusBadRequest, "invalid_header", err.Error())
	}
	if inj := s.inject(ts.id, apiAnthropic, conv); inj.text != "" {
		if err := req.InjectSystem(inj.text); err != nil {
			return sendError(c, http.StatusBadRequest, "invalid_request", err.Error())
		}
		ts.injected = inj.ids
	}
	if err := s.truncateAnthropic(ts, req); err != nil {
		return sendError(c, http.StatusBadRequest, "invalid_request", err.Error())
	}
	clientModel := req.Model()
	ts.model, ts.stream = s.cur().models.resolve(clientModel), req.Stream()
	if s.cur().primary.api == apiAnthropic && !ts.policy {
		return s.messagesNative(c, ts, req)
	}
	return s.messagesTranslated(c, ts, req, clientModel)
}

func (s *Server) messagesNative(c *fiber.Ctx, ts *turnState, req *anthropic.MessagesRequest) error {
	req.SetModel(ts.model)
	var err error
	if ts.request, err = req.Marshal(); err != nil {
		return sendError(c, http.StatusBadRequest, "invalid_request", err.Error())
	}
	rebody := func(model string) []byte { req.SetModel(model); b, _ := req.Marshal(); return b }
	out := outRequest{method: http.MethodPost, path: "/messages", body: ts.request, header: anthropicHeaders(c), auth: callerAuth(c)}
	return s.forward(c, ts, out, rebody, flavor{
		path: "/messages", api: apiAnthropic,
		stream: func() streamConv { return &anthropicRelay{} },
		body: func(b []byte) ([]byte, func() response, error) {
			return b, func() response { return fromAnthropicBody(b) }, nil
		},
	})
}

// anthropicHeaders forwards the client's headers with an anthropic-version
// (2023-06-01 when the client sent none).
func anthropicHeaders(c *fiber.Ctx) http.Header {
	h := forwardHeaders(c)
	if h.Get("Anthropic-Version") == "" {
		h.Set("Anthropic-Version", "2023-06-01")
	}
	return h
}

func (s *Server) messagesTranslated(c *fiber.Ctx, ts *turnState, req *anthropic.MessagesRequest, clientModel string) error {
	var err error
	if ts.request, err = anthropic.ToOpenAI(req, ts.model); err != nil {
		return sendError(c, http.StatusBadRequest, "invalid_request", err.Error())
	}
	rebody := func(model string) []byte { b, _ := anthropic.ToOpenAI(req, model); return b }
	h := forwardHeaders(c)
	h.Del("Anthropic-Version")
	h.Del("Anthropic-Beta")
	out := outRequest{method: http.MethodPost, path: "/chat/completions", body: ts.request, header: h, auth: callerAuth(c)}
	respModel := firstNonEmpty(clientModel, ts.model)
	return s.forward(c, ts, out, rebody, flavor{
		path: "/chat/completions", api: apiOpenAI,
		stream: func() streamConv { return &anthropicFromOpenAI{tr: anthropic.NewStreamTranslator(respModel)} },
		body: func(b []byte) ([]byte, func() response, error) {
			out, err := anthropic.FromOpenAI(b, respModel)
			return out, func() response { return fromOpenAIBody(b) }, err
		},
		errBody: openAIErrorToAnthropic,
	})
}

// openAIErrorToAnthropic rewrites an OpenAI-style error body in
// Anthropic's shape, keeping its message.
func openAIErrorToAnthropic(status int, body []byte) []byte {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
		Message string `json:"message"`
	}
	msg := string(body)
	if json.Unmarshal(body, &e) == nil {
		msg = firstNonEmpty(e.Error.Message, e.Message, msg)
	}
	return anthropic.NewError(status, anthropic.ErrorTypeForStatus(status), truncateText(msg, 2000))
}

// anthropicConv reduces the conversation, system prompt first, for
// identity and injection: a user message of tool results only counts as a
// tool message. Its errors are those of decoding the system prompt and the
// messages, which it reads without decoding them when they would decode
// (see anthropic.MessagesRequest.Conversation).
func anthropicConv(req *anthropic.MessagesRequest) ([]learning.Message, error) {
	c, err := req.Conversation()
	if err != nil {
		return nil, err
	}
	conv := make([]learning.Message, 0, len(c.Messages)+1)
	if c.System != "" {
		conv = append(conv, learning.Message{Role: "system", Text: c.System})
	}
	for _, m := range c.Messages {
		role := m.Role
		if m.Role == "user" && m.ToolResultsOnly {
			role = "tool"
		}
		conv = append(conv, learning.Message{Role: role, Text: m.Text})
	}
	return conv, nil
}

// truncateAnthropic cuts the oldest turns of a Messages request that does
// not fit the prompt limit of the model serving it, decoding the messages
// only when they are over it (anthropicConv has made sure they decode),
// and notes the cut in ts.
func (s *Server) truncateAnthropic(ts *turnState, req *anthropic.MessagesRequest) error {
	maxTok, _ := req.MaxTokens()
	budget := s.promptLimit(ts, maxTok)
	if budget <= 0 || estimateTokens(req.Field("messages")) <= budget {
		return nil
	}
	msgs, err := req.Messages()
	if err != nil {
		return err
	}
	infos, drop, err := truncateAnthropicMessages(req, msgs, budget)
	if drop != nil {
		s.noteCut(ts, infos, drop, budget)
	}
	return err
}

// truncateAnthropicMessages drops what is over budget from msgs, the
// request's messages, and sets the rest; drop is nil when nothing goes.
func truncateAnthropicMessages(req *anthropic.MessagesRequest, msgs []anthropic.Message, budget int) ([]msgInfo, []bool, error) {
	infos := make([]msgInfo, len(msgs))
	for i, m := range msgs {
		infos[i] = msgInfo{user: m.Role == "user" && !m.Content.ToolResultsOnly(), tokens: anthropicTokens(m)}
	}
	drop := truncate(infos, budget)
	if drop == nil {
		return infos, nil, nil
	}
	return infos, drop, req.SetMessages(keep(msgs, drop))
}

// anthropicTokens estimates a message's tokens for truncation from the
// sizes of its blocks.
func anthropicTokens(m anthropic.Message) int {
	size := 16
	for _, b := range blocksOf(m.Content) {
		size += len(b.Text) + len(b.Input) + len(b.Thinking) + 16
		if b.Content != nil {
			size += len(b.Content.Join("\n"))
		}
	}
	return size/4 + 1
}

// blocksOf returns block content's blocks, and other content as one text
// block.
func blocksOf(c anthropic.Content) []anthropic.Block {
	if c.Kind == anthropic.ContentBlocks {
		return c.Blocks
	}
	return []anthropic.Block{{Type: "text", Text: c.Text}}
}
