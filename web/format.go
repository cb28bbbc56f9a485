package web

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/metaclaw/metaclaw/store"
)

// Formatting helpers for the templates.

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "–"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

func fmtMS(ms float64) string {
	if ms <= 0 {
		return "–"
	}
	if ms < 1000 {
		return fmt.Sprintf("%.0f ms", ms)
	}
	return fmt.Sprintf("%.2f s", ms/1000)
}

func itoa(n int) string    { return strconv.Itoa(n) }
func i64(n int64) string   { return strconv.FormatInt(n, 10) }
func pct(v float64) string { return fmt.Sprintf("%.0f%%", v*100) }

// scoreText describes a judge score.
func scoreText(s *store.Score) string {
	if s == nil {
		return "not scored"
	}
	return fmt.Sprintf("%+d", s.Score)
}

// scoreClass is the CSS class of a score.
func scoreClass(s *store.Score) string {
	switch {
	case s == nil:
		return "score none"
	case s.Score > 0:
		return "score good"
	case s.Score < 0:
		return "score bad"
	}
	return "score neutral"
}

func votesText(s *store.Score) string {
	if s == nil {
		return ""
	}
	parts := make([]string, len(s.Votes))
	for i, v := range s.Votes {
		parts[i] = fmt.Sprintf("%+d", v)
	}
	out := strings.Join(parts, " ")
	if s.Failed > 0 {
		out += fmt.Sprintf(" (%d failed)", s.Failed)
	}
	return out
}

func sessionState(s store.Session) string {
	if s.EndedAt.IsZero() {
		return "open"
	}
	if s.EndReason != "" {
		return "ended (" + s.EndReason + ")"
	}
	return "ended"
}

func statusText(t store.Turn) string {
	if t.Error != "" {
		return fmt.Sprintf("%d — %s", t.Status, t.Error)
	}
	return strconv.Itoa(t.Status)
}

func statusClass(t store.Turn) string {
	if t.Status >= 400 || t.Error != "" {
		return "bad"
	}
	return "good"
}

func memoryState(m store.Memory) string {
	if m.Current() {
		return "current"
	}
	return m.EndReason
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

func secretPlaceholder(set bool) string {
	if set {
		return "set — leave empty to keep"
	}
	return "not set"
}

func joinKeys(keys []string) string { return strings.Join(keys, ", ") }

// cutText says what the proxy cut from a turn's request to fit the
// model's context.
func cutText(t store.Turn) string {
	return fmt.Sprintf("%d → %d messages, about %s → %s tokens: the oldest turns were not sent, to fit the model's context (max_context_tokens)",
		t.CutMessagesBefore, t.CutMessagesAfter, groupDigits(t.CutTokensBefore), groupDigits(t.CutTokensAfter))
}

// groupDigits writes n with thousands separators: 34120 → "34,120".
func groupDigits(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + groupDigits(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// failureLabel names a kind of upstream failure in words.
func failureLabel(kind string) string {
	switch kind {
	case "unreachable":
		return "unreachable"
	case "key_rejected":
		return "key rejected (401/403)"
	case "rate_limited":
		return "rate limited (429)"
	case "server_error":
		return "server error (5xx)"
	case "timeout":
		return "timed out"
	case "stream_cut":
		return "stream cut short"
	case "bad_answer":
		return "unreadable answer"
	case "no_key":
		return "no key to send"
	}
	return kind
}

// fmt2 formats a score to two decimals.
func fmt2(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
