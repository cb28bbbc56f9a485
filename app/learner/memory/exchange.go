package memory

import (
	"strings"
	"time"

	"github.com/metaclaw/metaclaw/app/learner/internal/transcript"
	"github.com/metaclaw/metaclaw/app/learner/redact"
	"github.com/metaclaw/metaclaw/app/learner/retrieval"
	"github.com/metaclaw/metaclaw/store"
)

// Exchange is one main turn reduced to what extraction may read: the
// user's new words and the assistant's answer. System prompts — where the
// proxy puts injected skills and memories — and tool results are never
// part of it.
type Exchange struct {
	TurnID    int64 // 0 for exchanges given directly (ingest)
	At        time.Time
	User      string
	Assistant string
}

// Limits on what one extraction request carries, in bytes.
const (
	maxUserText      = 2000 // retrieval.MaxQueryLen
	maxAssistantText = 1500
	maxExcerpt       = 24000
)

// ExchangeOf reads a recorded turn: the user messages after the last
// assistant message of its request (the words the user added this turn),
// without agent boilerplate (OpenClaw's date prefix, runtime line and
// internal context, Claude Code's reminders), and the turn's response text.
// Both are redacted of secrets. A request that cannot be read gives an
// exchange with the answer only.
func ExchangeOf(t store.Turn) Exchange {
	return exchangeFrom(t, transcript.DigestOf(t.Request))
}

// exchangeFrom is ExchangeOf with the turn's request read already (d).
func exchangeFrom(t store.Turn, d transcript.Digest) Exchange {
	ex := Exchange{TurnID: t.ID, At: t.CreatedAt, Assistant: cleanAssistant(t.ResponseText)}
	if !d.Read {
		return ex
	}
	var users []string
	for _, text := range d.NewUser {
		if text = cleanUser(text); text != "" {
			users = append(users, text)
		}
	}
	ex.User = redact.Redact(strings.Join(users, "\n"))
	return ex
}

// cleanUser is what the person wrote in one message, without agent
// wrappers (retrieval.Clean), cut to maxUserText.
func cleanUser(s string) string {
	s = retrieval.Clean(s)
	if len(s) > maxUserText {
		s = transcript.Trim(s, maxUserText)
	}
	return s
}

func cleanAssistant(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > maxAssistantText {
		s = transcript.Trim(s, maxAssistantText)
	}
	return redact.Redact(s)
}

// CleanExchanges prepares exchanges given directly (ingest): boilerplate
// removed, long text cut, secrets redacted.
func CleanExchanges(in []Exchange) []Exchange {
	out := make([]Exchange, 0, len(in))
	for _, ex := range in {
		ex.User = redact.Redact(cleanUser(ex.User))
		ex.Assistant = cleanAssistant(ex.Assistant)
		if ex.User != "" || ex.Assistant != "" {
			out = append(out, ex)
		}
	}
	return out
}

// chunks splits exchanges into runs of at most maxExcerpt bytes, so that a
// long session becomes several extraction requests.
func chunks(exs []Exchange) [][]Exchange {
	var out [][]Exchange
	var cur []Exchange
	size := 0
	for _, ex := range exs {
		n := len(ex.User) + len(ex.Assistant) + 64
		if size+n > maxExcerpt && len(cur) > 0 {
			out, cur, size = append(out, cur), nil, 0
		}
		cur = append(cur, ex)
		size += n
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// saidAnything reports whether the user said anything in exchanges.
func saidAnything(exs []Exchange) bool {
	for _, ex := range exs {
		if strings.TrimSpace(ex.User) != "" {
			return true
		}
	}
	return false
}

func turnIDs(exs []Exchange) []int64 {
	var ids []int64
	for _, ex := range exs {
		if ex.TurnID != 0 {
			ids = append(ids, ex.TurnID)
		}
	}
	return ids
}

// saidAt is when exchanges were said: the latest one's time (zero for
// exchanges given directly, which are said now).
func saidAt(exs []Exchange) time.Time {
	var at time.Time
	for _, ex := range exs {
		if ex.At.After(at) {
			at = ex.At
		}
	}
	return at
}
