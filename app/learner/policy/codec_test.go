package policy_test

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestCodecDecodesLikeServing checks the trainer's view of sampled tokens:
// the end-of-turn token is cut, reasoning dropped, tool calls parsed into
// OpenAI tool calls.
func TestCodecDecodesLikeServing(t *testing.T) {
	e := newEnv(t, envOpts{})
	tok := fixtureTokenizer(t)
	if got := e.pol.StopTokens(); !slices.Contains(got, imEnd(t)) {
		t.Fatalf("StopTokens() = %v, want <|im_end|> (%d) among them", got, imEnd(t))
	}
	text, calls, err := e.pol.DecodeResponse(append(tok.Encode("<think>hmm</think>It is sunny."), imEnd(t)))
	if err != nil || text != "It is sunny." || calls != "" {
		t.Fatalf("DecodeResponse = %q, %q, %v", text, calls, err)
	}
	_, calls, err = e.pol.DecodeResponse(tok.Encode(`<tool_call>{"name":"get_weather","arguments":{"city":"Paris"}}</tool_call>`))
	if err != nil {
		t.Fatal(err)
	}
	var tc []struct {
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	if err := json.Unmarshal([]byte(calls), &tc); err != nil || len(tc) != 1 || tc[0].Function.Name != "get_weather" ||
		tc[0].Function.Arguments != `{"city":"Paris"}` {
		t.Fatalf("tool calls = %s (%v)", calls, err)
	}
	if got := e.pol.TokenText(imEnd(t)); got != "<|im_end|>" {
		t.Errorf("TokenText(<|im_end|>) = %q", got)
	}
}
