package fakeupstream

import (
	"net/http"
	"slices"
)

// modelCreated is the creation time reported for every model (Unix seconds
// and RFC 3339).
const (
	modelCreated   = 1700000000
	modelCreatedAt = "2023-11-14T22:13:20Z"
)

// oaModel mirrors OpenAI's model object.
type oaModel struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

// anModel mirrors Anthropic's model object.
type anModel struct {
	Type           string `json:"type"`
	ID             string `json:"id"`
	DisplayName    string `json:"display_name"`
	CreatedAt      string `json:"created_at"`
	MaxInputTokens int    `json:"max_input_tokens"`
	MaxTokens      int    `json:"max_tokens"`
}

type oaModelList struct {
	Object string    `json:"object"`
	Data   []oaModel `json:"data"`
}

type anModelList struct {
	Data    []anModel `json:"data"`
	HasMore bool      `json:"has_more"`
	FirstID *string   `json:"first_id"`
	LastID  *string   `json:"last_id"`
}

// auxReply takes the reply queued for an auxiliary endpoint's path, if any,
// and applies its Hang, FirstByteDelay and error Status. It reports whether
// the handler should go on; c is nil when nothing was queued.
func (s *Server) auxReply(w http.ResponseWriter, r *http.Request, body []byte) (c *compiled, ok bool) {
	c = s.nextReply(r, body, false)
	if c == nil {
		return nil, true
	}
	if !s.prelude(r, c) {
		return nil, false
	}
	if c.isError() {
		s.replyError(w, c, isAnthropic(r))
		return nil, false
	}
	return c, true
}

// modelList returns a copy of the configured model ids.
func (s *Server) modelList() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.models)
}

// handleModels serves GET /v1/models in OpenAI's shape, or Anthropic's when
// the request has an anthropic-version header.
func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	c, ok := s.auxReply(w, r, nil)
	if !ok {
		return
	}
	ids := s.modelList()
	if isAnthropic(r) {
		list := anModelList{Data: []anModel{}}
		for _, id := range ids {
			list.Data = append(list.Data, anthropicModel(id))
		}
		if len(ids) > 0 {
			list.FirstID, list.LastID = &ids[0], &ids[len(ids)-1]
		}
		s.writeBody(w, r, c, nil, marshal(list))
		return
	}
	list := oaModelList{Object: "list", Data: []oaModel{}}
	for _, id := range ids {
		list.Data = append(list.Data, openaiModel(id))
	}
	s.writeBody(w, r, c, nil, marshal(list))
}

// handleModel serves GET /v1/models/{id}.
func (s *Server) handleModel(w http.ResponseWriter, r *http.Request, id string) {
	c, ok := s.auxReply(w, r, nil)
	if !ok {
		return
	}
	known := slices.Contains(s.modelList(), id)
	switch {
	case isAnthropic(r) && known:
		s.writeBody(w, r, c, nil, marshal(anthropicModel(id)))
	case isAnthropic(r):
		s.anthropicError(w, http.StatusNotFound, "model: "+id, "", "")
	case known:
		s.writeBody(w, r, c, nil, marshal(openaiModel(id)))
	default:
		s.openaiError(w, http.StatusNotFound, "The model '"+id+"' does not exist", "", "")
	}
}

// openaiModel returns the OpenAI model object for id.
func openaiModel(id string) oaModel {
	return oaModel{ID: id, Object: "model", Created: modelCreated, OwnedBy: "system"}
}

// anthropicModel returns the Anthropic model object for id.
func anthropicModel(id string) anModel {
	return anModel{Type: "model", ID: id, DisplayName: id, CreatedAt: modelCreatedAt, MaxInputTokens: 200000, MaxTokens: 64000}
}
