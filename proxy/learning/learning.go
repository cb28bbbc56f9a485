// Package learning holds the few types the proxy and the learning half
// share, so that neither converts the other's copies: the events the proxy
// publishes when it records a turn or a session ends, a conversation
// message reduced to its role and text, the Injector the proxy calls on
// main turns with its request and answer, and the HTTPError with which a
// learning API the proxy mounts (memory's) answers in the proxy's shape.
//
// It imports nothing of MetaClaw's. The proxy, app/learner and its
// subpackages (skills, memory, retrieval) and app import it.
package learning

import (
	"context"
	"fmt"
	"time"
)

// Kind names what an Event reports.
type Kind string

// Event kinds.
const (
	TurnRecorded Kind = "turn_recorded"
	SessionEnded Kind = "session_ended"
)

// Event tells the learning services that a turn was stored or a session
// ended.
type Event struct {
	Kind      Kind
	SessionID string
	TurnID    int64  // TurnRecorded
	TurnType  string // TurnRecorded: store.TurnMain or store.TurnSide ("" unknown)
	// Fresh (TurnRecorded) says the turn's request ends with the person's
	// own words, not with tool results: a turn of a tool loop adds nothing
	// new to learn from.
	Fresh  bool
	Reason string // SessionEnded: "done" (X-Session-Done) or "idle"
	At     time.Time
}

// Message is one conversation message reduced to its role and text.
type Message struct {
	Role string // system, user, assistant, tool
	Text string
}

// Injector supplies context for a main turn: skills, memories. The proxy
// calls every injector in order, on main turns only, with a deadline
// (proxy.inject_timeout_ms); a slow or failing injector is skipped and the
// turn goes out without its text.
type Injector interface {
	// Name identifies the injector in logs ("skills", "memory").
	Name() string
	Inject(ctx context.Context, req InjectRequest) (Injection, error)
}

// InjectRequest is the conversation of a turn as an injector sees it.
type InjectRequest struct {
	API       string // "openai" or "anthropic": the client's API
	SessionID string
	Scope     string    // memory scope
	Messages  []Message // the conversation, oldest first, system prompt included
}

// Injection is what an injector adds to the system prompt.
type Injection struct {
	Text string   // Markdown placed in the system prompt
	IDs  []string // ids of the injected items, recorded with the turn
}

// HTTPError is an answer a learning HTTP API (the memory API the proxy
// mounts) gives instead of a body: the proxy writes it in its error shape
// with Status, Code and Message.
type HTTPError struct {
	Status  int
	Code    string // e.g. "invalid_request", "not_found"
	Message string
}

func (e *HTTPError) Error() string { return e.Message }

// Errorf returns an HTTPError with a formatted message.
func Errorf(status int, code, format string, args ...any) *HTTPError {
	return &HTTPError{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}
