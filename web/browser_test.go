package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/testutil"
	"github.com/metaclaw/metaclaw/web/browsertest"
)

// browser starts headless chromium for a test (see web/browsertest).
func browser(t *testing.T) context.Context { return browsertest.Start(t) }

// shots saves full-page screenshots, numbered, to METACLAW_ARTIFACTS (or a
// temporary directory).
type shots struct {
	t   *testing.T
	dir string
	n   int
}

func newShots(t *testing.T) *shots {
	dir := os.Getenv("METACLAW_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	dir = filepath.Join(dir, "web-screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots in %s", dir)
	return &shots{t: t, dir: dir}
}

var nonWord = regexp.MustCompile(`[^a-z0-9]+`)

// take saves the whole page.
func (s *shots) take(ctx context.Context, name string) {
	s.save(ctx, name, chromedp.FullScreenshot(100))
}

// view saves what the window shows (for a spot in a long page).
func (s *shots) view(ctx context.Context, name string) {
	s.save(ctx, name, chromedp.CaptureScreenshot())
}

func (s *shots) save(ctx context.Context, name string, shot chromedp.Action[[]byte]) {
	s.t.Helper()
	png, err := chromedp.Run(ctx, shot)
	if err != nil {
		s.t.Fatalf("screenshot %s: %v", name, err)
	}
	s.n++
	slug := strings.Trim(nonWord.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if slug == "" {
		slug = "home"
	}
	file := fmt.Sprintf("%02d-%s.png", s.n, slug)
	if err := os.WriteFile(filepath.Join(s.dir, file), png, 0o644); err != nil {
		s.t.Fatal(err)
	}
}

// tid selects the element with a data-testid.
func tid(id string) chromedp.CSS { return chromedp.CSS(`[data-testid="` + id + `"]`) }

// run runs steps, each call bounded to 30 seconds.
func run(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(sctx, steps...); err != nil {
		if png, err := chromedp.Run(ctx, chromedp.FullScreenshot(80)); err == nil {
			_ = os.WriteFile(filepath.Join(t.TempDir(), "failed.jpg"), png, 0o644)
		}
		body, _ := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("body")))
		t.Fatalf("%s: %v\npage: %.1500s", what, err, body)
	}
}

func html(t *testing.T, ctx context.Context) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("html")))
	if err != nil {
		t.Fatalf("read page: %v", err)
	}
	return s
}

