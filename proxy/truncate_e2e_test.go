package proxy_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/metaclaw/metaclaw/proxy"
	"github.com/metaclaw/metaclaw/store/config"
)

// longConversation is an agent's conversation of n user/assistant pairs
// whose first user message names a fact the last one asks about, about
// size bytes per message.
func longConversation(n, size int) []map[string]any {
	msgs := []map[string]any{{"role": "system", "content": "You are an agent."}}
	for i := range n {
		text := fmt.Sprintf("turn %d: %s", i, strings.Repeat("words ", size/6))
		if i == 0 {
			text = "turn 0: the launch code is PLUM-42. " + text
		}
		msgs = append(msgs, map[string]any{"role": "user", "content": text},
			map[string]any{"role": "assistant", "content": "noted " + strings.Repeat("ok ", size/3)})
	}
	return append(msgs, map[string]any{"role": "user", "content": "what was the launch code from turn 0?"})
}

func chatBody(msgs []map[string]any) string {
	b, _ := json.Marshal(map[string]any{"model": "m", "messages": msgs})
	return string(b)
}

// policyWithContext is a stub policy that knows its context length.
type policyWithContext struct {
	*stubPolicy
	n int
}

func (p policyWithContext) ContextLength() int { return p.n }

var _ proxy.PolicyContext = policyWithContext{}

// TestTruncationOnlyWhereTheModelNeedsIt: an 82-message conversation of
// about 34k tokens reaches the person's own provider whole by default; an
// explicit max_context_tokens cuts it and the turn records the cut; a turn
// served by the trained policy is cut to the policy's context minus the
// completion limit.
func TestTruncationOnlyWhereTheModelNeedsIt(t *testing.T) {
	t.Parallel()
	conv := longConversation(40, 1600)
	body := chatBody(conv)
	t.Run("default: llm.* gets everything", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		if status, b, _ := e.post("/v1/chat/completions", body, "X-Session-Id", "s"); status != 200 {
			t.Fatalf("status %d: %s", status, b)
		}
		got := e.upstreamBodies("/v1/chat/completions")[0]["messages"].([]any)
		if len(got) != len(conv) || !strings.Contains(fmt.Sprint(got[1]), "PLUM-42") {
			t.Errorf("upstream got %d of %d messages", len(got), len(conv))
		}
		if tr := e.turns(1)[0]; tr.CutMessagesBefore != 0 {
			t.Errorf("turn records a cut %+v", tr)
		}
	})
	t.Run("explicit max_context_tokens cuts and records it", func(t *testing.T) {
		t.Parallel()
		var logBuf syncBuffer
		logger := slog.New(slog.NewTextHandler(&logBuf, nil))
		e := newEnv(t, withConfig(func(c *config.Config) { c.MaxContextTokens = 20000 }),
			func(_ *config.Config, o *proxy.Options) { o.Logger = logger })
		for range 2 {
			if status, b, _ := e.post("/v1/chat/completions", body, "X-Session-Id", "s"); status != 200 {
				t.Fatalf("status %d: %s", status, b)
			}
		}
		got := e.upstreamBodies("/v1/chat/completions")[0]["messages"].([]any)
		if len(got) >= len(conv) || strings.Contains(fmt.Sprint(got), "PLUM-42") {
			t.Fatalf("upstream got %d of %d messages; want the oldest cut", len(got), len(conv))
		}
		tr := e.turns(2)[0]
		if n := strings.Count(logBuf.String(), "conversation cut to fit the context"); n != 1 {
			t.Errorf("the cut was logged %d times in one session, want once:\n%s", n, logBuf.String())
		}
		if tr.CutMessagesBefore != len(conv) || tr.CutMessagesAfter != len(got) ||
			tr.CutTokensBefore <= 20000 || tr.CutTokensAfter > 20000 || tr.CutTokensAfter == 0 {
			t.Errorf("turn records cut %d→%d messages, %d→%d tokens; want %d→%d, over 20000 → within it",
				tr.CutMessagesBefore, tr.CutMessagesAfter, tr.CutTokensBefore, tr.CutTokensAfter, len(conv), len(got))
		}
	})
	t.Run("policy turns fit the policy's context", func(t *testing.T) {
		t.Parallel()
		p := &stubPolicy{}
		p.ready.Store(true)
		e := newEnv(t, withPolicy(policyWithContext{p, 12000}, "rl"), withConfig(func(c *config.Config) { c.RL.MaxTokens = 2000 }))
		if status, b, _ := e.post("/v1/chat/completions", body, "X-Session-Id", "s"); status != 200 {
			t.Fatalf("status %d: %s", status, b)
		}
		tr := e.turns(1)[0]
		if tr.CutMessagesBefore != len(conv) || tr.CutTokensAfter > 12000-2000 || tr.CutTokensAfter < 5000 {
			t.Errorf("policy turn cut %d→%d messages, %d→%d tokens; want within 10000", tr.CutMessagesBefore,
				tr.CutMessagesAfter, tr.CutTokensBefore, tr.CutTokensAfter)
		}
	})
}

// syncBuffer is a strings.Builder safe for a logger and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
