package judge

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/metaclaw/metaclaw/app/learner/internal/jsonx"
	"github.com/metaclaw/metaclaw/app/learner/usage"
)

// maxReason bounds a stored reason, in bytes.
const maxReason = 500

// Vote is one judge answer.
type Vote struct {
	Score  int // -1, 0 or 1
	Reason string
}

// The answers judges give besides the JSON object the rubric asks for: the
// reference's "Score: 1" line (the last one counts, as a model may think
// aloud first) and \boxed{1}.
var (
	scoreLineRE = regexp.MustCompile(`(?i)\**\bscore\b\**\s*[:=]\s*\**\s*([+-]?\d+(?:\.\d+)?)`)
	boxedRE     = regexp.MustCompile(`\\boxed\{\s*([+-]?\d+(?:\.\d+)?)\s*\}`)
)

// ParseVote reads a judge answer. It accepts, in this order: the first
// JSON object in text (bare, in a ```json fence or amid prose) with a
// "score" of -1, 0 or 1 (a number, or a string such as "+1") and an
// optional "reason"; the last \boxed{N}; the last "Score: N" (any case,
// "=" too, Markdown bold allowed). Anything else is a *usage.AnswerError.
func ParseVote(text string) (Vote, error) {
	v, jsonErr := parseJSONVote(text)
	if jsonErr == nil {
		return v, nil
	}
	for _, re := range []*regexp.Regexp{boxedRE, scoreLineRE} {
		m := re.FindAllStringSubmatchIndex(text, -1)
		if len(m) == 0 {
			continue
		}
		last := m[len(m)-1]
		score, err := scoreValue(text[last[2]:last[3]])
		if err != nil {
			return Vote{}, answerError(err, text)
		}
		return Vote{Score: score, Reason: shorten(lastLine(text[:last[0]]), maxReason)}, nil
	}
	return Vote{}, answerError(jsonErr, text)
}

func answerError(err error, text string) error {
	return usage.NewAnswerError(fmt.Errorf("judge answer: %w", err), text)
}

func parseJSONVote(text string) (Vote, error) {
	raw, err := jsonx.FirstObject(text)
	if err != nil {
		return Vote{}, err
	}
	var ans struct {
		Score  any `json:"score"`
		Reason any `json:"reason"`
	}
	if err := json.Unmarshal(raw, &ans); err != nil {
		return Vote{}, err
	}
	score, err := scoreValue(ans.Score)
	if err != nil {
		return Vote{}, err
	}
	reason, _ := ans.Reason.(string)
	return Vote{Score: score, Reason: shorten(strings.TrimSpace(reason), maxReason)}, nil
}

// lastLine is the reason of a free-text answer: the last line of text
// before its score.
func lastLine(text string) string {
	text = strings.TrimSpace(text)
	if i := strings.LastIndexByte(text, '\n'); i >= 0 {
		text = text[i+1:]
	}
	return strings.TrimSpace(text)
}

func scoreValue(v any) (int, error) {
	var f float64
	switch x := v.(type) {
	case nil:
		return 0, errors.New("no score")
	case float64:
		f = x
	case string:
		x = strings.TrimSpace(x)
		n, err := strconv.ParseFloat(strings.TrimPrefix(strings.TrimSpace(x), "+"), 64)
		if err != nil {
			return 0, fmt.Errorf("score %q is not a number", x)
		}
		f = n
	default:
		return 0, errors.New("score is not a number")
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
