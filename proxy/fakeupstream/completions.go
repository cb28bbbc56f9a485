package fakeupstream

import (
	"encoding/json"
	"hash/fnv"
	"math"
	"net/http"
	"sort"
	"strconv"
	"time"
	"unicode"
	"unicode/utf8"
)

// completionRequest holds the fields of a legacy completions request.
type completionRequest struct {
	Model     string          `json:"model"`
	Prompt    json.RawMessage `json:"prompt"`
	Echo      bool            `json:"echo"`
	Logprobs  *int            `json:"logprobs"`
	MaxTokens *int            `json:"max_tokens"`
	Stream    bool            `json:"stream"`
}

// oaCompletion mirrors OpenAI's text_completion object.
type oaCompletion struct {
	ID      string               `json:"id"`
	Object  string               `json:"object"`
	Created int64                `json:"created"`
	Model   string               `json:"model"`
	Choices []oaCompletionChoice `json:"choices"`
	Usage   oaCompletionUsage    `json:"usage"`
}

type oaCompletionChoice struct {
	Text         string      `json:"text"`
	Index        int         `json:"index"`
	Logprobs     *oaLogprobs `json:"logprobs"`
	FinishReason string      `json:"finish_reason"`
}

type oaLogprobs struct {
	Tokens        []string          `json:"tokens"`
	TokenLogprobs []*float64        `json:"token_logprobs"`
	TopLogprobs   []json.RawMessage `json:"top_logprobs"`
	TextOffset    []int             `json:"text_offset"`
}

type oaCompletionUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// alternatives are the candidate tokens listed in top_logprobs.
var alternatives = []string{" the", ",", " a", ".", " and", " of", " to", " in", "\n", " is"}

// handleCompletions serves POST /v1/completions (non-streaming only). The
// generated text is the Text of a reply queued with EnqueueFor for
// "/v1/completions", else the default reply's Text, cut to max_tokens
// tokens (default 16).
func (s *Server) handleCompletions(w http.ResponseWriter, r *http.Request, body []byte) {
	var req completionRequest
	if err := json.Unmarshal(body, &req); err != nil {
		s.openaiError(w, http.StatusBadRequest, openaiBadJSON, "", "")
		return
	}
	prompts, ok := completionPrompts(req.Prompt)
	if !ok || req.Stream {
		msg := "fakeupstream: prompt must be a string or an array of strings; streaming is not supported"
		s.openaiError(w, http.StatusBadRequest, msg, "invalid_request_error", "")
		return
	}
	c, ok := s.auxReply(w, r, body)
	if !ok {
		return
	}
	text := s.defaultText()
	if c != nil {
		text = c.Text
	}
	maxTokens := 16
	if req.MaxTokens != nil {
		maxTokens = *req.MaxTokens
	}
	out := oaCompletion{ID: s.nextID("cmpl-"), Object: "text_completion", Created: time.Now().Unix(), Model: or(req.Model, fallbackModel)}
	for i, p := range prompts {
		choice, usage := completeOne(p, text, maxTokens, req)
		choice.Index = i
		out.Choices = append(out.Choices, choice)
		out.Usage.PromptTokens += usage.PromptTokens
		out.Usage.CompletionTokens += usage.CompletionTokens
	}
	out.Usage.TotalTokens = out.Usage.PromptTokens + out.Usage.CompletionTokens
	s.writeBody(w, r, c, nil, marshal(out))
}

// defaultText returns the default reply's text.
func (s *Server) defaultText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.def.Text
}

// completionPrompts decodes a prompt given as a string or array of strings.
func completionPrompts(raw json.RawMessage) ([]string, bool) {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, true
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil && len(many) > 0 {
		return many, true
	}
	return nil, false
}

