package web

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/metaclaw/metaclaw/store"
)

// TestTurnPageShowsStoredRequest records an agent-sized request (stored as
// shared chunks) and shows the turn page rebuilds all of it, and that the
// session page lists the turn without it.
func TestTurnPageShowsStoredRequest(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var msgs []string
	for i := range 40 {
		msgs = append(msgs, fmt.Sprintf(`{"role":"user","content":"step %d: %s"}`, i, strings.Repeat("read the failing test first; ", 8)))
	}
	req := `{"model":"m","messages":[` + strings.Join(msgs, ",") + `],"marker":"end-of-request-7f3a"}`
	turn := &store.Turn{SessionID: "big", API: "openai", Model: "m", Status: 200, Request: []byte(req), ResponseText: "ok"}
	if err := e.db.RecordTurns(context.Background(), []*store.Turn{turn}); err != nil {
		t.Fatal(err)
	}
	c := e.login(t)
	p := e.get(t, c, "/turns/"+i64(turn.ID))
	if p.status != 200 || !strings.Contains(p.body, "step 0: read") || !strings.Contains(p.body, "end-of-request-7f3a") {
		t.Fatalf("turn page: status %d, request shown whole: %v", p.status, strings.Contains(p.body, "end-of-request-7f3a"))
	}
	if p := e.get(t, c, "/sessions/big"); p.status != 200 || !strings.Contains(p.body, `href="/turns/`+i64(turn.ID)+`"`) {
		t.Fatalf("session page: status %d", p.status)
	}
}
