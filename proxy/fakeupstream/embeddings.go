package fakeupstream

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"hash/fnv"
	"math"
	"net/http"
	"strconv"
	"strings"
	"unicode"
)

// fallbackEmbeddingModel is echoed when an embeddings request names no model.
const fallbackEmbeddingModel = "text-embedding-3-small"

// embeddingRequest holds the fields of an embeddings request.
type embeddingRequest struct {
	Input          json.RawMessage `json:"input"`
	Model          string          `json:"model"`
	EncodingFormat string          `json:"encoding_format"`
	Dimensions     int             `json:"dimensions"`
}

// oaEmbedding mirrors OpenAI's embedding object; Embedding is a []float32
// or, for encoding_format "base64", a string.
type oaEmbedding struct {
	Object    string `json:"object"`
	Index     int    `json:"index"`
	Embedding any    `json:"embedding"`
}

type oaEmbeddingList struct {
	Object string          `json:"object"`
	Data   []oaEmbedding   `json:"data"`
	Model  string          `json:"model"`
	Usage  oaEmbeddingUsed `json:"usage"`
}

type oaEmbeddingUsed struct {
	PromptTokens int `json:"prompt_tokens"`
	TotalTokens  int `json:"total_tokens"`
}

// badInputMessage is OpenAI's message for an input of an unsupported shape.
const badInputMessage = "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference."

// handleEmbeddings serves POST /v1/embeddings.
func (s *Server) handleEmbeddings(w http.ResponseWriter, r *http.Request, body []byte) {
	var req embeddingRequest
	if err := json.Unmarshal(body, &req); err != nil {
		s.openaiError(w, http.StatusBadRequest, openaiBadJSON, "", "")
		return
	}
	inputs, ok := embeddingInputs(req.Input)
	if !ok {
		s.openaiError(w, http.StatusBadRequest, badInputMessage, "invalid_request_error", "")
		return
	}
	c, ok := s.auxReply(w, r, body)
	if !ok {
		return
	}
	dim := req.Dimensions
	if dim <= 0 {
		s.mu.Lock()
		dim = s.dim
		s.mu.Unlock()
	}
	list := oaEmbeddingList{Object: "list", Data: make([]oaEmbedding, len(inputs)), Model: or(req.Model, fallbackEmbeddingModel)}
	for i, in := range inputs {
		vec := Embed(in, dim)
		var enc any = vec
		if req.EncodingFormat == "base64" {
			enc = encodeFloats(vec)
		}
		list.Data[i] = oaEmbedding{Object: "embedding", Index: i, Embedding: enc}
		list.Usage.PromptTokens += max(1, len(words(in)))
	}
	list.Usage.TotalTokens = list.Usage.PromptTokens
	s.writeBody(w, r, c, nil, marshal(list))
}

// embeddingInputs decodes the input of an embeddings request: a string, an
// array of strings, an array of token ids or an array of such arrays (token
// ids are embedded as their decimal text).
func embeddingInputs(raw json.RawMessage) ([]string, bool) {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, true
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil && len(many) > 0 {
		return many, true
	}
	var tokens []int
	if json.Unmarshal(raw, &tokens) == nil && len(tokens) > 0 {
		return []string{joinInts(tokens)}, true
	}
	var batches [][]int
	if json.Unmarshal(raw, &batches) == nil && len(batches) > 0 {
		out := make([]string, len(batches))
		for i, b := range batches {
			out[i] = joinInts(b)
		}
		return out, true
	}
	return nil, false
}

// joinInts renders token ids as space-separated words.
func joinInts(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, " ")
}

// Embed returns the fake embedding of text with dim dimensions (dim > 0): a
// hashed bag of lower-cased words, L2-normalised. It is deterministic, and
// texts sharing words have a positive cosine similarity. The embedding of a
// text without words is the first unit vector.
func Embed(text string, dim int) []float32 {
	acc := make([]float64, dim)
	for _, w := range words(text) {
		h := fnv.New64a()
		h.Write([]byte(w))
		sum := h.Sum64()
		sign := 1.0
		if sum>>63 == 1 {
			sign = -1
		}
		acc[sum%uint64(dim)] += sign
		acc[(sum>>32)%uint64(dim)] += sign / 2
	}
	var norm float64
	for _, v := range acc {
		norm += v * v
	}
	out := make([]float32, dim)
	if norm == 0 {
		out[0] = 1
		return out
	}
	norm = math.Sqrt(norm)
	for i, v := range acc {
		out[i] = float32(v / norm)
	}
	return out
}

// words splits text into lower-cased runs of letters and digits.
func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	})
}

// encodeFloats renders vec as base64 of little-endian float32s, as OpenAI
// does for encoding_format "base64".
func encodeFloats(vec []float32) string {
	b := make([]byte, 4*len(vec))
	for i, v := range vec {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return base64.StdEncoding.EncodeToString(b)
}
