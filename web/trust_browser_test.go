package web

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/metaclaw/metaclaw/store"
)

// TestBrowserTrust checks in headless chromium the page states that tell a
// person what MetaClaw did on their behalf: a turn whose history was cut.
func TestBrowserTrust(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t)
	sh := newShots(t)
	cutTurn := &store.Turn{SessionID: "long", API: "openai", Model: "m", Status: 200, Request: []byte(`{"messages":[]}`),
		ResponseText: "ok", CreatedAt: time.Now(), CutMessagesBefore: 82, CutMessagesAfter: 46, CutTokensBefore: 34120, CutTokensAfter: 19870}
	whole := &store.Turn{SessionID: "long", API: "openai", Model: "m", Status: 200, Request: []byte(`{"messages":[]}`),
		ResponseText: "ok", CreatedAt: time.Now()}
	if err := e.db.RecordTurns(context.Background(), []*store.Turn{cutTurn, whole}); err != nil {
		t.Fatal(err)
	}
	ctx0 := context.Background()
	add := []store.SkillChange{{Op: "add", Input: store.SkillInput{Name: "ask-first", Description: "d", Body: "b"}}}
	if _, err := e.db.ApplyEvolution(ctx0, add, store.Evolution{SessionID: "long"}); err != nil {
		t.Fatal(err)
	}
	if err := e.db.AddEvolutionStale(ctx0, 1, 3); err != nil {
		t.Fatal(err)
	}
	login, err := e.srv.LoginURL(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	run(t, ctx, "log in", chromedp.Navigate(login), chromedp.WaitVisible(tid("state")))
	t.Run("turn cut", func(t *testing.T) {
		run(t, ctx, "open the cut turn", chromedp.Navigate(e.base+"/turns/"+strconv.FormatInt(cutTurn.ID, 10)),
			chromedp.WaitVisible(tid("turn-cut")))
		got := testidText(html(t, ctx), "turn-cut")
		for _, want := range []string{"82 → 46 messages", "34,120 → 19,870 tokens", "oldest turns were not sent"} {
			if !strings.Contains(got, want) {
				t.Errorf("turn-cut %q lacks %q", got, want)
			}
		}
		sh.take(ctx, "turn cut")
		run(t, ctx, "open the whole turn", chromedp.Navigate(e.base+"/turns/"+strconv.FormatInt(whole.ID, 10)),
			chromedp.WaitVisible(tid("turn-facts")))
		if strings.Contains(html(t, ctx), `data-testid="turn-cut"`) {
			t.Error("a turn that was not cut says it was")
		}
	})
	t.Run("training in skills_only", func(t *testing.T) {
		run(t, ctx, "open training", chromedp.Navigate(e.base+"/training"), chromedp.WaitVisible(tid("evolutions-table")))
		body := html(t, ctx)
		if got := testidText(body, "evolution-stale"); got != "3" {
			t.Errorf("evolution's stale samples %q, want 3", got)
		}
		if testidText(body, "policy-state") != "off" || !strings.Contains(body, `data-testid="serving-none"`) ||
			strings.Contains(body, `data-testid="serving-base"`) || strings.Contains(body, "not used") {
			t.Errorf("skills_only training page: state %q, serving-none %v", testidText(body, "policy-state"),
				strings.Contains(body, `data-testid="serving-none"`))
		}
		sh.take(ctx, "training skills_only")
	})
}
