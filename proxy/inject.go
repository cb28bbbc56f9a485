package proxy

import (
	"context"
	"strings"
	"time"
)

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
	Scope     string        // memory scope
	Messages  []ConvMessage // the conversation, oldest first, system prompt included
}

// ConvMessage is one message reduced to its role and text.
type ConvMessage struct {
	Role string // system, user, assistant, tool
	Text string
}

// Injection is what an injector adds to the system prompt.
type Injection struct {
	Text string   // Markdown placed in the system prompt
	IDs  []string // ids of the injected items, recorded with the turn
}

// injected is the combined result of every injector for one turn.
type injected struct {
	text string
	ids  []string
}

// runInjectors calls each injector with the deadline and joins their text,
// cut to budget tokens (estimated at four characters a token) at a line
// boundary.
func runInjectors(ctx context.Context, injs []Injector, req InjectRequest, timeout time.Duration, budget int, onErr func(string, error)) injected {
	var out injected
	if len(injs) == 0 {
		return out
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var parts []string
	for _, inj := range injs {
		res, err := inj.Inject(ctx, req)
		if err != nil {
			onErr(inj.Name(), err)
			continue
		}
		if strings.TrimSpace(res.Text) == "" {
			continue
		}
		parts = append(parts, strings.TrimSpace(res.Text))
		out.ids = append(out.ids, res.IDs...)
	}
	out.text = cutToBudget(strings.Join(parts, "\n\n"), budget)
	return out
}

// cutToBudget shortens text to about budget tokens, at a line boundary.
func cutToBudget(text string, budget int) string {
	limit := budget * 4
	if budget <= 0 || len(text) <= limit {
		return text
	}
	cut := text[:limit]
	if i := strings.LastIndexByte(cut, '\n'); i > 0 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, "\n ")
}
