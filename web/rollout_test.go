package web

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// setRollout makes the fake app report r as the rollout's progress.
func (f *fakeControl) setRollout(r *RolloutStatus) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.status = func(st *Status) {
		if r != nil {
			c := *r
			st.Rollout = &c
		}
	}
}

// The dashboard has no rollout card until a rollout ran, then shows its
// tasks, episodes done (of all), running, failed, folder, agent, skipped
// lines and last error, and the state in a word.
func TestDashboardRolloutCard(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.login(t)
	if p := e.get(t, c, "/"); p.status != http.StatusOK || strings.Contains(p.body, `data-testid="rollout"`) {
		t.Fatalf("without a rollout: status %d, card shown %v", p.status, strings.Contains(p.body, `data-testid="rollout"`))
	}
	tests := []struct {
		name string
		r    RolloutStatus
		want map[string]string
	}{
		{"running", RolloutStatus{Dir: "/data/tasks", Agent: "built-in tool loop", Tasks: 3, Rounds: 2, Done: 2, Running: 1, Failed: 1,
			LastError: "task t3: proxy answered 502", Problems: []string{"train.jsonl:4: not JSON"}, UpdatedAt: time.Now()},
			map[string]string{"rollout-state": "running", "rollout-tasks": "3", "rollout-done": "2 of 6", "rollout-running": "1",
				"rollout-failed": "1", "rollout-dir": "/data/tasks", "rollout-agent": "built-in tool loop",
				"rollout-error":    "Last error: task t3: proxy answered 502",
				"rollout-problems": "1 task lines skipped, first: train.jsonl:4: not JSON"}},
		{"done", RolloutStatus{Dir: "/data/tasks", Agent: "openclaw", Tasks: 2, Rounds: 1, Done: 2, UpdatedAt: time.Now()},
			map[string]string{"rollout-state": "done", "rollout-done": "2 of 2", "rollout-running": "0", "rollout-failed": "0",
				"rollout-agent": "openclaw", "rollout-error": "", "rollout-problems": ""}},
		{"forever", RolloutStatus{Dir: "/d", Agent: "openclaw", Tasks: 4, Done: 9, UpdatedAt: time.Now()},
			map[string]string{"rollout-state": "waiting", "rollout-done": "9 (runs forever)"}},
		{"no tasks", RolloutStatus{Dir: "/empty", Agent: "openclaw", LastError: "no task file in /empty", UpdatedAt: time.Now()},
			map[string]string{"rollout-state": "no tasks", "rollout-tasks": "0", "rollout-error": "Last error: no task file in /empty"}},
	}
	for _, tt := range tests {
		e.ctl.setRollout(&tt.r)
		p := e.get(t, c, "/")
		if p.status != http.StatusOK {
			t.Fatalf("%s: status %d", tt.name, p.status)
		}
		for id, want := range tt.want {
			if got := testidText(p.body, id); got != want {
				t.Errorf("%s: %s = %q, want %q", tt.name, id, got, want)
			}
		}
	}
}

// TestBrowserRolloutCard shows the rollout card in chromium, and that a
// reload shows the progress the app saved since.
func TestBrowserRolloutCard(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t)
	sh := newShots(t)
	e.ctl.setRollout(&RolloutStatus{Dir: "/data/tasks", Agent: "openclaw", Tasks: 2, Rounds: 1, Running: 1, UpdatedAt: time.Now()})
	login, err := e.srv.LoginURL(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	run(t, ctx, "log in", chromedp.Navigate(login), chromedp.WaitVisible(tid("rollout")))
	body := html(t, ctx)
	for id, want := range map[string]string{"rollout-state": "running", "rollout-tasks": "2", "rollout-done": "0 of 2",
		"rollout-running": "1", "rollout-failed": "0", "rollout-dir": "/data/tasks", "rollout-agent": "openclaw"} {
		if got := testidText(body, id); got != want {
			t.Errorf("running: %s = %q, want %q", id, got, want)
		}
	}
	sh.take(ctx, "dashboard rollout running")
	e.ctl.setRollout(&RolloutStatus{Dir: "/data/tasks", Agent: "openclaw", Tasks: 2, Rounds: 1, Done: 2, UpdatedAt: time.Now()})
	run(t, ctx, "reload", chromedp.Reload(), chromedp.WaitVisible(tid("rollout")))
	body = html(t, ctx)
	if testidText(body, "rollout-state") != "done" || testidText(body, "rollout-done") != "2 of 2" || testidText(body, "rollout-running") != "0" {
		t.Errorf("after the rollout finished: state %q, done %q, running %q", testidText(body, "rollout-state"),
			testidText(body, "rollout-done"), testidText(body, "rollout-running"))
	}
	sh.take(ctx, "dashboard rollout done")
}
