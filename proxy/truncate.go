package proxy

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
