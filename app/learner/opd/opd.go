// Package opd is on-policy distillation for the RL trainer: a teacher
// model scores the tokens the policy sampled, and each sampled token's
// advantage is lowered by the KL penalty coef × (student log-prob −
// teacher log-prob), pulling the policy towards what the teacher would
// have said.
//
// The teacher is any OpenAI-compatible /v1/completions endpoint that
// accepts a prompt of token ids (vLLM, SGLang, the Tinker OpenAI endpoint)
// and echoes the prompt's log-probs (echo: true, logprobs: 1). Its
// tokenizer must be the policy's: the answer is checked token by token
// (one log-prob per token, and the token ids or texts it names must be
// the ones sent), and refused with the first mismatch otherwise.
//
// Align and Penalize are pure. The trainer (app/learner/trainer) imports
// this package; it imports only the standard library.
package opd

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Echo is the part of a completions answer the teacher is read from:
// choices[0].logprobs.
type Echo struct {
	Tokens        []string   `json:"tokens"`
	TokenLogprobs []*float64 `json:"token_logprobs"`
}

// ErrMisaligned is wrapped by Align's errors: the teacher's tokens are not
// the policy's (a different tokenizer, or a server that re-tokenised the
// prompt).
var ErrMisaligned = errors.New("teacher tokens do not align with the policy's")

// Align returns the teacher's log-prob of each token of seq given the
// tokens before it (NaN for the first token, which has none). echo must
// hold one entry per token of seq, plus at most one generated token after
// them (a server that wants max_tokens ≥ 1). Where the answer names the
// tokens, each must be the one sent: "token_id:N" forms are compared by
// id, other strings with tokenText(id) when tokenText is not nil and both
// texts are whole characters (a byte-level token that splits a character
// cannot be compared as text). The error names the first mismatch.
func Align(seq []int, echo Echo, tokenText func(int) string) ([]float64, error) {
	n := len(seq)
	if len(echo.TokenLogprobs) != n && len(echo.TokenLogprobs) != n+1 {
		return nil, fmt.Errorf("opd: teacher returned %d log-probs for %d tokens: %w", len(echo.TokenLogprobs), n, ErrMisaligned)
	}
	if len(echo.Tokens) > 0 && len(echo.Tokens) != len(echo.TokenLogprobs) {
		return nil, fmt.Errorf("opd: teacher returned %d tokens but %d log-probs: %w", len(echo.Tokens), len(echo.TokenLogprobs), ErrMisaligned)
	}
	out := make([]float64, n)
	for i, id := range seq {
		if i < len(echo.Tokens) {
			if err := sameToken(i, id, echo.Tokens[i], tokenText); err != nil {
				return nil, err
			}
		}
		lp := echo.TokenLogprobs[i]
		switch {
		case i == 0:
			out[i] = math.NaN()
		case lp == nil || math.IsNaN(*lp) || *lp > 0:
			return nil, fmt.Errorf("opd: teacher gave no usable log-prob for token %d (id %d)", i, id)
		default:
			out[i] = *lp
		}
	}
	return out, nil
}

// sameToken checks the teacher's token at position i against the id sent.
func sameToken(i, id int, got string, tokenText func(int) string) error {
	if rest, ok := strings.CutPrefix(got, "token_id:"); ok {
		if n, err := strconv.Atoi(rest); err == nil && n != id {
			return fmt.Errorf("opd: token %d: policy sent id %d, teacher read id %d: %w", i, id, n, ErrMisaligned)
		}
		return nil
	}
	if tokenText == nil {
		return nil
	}
	want := tokenText(id)
	if want == "" || !wholeChars(want) || !wholeChars(got) {
		return nil
	}
	if want != got {
		return fmt.Errorf("opd: token %d: policy token %d is %q, teacher token is %q: %w (does opd.teacher_model use rl.model's tokenizer?)",
			i, id, want, got, ErrMisaligned)
	}
	return nil
}

// wholeChars reports text made of whole characters.
func wholeChars(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, utf8.RuneError) && !strings.HasPrefix(s, "bytes:")
}

// Penalize returns the advantages of the sampled tokens after the KL
// penalty: adv[j] − coef × (student[j] − teacher[j]). student are the
// sampler's log-probs of the sampled tokens and teacher the teacher's, one
// per sampled token. Where the teacher finds a token likelier than the
// student did, the advantage rises; where less likely, it falls.
func Penalize(adv, student, teacher []float64, coef float64) ([]float64, error) {
	if len(student) != len(adv) || len(teacher) != len(adv) {
		return nil, fmt.Errorf("opd: %d advantages, %d student and %d teacher log-probs", len(adv), len(student), len(teacher))
	}
	if math.IsNaN(coef) || coef < 0 {
		return nil, fmt.Errorf("opd: kl penalty coefficient %v", coef)
	}
	out := make([]float64, len(adv))
	for j := range adv {
		if math.IsNaN(teacher[j]) || math.IsNaN(student[j]) {
			return nil, fmt.Errorf("opd: sampled token %d has no log-prob", j)
		}
		out[j] = adv[j] - coef*(student[j]-teacher[j])
	}
	return out, nil
}