// TestBrowser drives the page in headless chromium as a person would: log
// in through a one-time token, open every page, create and edit a skill and
// a memory through the forms, refuse a bad setting, pause learning; then
// show that a forged cross-site POST, a POST without the CSRF token and a
// rebound Host are refused. Each page is saved as a screenshot.
func TestBrowser(t *testing.T) {
	ctx := browser(t)
	e := newEnv(t)
	e.seed(t)
	training := seedTraining(t, e.db)
	sh := newShots(t)
	login, err := e.srv.LoginURL(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	e.ctl.setWindows(WindowStatus{Enabled: true, Open: true, Reason: "sleep", Until: time.Now().Add(2 * time.Hour),
		Detail: "sleep hours until 07:00", IdleSource: "x11-screensaver", Calendar: "off"})
	run(t, ctx, "log in", chromedp.Navigate(login), chromedp.WaitVisible(tid("state")), chromedp.WaitVisible(tid("windows")))
	if body := html(t, ctx); testidText(body, "window-state") != "open" || testidText(body, "window-reason") != "sleep" {
		t.Errorf("dashboard training window: state %q, reason %q", testidText(body, "window-state"), testidText(body, "window-reason"))
	}
	sh.take(ctx, "dashboard")
	for _, pg := range pages("1") {
		run(t, ctx, "open "+pg.path, chromedp.Navigate(e.base+pg.path), chromedp.WaitVisible(tid("page-title")))
		if body := html(t, ctx); !strings.Contains(body, pg.marker) || strings.Contains(body, testSecret) {
			t.Errorf("%s: marker %q missing or a secret shown", pg.path, pg.marker)
		}
		sh.take(ctx, pg.path)
	}
	t.Run("skill", func(t *testing.T) { browserSkill(t, ctx, e, sh) })
	t.Run("memory", func(t *testing.T) { browserMemory(t, ctx, e, sh) })
	t.Run("settings", func(t *testing.T) { browserSettings(t, ctx, e, sh) })
	t.Run("training rollback", func(t *testing.T) { browserRollback(t, ctx, e, sh, training) })
	t.Run("pause", func(t *testing.T) {
		run(t, ctx, "pause", chromedp.Navigate(e.base+"/"), chromedp.Click(tid("pause")),
			chromedp.WaitVisible(tid("resume")))
		if !e.ctl.Paused() {
			t.Error("Pause learning did not pause")
		}
		sh.take(ctx, "paused")
		run(t, ctx, "resume", chromedp.Click(tid("resume")), chromedp.WaitVisible(tid("pause")))
	})
	t.Run("forged post without csrf", func(t *testing.T) { browserForgedPost(t, ctx, e, sh) })
	t.Run("foreign host", func(t *testing.T) {
		port := e.base[strings.LastIndex(e.base, ":")+1:]
		run(t, ctx, "open rebound name", chromedp.Navigate("http://rebind.test:"+port+"/"),
			chromedp.WaitVisible(tid("error-message")))
		if body := html(t, ctx); !strings.Contains(body, "not MetaClaw") || strings.Contains(body, `data-testid="state"`) {
			t.Errorf("rebound Host was served: %.300s", body)
		}
		sh.take(ctx, "foreign-host-refused")
	})
}

func browserSkill(t *testing.T, ctx context.Context, e *env, sh *shots) {
	run(t, ctx, "new skill form", chromedp.Navigate(e.base+"/skills/new"),
		chromedp.WaitVisible(tid("skill-form")),
		chromedp.SetValue(tid("skill-name"), "browser-made-skill"),
		chromedp.SetValue(tid("skill-description-input"), "Use when a test drives the web page."),
		chromedp.SetValue(tid("skill-category-input"), "automation"),
		chromedp.SetValue(tid("skill-tags"), "browser, test"),
		chromedp.SetValue(tid("skill-body-input"), "1. Click the button.\n2. Check the database."))
	sh.take(ctx, "skill-new-filled")
	run(t, ctx, "create skill", chromedp.Click(tid("skill-save")),
		chromedp.WaitVisible(tid("skill-versions")))
	sk, err := e.db.Skill(context.Background(), "browser-made-skill")
	if err != nil || sk.Category != "automation" || sk.Version != 1 || sk.Body != "1. Click the button.\n2. Check the database." {
		t.Fatalf("created skill: %+v, %v", sk, err)
	}
	run(t, ctx, "edit skill", chromedp.Click(tid("edit-skill")),
		chromedp.WaitVisible(tid("skill-form")),
		chromedp.SetValue(tid("skill-body-input"), "1. Click the button.\n2. Check the database twice."),
		chromedp.Click(tid("skill-save")),
		chromedp.WaitVisible(tid("flash")))
	sk, err = e.db.Skill(context.Background(), "browser-made-skill")
	if err != nil || sk.Version != 2 || !strings.HasSuffix(sk.Body, "twice.") {
		t.Fatalf("edited skill: %+v, %v", sk, err)
	}
	sh.take(ctx, "skill-edited")
}

func browserMemory(t *testing.T, ctx context.Context, e *env, sh *shots) {
	run(t, ctx, "add memory", chromedp.Navigate(e.base+"/memory"),
		chromedp.WaitVisible(tid("memory-add-form")),
		chromedp.SetValue(tid("memory-scope-input"), "browser"),
		chromedp.SetValue(tid("memory-type-input"), "project_state"),
		chromedp.SetValue(tid("memory-topic-input"), "release"),
		chromedp.SetValue(tid("memory-content-input"), "The 2.0 release ships in May."),
		chromedp.Click(tid("memory-save")),
		chromedp.WaitVisible(tid("memory-edit-form")))
	var ms []store.Memory
	testutil.Eventually(t, "the memory in the database", func() bool {
		ms, _ = e.db.Memories(context.Background(), store.MemoryFilter{Scope: "browser"})
		return len(ms) == 1 && ms[0].Content == "The 2.0 release ships in May." && ms[0].Type == store.MemoryProjectState
	})
	run(t, ctx, "edit memory",
		chromedp.SetValue(tid("memory-edit-content"), "The 2.0 release ships in June."),
		chromedp.Click(tid("memory-edit-save")))
	testutil.Eventually(t, "the edited memory in the database", func() bool {
		ms, _ = e.db.Memories(context.Background(), store.MemoryFilter{Scope: "browser"})
		return len(ms) == 1 && ms[0].Content == "The 2.0 release ships in June."
	})
	run(t, ctx, "memory page", chromedp.WaitVisible(tid("memory-history")))
	all, _ := e.db.Memories(context.Background(), store.MemoryFilter{Scope: "browser", History: true})
	if len(all) != 2 {
		t.Errorf("history: %d versions, want 2", len(all))
	}
	sh.take(ctx, "memory-edited")
}

func browserSettings(t *testing.T, ctx context.Context, e *env, sh *shots) {
	before := mustSettings(t, e)
	run(t, ctx, "bad setting", chromedp.Navigate(e.base+"/settings"),
		chromedp.WaitVisible(tid("settings-form")),
		chromedp.SetValue(tid("input-proxy.port"), "not-a-port"),
		chromedp.SetValue(tid("input-llm.model_id"), "changed-model"),
		chromedp.Click(tid("settings-save")),
		chromedp.WaitVisible(tid("error-proxy.port")),
		chromedp.ScrollIntoView(tid("error-proxy.port")))
	if after := mustSettings(t, e); len(after) != len(before) || after["llm.model_id"] != before["llm.model_id"] {
		t.Errorf("a refused form changed settings: %v", after)
	}
	sh.view(ctx, "settings-refused")
}

// browserForgedPost shows the two forgeries a page can try: a form on
// another origin of the same machine (same site for SameSite, so the
// cookie goes along) posting to MetaClaw, and a script on MetaClaw's own
// origin posting without the CSRF token. Both are refused.
func browserForgedPost(t *testing.T, ctx context.Context, e *env, sh *shots) {
	_ = e.ctl.SetPaused(false)
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!DOCTYPE html><form id="f" method="post" action="%s/learning/pause"></form>
			<script>document.getElementById("f").submit()</script>`, e.base)
	}))
	defer evil.Close()
	run(t, ctx, "cross-site form", chromedp.Navigate(evil.URL), chromedp.WaitVisible(tid("error-message")))
	if body := html(t, ctx); !strings.Contains(body, "Refused") || e.ctl.Paused() {
		t.Errorf("cross-site form not refused (paused %v)", e.ctl.Paused())
	}
	sh.take(ctx, "forged-post-refused")
	run(t, ctx, "open the dashboard", chromedp.Navigate(e.base+"/"), chromedp.WaitVisible(tid("state")))
	status, err := chromedp.Run(ctx, chromedp.Evaluate[int](`fetch("/learning/pause", {method: "POST",
		headers: {"Content-Type": "application/x-www-form-urlencoded"}, body: "x=1"}).then(r => r.status)`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("fetch: %v", err)
	}
	if status != http.StatusForbidden || e.ctl.Paused() {
		t.Errorf("POST without CSRF token: status %d, paused %v", status, e.ctl.Paused())
	}
}