// completeOne builds the choice for one prompt.
func completeOne(prompt, text string, maxTokens int, req completionRequest) (oaCompletionChoice, oaCompletionUsage) {
	promptToks := Tokenize(prompt)
	gen := Tokenize(text)
	finish := "stop"
	if maxTokens < len(gen) || maxTokens == 0 {
		gen = gen[:max(0, maxTokens)]
		finish = "length"
	}
	generated := joinTokens(gen)
	choice := oaCompletionChoice{Text: generated, FinishReason: finish}
	toks, offset := gen, len(prompt)
	if req.Echo {
		choice.Text = prompt + generated
		toks, offset = append(append([]string(nil), promptToks...), gen...), 0
	}
	if req.Logprobs != nil {
		choice.Logprobs = logprobsFor(toks, offset, *req.Logprobs, req.Echo)
	}
	return choice, oaCompletionUsage{PromptTokens: len(promptToks), CompletionTokens: len(gen)}
}

// logprobsFor returns the logprobs of toks, whose text starts at offset.
// With echo, the first token has no logprob (null), as in OpenAI.
func logprobsFor(toks []string, offset, top int, echo bool) *oaLogprobs {
	lp := &oaLogprobs{
		Tokens:        toks,
		TokenLogprobs: make([]*float64, len(toks)),
		TopLogprobs:   make([]json.RawMessage, len(toks)),
		TextOffset:    make([]int, len(toks)),
	}
	prev := ""
	for i, t := range toks {
		lp.TextOffset[i] = offset
		offset += len(t)
		if i == 0 && echo {
			lp.TopLogprobs[i] = jsonNull
			prev = t
			continue
		}
		v := TokenLogprob(prev, t)
		lp.TokenLogprobs[i] = &v
		lp.TopLogprobs[i] = topLogprobs(t, v, top)
		prev = t
	}
	return lp
}

// TokenLogprob is the deterministic fake log-probability of token following
// prev, in [-9.04, -0.05] with two decimals.
func TokenLogprob(prev, token string) float64 {
	h := fnv.New64a()
	h.Write([]byte(prev))
	h.Write([]byte{0})
	h.Write([]byte(token))
	return -float64(5+h.Sum64()%900) / 100
}

// topLogprobs renders the top_logprobs object of one position: n
// alternatives sharing the probability mass left by the token, plus the
// token itself, ordered from most to least likely.
func topLogprobs(token string, lp float64, n int) json.RawMessage {
	type entry struct {
		tok string
		lp  float64
	}
	entries := []entry{{token, lp}}
	rest := 1 - math.Exp(lp)
	for _, alt := range alternatives {
		if len(entries) > n {
			break
		}
		if alt != token {
			entries = append(entries, entry{alt, math.Log(rest * math.Pow(2, -float64(len(entries))))})
		}
	}
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].lp > entries[j].lp })
	b := []byte{'{'}
	for i, e := range entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, e.tok)
		b = append(b, ':')
		b = strconv.AppendFloat(b, e.lp, 'f', -1, 64)
	}
	return append(b, '}')
}

// Tokenize splits text into fake tokens: each token is a run of whitespace
// followed by a run of non-whitespace (so " world" is one token), and the
// tokens concatenate back to text.
func Tokenize(text string) []string {
	var toks []string
	for len(text) > 0 {
		i := 0
		for i < len(text) {
			r, size := utf8.DecodeRuneInString(text[i:])
			if !unicode.IsSpace(r) {
				break
			}
			i += size
		}
		for i < len(text) {
			r, size := utf8.DecodeRuneInString(text[i:])
			if unicode.IsSpace(r) {
				break
			}
			i += size
		}
		toks = append(toks, text[:i])
		text = text[i:]
	}
	return toks
}

// joinTokens concatenates tokens.
func joinTokens(toks []string) string {
	n := 0
	for _, t := range toks {
		n += len(t)
	}
	b := make([]byte, 0, n)
	for _, t := range toks {
		b = append(b, t...)
	}
	return string(b)
}

// handleCountTokens serves POST /v1/messages/count_tokens with a rough
// estimate (a token per 4 bytes of body).
func (s *Server) handleCountTokens(w http.ResponseWriter, r *http.Request, body []byte) {
	if !json.Valid(body) {
		s.anthropicError(w, http.StatusBadRequest, anthropicBadJSON, "", "")
		return
	}
	c, ok := s.auxReply(w, r, body)
	if !ok {
		return
	}
	b := append([]byte(`{"input_tokens":`), strconv.Itoa(max(1, len(body)/4))...)
	s.writeBody(w, r, c, nil, append(b, '}'))
}
