package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
)

// modelCache decides which model a request goes out with
// (proxy.model_mapping) and remembers the models the upstream serves.
type modelCache struct {
	mapping    string // auto, always, never
	configured string // llm.model_id

	mu     sync.RWMutex // guards served
	served map[string]bool
}

func newModelCache(mapping, configured string) *modelCache {
	return &modelCache{mapping: mapping, configured: configured}
}

// resolve returns the model to send upstream for the model a client named.
func (m *modelCache) resolve(client string) string {
	if m.configured == "" || m.mapping == "never" && client != "" {
		return client
	}
	if m.mapping == "auto" && client != "" {
		m.mu.RLock()
		ok := m.served[client]
		m.mu.RUnlock()
		if ok {
			return client
		}
	}
	return m.configured
}

func (m *modelCache) set(ids []string) {
	served := make(map[string]bool, len(ids))
	for _, id := range ids {
		served[id] = true
	}
	m.mu.Lock()
	m.served = served
	m.mu.Unlock()
}

// refreshModels keeps the upstream's model list fresh (auto mapping only):
// at start, then every ten minutes, retrying sooner after a failure, and
// at once for a new upstream (SetConfig).
func (s *Server) refreshModels(ctx context.Context) {
	wait := time.Duration(0)
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		case <-s.modelsKick:
		}
		lv := s.cur()
		if lv.models.mapping != "auto" {
			wait = 10 * time.Minute
			continue
		}
		ids, err := s.fetchModels(ctx, lv)
		if err != nil {
			s.log.Debug("fetch upstream models", "err", err)
			wait = time.Minute
			continue
		}
		lv.models.set(ids)
		wait = 10 * time.Minute
	}
}

// fetchModels lists the primary upstream's models.
func (s *Server) fetchModels(ctx context.Context, lv *live) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	resp, err := lv.client.once(ctx, lv.primary, outRequest{method: http.MethodGet, path: "/models", header: http.Header{}}, false)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("upstream models: status %d", resp.StatusCode)
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 8<<20)).Decode(&list); err != nil {
		return nil, fmt.Errorf("upstream models: %w", err)
	}
	ids := make([]string, 0, len(list.Data))
	for _, d := range list.Data {
		ids = append(ids, d.ID)
	}
	return ids, nil
}

// handleModels relays the upstream's model list; when the upstream cannot
// answer, it lists the configured model in the client's API shape.
func (s *Server) handleModels(c *fiber.Ctx) error {
	resp, _, err := s.cur().client.do(c.UserContext(), s.cur().primary, outRequest{method: http.MethodGet, path: "/models",
		header: forwardHeaders(c), auth: callerAuth(c)}, s.conf().Proxy.ForwardClientAuth)
	if err == nil {
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			body, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
			if err == nil {
				copyResponseHeaders(c, resp.Header)
				return c.Status(http.StatusOK).Send(body)
			}
		}
	}
	return c.JSON(s.localModels(c.Get("anthropic-version") != ""))
}

func (s *Server) localModels(anthropicShape bool) any {
	id := s.conf().LLM.ModelID
	if anthropicShape {
		return fiber.Map{"data": []fiber.Map{{"id": id, "type": "model", "display_name": id,
			"created_at": "1970-01-01T00:00:00Z"}}, "has_more": false, "first_id": id, "last_id": id}
	}
	return fiber.Map{"object": "list", "data": []fiber.Map{{"id": id, "object": "model", "created": 0, "owned_by": "metaclaw"}}}
}
