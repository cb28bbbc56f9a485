package proxy

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/metaclaw/metaclaw/proxy/learning"
	"github.com/metaclaw/metaclaw/store"
)

// identifyRequest reads the turn's identity from the headers and body
// fields, strips those fields from the body, and derives a session id for
// a client that sends none.
func (s *Server) identifyRequest(c *fiber.Ctx, field func(string) json.RawMessage, del func(string), conv []learning.Message) (identity, error) {
	id, err := identify(func(h string) string { return strings.Clone(c.Get(h)) },
		func(f string) string { return bodyString(field(f)) }, s.conf().Memory.Scope, conv)
	if err != nil {
		return id, err
	}
	for _, f := range identityFields {
		del(f)
	}
	id.client = clientKey(credentialOf(c.Get(fiber.HeaderAuthorization), c.Get("X-Api-Key")), c.Get(fiber.HeaderUserAgent))
	if id.sessionID == "" {
		id.sessionID, id.derived = deriveSession(id.client, conv), true
	}
	return id, nil
}

// bodyString reads a body field as text: a JSON string unquoted, anything
// else (true, 1) as written.
func bodyString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if v := strings.TrimSpace(string(raw)); v != "null" {
		return v
	}
	return ""
}

// inject runs the injectors on a main turn and returns the text to place
// in the system prompt.
func (s *Server) inject(id identity, api string, conv []learning.Message) injected {
	if id.turnType != store.TurnMain || len(s.opts.Injectors) == 0 {
		return injected{}
	}
	budget := 0
	if s.conf().Skills.Enabled {
		budget += s.conf().Skills.MaxTokens
	}
	if s.conf().Memory.Enabled {
		budget += s.conf().Memory.MaxInjectedTokens
	}
	req := learning.InjectRequest{API: api, SessionID: id.sessionID, Scope: id.scope, Messages: conv}
	timeout := time.Duration(s.conf().Proxy.InjectTimeoutMS) * time.Millisecond
	return runInjectors(context.Background(), s.opts.Injectors, req, timeout, budget, func(name string, err error) {
		s.log.Warn("injector skipped", "injector", name, "err", err)
	})
}
