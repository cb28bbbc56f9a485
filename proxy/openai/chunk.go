package openai

import (
	"encoding/json"
	"fmt"
)

// StreamChunk is one chunk of a Chat Completions stream as the proxy reads
// it: the members the accumulator and the Anthropic stream translator use.
type StreamChunk struct {
	ID                string          `json:"id"`
	Created           int64           `json:"created"`
	Model             string          `json:"model"`
	SystemFingerprint string          `json:"system_fingerprint"`
	Choices           []ChunkChoice   `json:"choices"`
	Usage             *Usage          `json:"usage"`
	Error             json.RawMessage `json:"error"`
}

// ParseStreamChunk decodes one trimmed "data:" payload other than [DONE]
// into a StreamChunk. Nothing in the result aliases data.
func ParseStreamChunk(data []byte) (StreamChunk, error) {
	var c StreamChunk
	if err := json.Unmarshal(data, &c); err != nil {
		return StreamChunk{}, fmt.Errorf("decode chunk: %w", err)
	}
	return c, nil
}
