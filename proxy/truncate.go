package proxy

import "sync"

// cut is what truncation removed from a turn's request, for the record:
// message counts and estimated tokens before and after.
type cut struct {
	msgsBefore, msgsAfter, tokensBefore, tokensAfter, limit int
}

// promptLimit is the most prompt tokens the turn may carry to the model
// serving it: max_context_tokens when set, else none toward llm.* and the
// policy's context minus the completion limit (maxTokens, the request's
// max_tokens when it names one) toward the trained policy.
func (s *Server) promptLimit(ts *turnState, maxTokens int) int {
	return s.conf().PromptLimit(ts.policy, s.policyContext(), maxTokens)
}

// PolicyContext is a Policy that knows its model's context length
// (max_context_length); 0 means not known yet.
type PolicyContext interface {
	ContextLength() int
}

func (s *Server) policyContext() int {
	if pc, ok := s.opts.Policy.(PolicyContext); ok {
		return pc.ContextLength()
	}
	return 0
}

// noteCut records a cut in ts and logs it, once per session.
func (s *Server) noteCut(ts *turnState, infos []msgInfo, drop []bool, limit int) {
	c := cut{msgsBefore: len(infos), limit: limit}
	for i, m := range infos {
		c.tokensBefore += m.tokens
		if !drop[i] {
			c.msgsAfter++
			c.tokensAfter += m.tokens
		}
	}
	ts.cut = c
	if s.cutsWarned.first(ts.id.sessionID) {
		s.log.Warn("conversation cut to fit the context: the oldest turns were not sent (once per session; see the turn page)",
			"session", ts.id.sessionID, "messages_before", c.msgsBefore, "messages_after", c.msgsAfter,
			"tokens_before", c.tokensBefore, "tokens_after", c.tokensAfter, "limit", limit)
	}
}

// onceSet remembers up to maxOnce keys, forgetting all of them when full,
// so that something is said at most once per key (and rarely again).
type onceSet struct {
	mu   sync.Mutex // guards seen
	seen map[string]struct{}
}

const maxOnce = 4096

// first reports whether key is new, and remembers it.
func (o *onceSet) first(key string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.seen[key]; ok {
		return false
	}
	if o.seen == nil || len(o.seen) >= maxOnce {
		o.seen = make(map[string]struct{})
	}
	o.seen[key] = struct{}{}
	return true
}

// msgInfo is what truncation needs to know about one message.
type msgInfo struct {
	system bool // system messages are always kept
	// user marks a message the person wrote: role user with some text or
	// image. Tool results (OpenAI role "tool", Anthropic user messages of
	// tool_result blocks only) are not: they belong to the call before them.
	user   bool
	tokens int
}

// truncate decides which messages to drop so that the estimated prompt
// stays within budget tokens. System messages are always kept. The rest is
// cut into turns — a run of user messages and everything up to the next
// one: assistant answers, tool calls and their results — and the oldest
// turns go first, whole, so a tool result is never separated from its call
// and the kept history starts with a user message. The newest turn is
// always kept, even over budget. It returns nil when nothing needs to go.
func truncate(msgs []msgInfo, budget int) []bool {
	if budget <= 0 {
		return nil
	}
	total := 0
	for _, m := range msgs {
		total += m.tokens
	}
	if total <= budget {
		return nil
	}
	drop := make([]bool, len(msgs))
	groups := groupStarts(msgs)
	last := len(groups) - 2 // the newest turn; groups ends with a sentinel
	for gi := 0; gi < last && total > budget; gi++ {
		total -= dropGroup(msgs, drop, groups[gi], groups[gi+1])
	}
	return drop
}

// groupStarts returns the index where each turn starts (the first
// non-system message, then every user message that follows a non-user
// one), and len(msgs) as a sentinel.
func groupStarts(msgs []msgInfo) []int {
	var starts []int
	prevUser := false
	for i, m := range msgs {
		if m.system {
			continue
		}
		if len(starts) == 0 || m.user && !prevUser {
			starts = append(starts, i)
		}
		prevUser = m.user
	}
	return append(starts, len(msgs))
}

func dropGroup(msgs []msgInfo, drop []bool, from, to int) int {
	freed := 0
	for i := from; i < to; i++ {
		if !msgs[i].system {
			drop[i] = true
			freed += msgs[i].tokens
		}
	}
	return freed
}

// keep returns the messages truncate did not drop, in order.
func keep[T any](msgs []T, drop []bool) []T {
	kept := make([]T, 0, len(msgs))
	for i, m := range msgs {
		if !drop[i] {
			kept = append(kept, m)
		}
	}
	return kept
}

// estimateTokens is a fast, provider-independent estimate: about four bytes
// of JSON per token.
func estimateTokens(b []byte) int { return len(b)/4 + 1 }
