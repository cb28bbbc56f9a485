package judge

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/metaclaw/metaclaw/app/learner/internal/jsonx"
)

// maxReason bounds a stored reason, in bytes.
const maxReason = 500

// Vote is one judge answer.
type Vote struct {
	Score  int // -1, 0 or 1
	Reason string
}

// ParseVote reads a judge answer: the first JSON object in text (bare, in a
// ```json fence or amid prose) with a "score" of -1, 0 or 1 (a number, or a
// string such as "+1") and an optional "reason". Anything else is an error.
func ParseVote(text string) (Vote, error) {
	raw, err := jsonx.FirstObject(text)
	if err != nil {
		return Vote{}, fmt.Errorf("judge answer: %w", err)
	}
	var ans struct {
		Score  any `json:"score"`
		Reason any `json:"reason"`
	}
	if err := json.Unmarshal(raw, &ans); err != nil {
		return Vote{}, fmt.Errorf("judge answer: %w", err)
	}
	score, err := scoreValue(ans.Score)
	if err != nil {
		return Vote{}, fmt.Errorf("judge answer: %w", err)
	}
	reason, _ := ans.Reason.(string)
	return Vote{Score: score, Reason: shorten(strings.TrimSpace(reason), maxReason)}, nil
}

func scoreValue(v any) (int, error) {
	var f float64
	switch x := v.(type) {
	case nil:
		return 0, fmt.Errorf("no score")
	case float64:
		f = x
	case string:
		n, err := strconv.ParseFloat(strings.TrimPrefix(strings.TrimSpace(x), "+"), 64)
		if err != nil {
			return 0, fmt.Errorf("score %q is not a number", x)
		}
		f = n
	default:
		return 0, fmt.Errorf("score is not a number")
	}
	if f != math.Trunc(f) || f < -1 || f > 1 {
		return 0, fmt.Errorf("score %v is not -1, 0 or 1", f)
	}
	return int(f), nil
}

// shorten cuts s to at most n bytes on a rune boundary, marking the cut.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
