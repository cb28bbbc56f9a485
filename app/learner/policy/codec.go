package policy

import (
	"encoding/json"
	"errors"
	"slices"

	"github.com/metaclaw/metaclaw/app/learner/policy/toolparse"
)

// ErrNoTokenizer is returned by DecodeResponse before the tokenizer has
// been loaded.
var ErrNoTokenizer = errors.New("tokenizer not loaded yet")

// The trainer reads its extra group responses through the same tokenizer
// and tool-call format as serving (trainer.Codec), so the judge sees what
// the agent would have received.

// DecodeResponse decodes sampled tokens into the answer text (reasoning
// dropped, end-of-turn tokens cut) and its tool calls as a JSON array of
// OpenAI tool calls ("" when none).
func (s *Server) DecodeResponse(tokens []int) (string, string, error) {
	rt := s.rt.Load()
	if rt == nil {
		return "", "", ErrNoTokenizer
	}
	if i := slices.IndexFunc(tokens, func(t int) bool { return slices.Contains(rt.stopIDs, t) }); i >= 0 {
		tokens = tokens[:i]
	}
	res := toolparse.Parse(rt.tok.Decode(tokens), rt.format)
	if len(res.ToolCalls) == 0 {
		return res.Content, "", nil
	}
	b, err := json.Marshal(toolCalls(res.ToolCalls))
	if err != nil {
		return "", "", err
	}
	return res.Content, string(b), nil
}

// StopTokens are the model's end-of-turn tokens (nil before the tokenizer
// has been loaded).
func (s *Server) StopTokens() []int {
	if rt := s.rt.Load(); rt != nil {
		return slices.Clone(rt.stopIDs)
	}
	return nil
}

// TokenText is a token's text ("" when unknown or before the tokenizer
// has been loaded).
func (s *Server) TokenText(id int) string {
	rt := s.rt.Load()
	if rt == nil {
		return ""
	}
	return rt.tok.Decode([]int{id})
}
