package proxy

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Kinds of upstream failure, as status displays count them.
const (
	FailUnreachable = "unreachable"  // no connection, or no answer at all
	FailKeyRejected = "key_rejected" // 401 or 403: the provider refused the key
	FailRateLimited = "rate_limited" // 429, after the retries
	FailServerError = "server_error" // 5xx, after the retries, or an error event in a stream
	FailTimeout     = "timeout"      // no first byte in time, or a stream silent too long
	FailStreamCut   = "stream_cut"   // a stream that ended before the answer was complete
	FailBadAnswer   = "bad_answer"   // an answer the proxy could not read
	FailNoKey       = "no_key"       // no llm.api_key and no caller credentials: not sent
)

// FailureKinds lists the kinds in the order status displays show them.
var FailureKinds = []string{FailUnreachable, FailKeyRejected, FailRateLimited, FailServerError, FailTimeout,
	FailStreamCut, FailBadAnswer, FailNoKey}

// KeyRejectedAfter is how many key rejections in a row, with no answer in
// between, make the proxy say the provider rejected the key.
const KeyRejectedAfter = 3

// UpstreamFailures counts the turns the upstream failed since the proxy
// started, by kind, with the last one's time and message.
type UpstreamFailures struct {
	Counts      map[string]int64 `json:"counts,omitempty"` // by kind; kinds that never happened are absent
	Total       int64            `json:"total"`
	Turns       int64            `json:"turns"` // turns answered or failed, for the ratio
	LastKind    string           `json:"last_kind,omitempty"`
	LastAt      time.Time        `json:"last_at,omitzero"`
	LastMessage string           `json:"last_message,omitempty"`
	// KeyRejections is how many turns in a row the provider refused the
	// key with; CallerKey says the key was the caller's own
	// (proxy.forward_client_auth), not llm.api_key.
	KeyRejections int  `json:"key_rejections,omitempty"`
	CallerKey     bool `json:"caller_key,omitempty"`
}

// KeyProblem says, once the provider refused the key KeyRejectedAfter times
// in a row, which key it rejected; "" otherwise.
func (f UpstreamFailures) KeyProblem() string {
	if f.KeyRejections < KeyRejectedAfter {
		return ""
	}
	key := "llm.api_key"
	if f.CallerKey {
		key = "the caller's own key (proxy.forward_client_auth)"
	}
	return "the provider rejected " + key + " " + itoa(f.KeyRejections) + " times in a row: " + f.LastMessage
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for ; n > 0; n /= 10 {
		i--
		b[i] = byte('0' + n%10)
	}
	return string(b[i:])
}

// failureLog keeps UpstreamFailures up to date.
type failureLog struct {
	mu sync.Mutex // guards f
	f  UpstreamFailures
}

// turn counts one finished turn: kind is "" for one the upstream answered
// (or the client gave up on), else the failure's kind.
func (l *failureLog) turn(kind, msg string, at time.Time, callerKey bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.f.Turns++
	if kind != FailKeyRejected {
		l.f.KeyRejections = 0
	} else {
		l.f.KeyRejections++
		l.f.CallerKey = callerKey
	}
	if kind == "" {
		return
	}
	if l.f.Counts == nil {
		l.f.Counts = map[string]int64{}
	}
	l.f.Counts[kind]++
	l.f.Total++
	l.f.LastKind, l.f.LastAt, l.f.LastMessage = kind, at, truncateText(providerMessage(msg), 300)
}

// providerMessage is the readable part of a recorded error: the message of
// a provider's JSON error body, or the text as it is.
func providerMessage(msg string) string {
	msg = strings.TrimSpace(strings.TrimPrefix(msg, "upstream: "))
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal([]byte(msg), &e) == nil {
		return firstNonEmpty(e.Error.Message, e.Message, msg)
	}
	return msg
}

func (l *failureLog) snapshot() UpstreamFailures {
	l.mu.Lock()
	defer l.mu.Unlock()
	f := l.f
	if f.Counts != nil {
		f.Counts = make(map[string]int64, len(l.f.Counts))
		for k, v := range l.f.Counts {
			f.Counts[k] = v
		}
	}
	return f
}

// UpstreamFailures returns the upstream's failures since the proxy started.
func (s *Server) UpstreamFailures() UpstreamFailures { return s.failures.snapshot() }

// failureOf is the kind of a finished turn's status as the upstream or the
// relay gave it; "" for an answer, a cancelled request or a client error.
func failureOf(status int, msg string) string {
	switch {
	case status < 400 || status == 499:
		return ""
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return FailKeyRejected
	case status == http.StatusTooManyRequests:
		return FailRateLimited
	case status == http.StatusGatewayTimeout:
		return FailTimeout
	case status >= 500:
		return FailServerError
	}
	return ""
}
