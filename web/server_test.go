package web

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/metaclaw/metaclaw/store"
	"github.com/metaclaw/metaclaw/store/config"
)

func TestLoginTokenIsSingleUseAndExpires(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(t)
	if p := e.get(t, c, "/"); p.status != http.StatusUnauthorized || !strings.Contains(p.body, "metaclaw open") {
		t.Fatalf("no session: status %d", p.status)
	}
	u, err := e.srv.LoginURL(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p := e.get(t, c, u)
	if p.status != http.StatusSeeOther {
		t.Fatalf("login: status %d", p.status)
	}
	ck := p.header.Get("Set-Cookie")
	for _, want := range []string{cookieName + "=", "HttpOnly", "SameSite=Strict", "path=/"} {
		if !strings.Contains(strings.ToLower(ck), strings.ToLower(want)) {
			t.Errorf("Set-Cookie %q lacks %q", ck, want)
		}
	}
	if p := e.get(t, c, "/"); p.status != http.StatusOK {
		t.Fatalf("after login: status %d", p.status)
	}
	// The same token again, from a browser without the cookie: refused.
	if p := e.get(t, e.client(t), u); p.status != http.StatusUnauthorized {
		t.Errorf("token reused: status %d", p.status)
	}
	// A token past its lifetime: refused.
	u2, _ := e.srv.LoginURL(context.Background())
	e.clk.advance(LoginTTL + time.Second)
	if p := e.get(t, e.client(t), u2); p.status != http.StatusUnauthorized {
		t.Errorf("expired token: status %d", p.status)
	}
	// Garbage tokens: refused.
	for _, tok := range []string{"", "short", strings.Repeat("A", 43)} {
		if p := e.get(t, e.client(t), "/login?token="+tok); p.status != http.StatusUnauthorized {
			t.Errorf("token %q: status %d", tok, p.status)
		}
	}
}

func TestTokenStoredHashed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tok, err := IssueLoginToken(context.Background(), e.db, time.Now(), LoginTTL)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := e.db.SQL().QueryRow("SELECT count(*) FROM meta WHERE key LIKE '%'||?||'%' OR value LIKE '%'||?||'%'", tok, tok).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatal("the token itself is stored in the database")
	}
}

func TestSessionExpires(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.login(t)
	e.clk.advance(sessionIdle + time.Minute)
	if p := e.get(t, c, "/"); p.status != http.StatusUnauthorized {
		t.Fatalf("idle session: status %d", p.status)
	}
}

func TestForeignHostRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.login(t)
	port := e.base[strings.LastIndex(e.base, ":")+1:]
	tests := []struct {
		name, host string
		want       int
	}{
		{"ip", "127.0.0.1:" + port, http.StatusOK},
		{"localhost", "localhost:" + port, http.StatusOK},
		{"localhost upper case", "LOCALHOST:" + port, http.StatusOK},
		{"ipv6 loopback", "[::1]:" + port, http.StatusOK},
		{"rebound name", "attacker.example:" + port, http.StatusForbidden},
		{"rebound name no port", "attacker.example", http.StatusForbidden},
		{"other port", "127.0.0.1:1", http.StatusForbidden},
		{"suffix trick", "localhost.attacker.example:" + port, http.StatusForbidden},
		{"no port", "localhost", http.StatusForbidden},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, path := range []string{"/", "/static/style.css", "/login?token=x"} {
				p := e.do(t, c, "GET", path, nil, map[string]string{"Host": tc.host})
				want := tc.want
				if want == http.StatusOK && path == "/login?token=x" {
					want = http.StatusSeeOther // logged in already
				}
				if p.status != want {
					t.Errorf("GET %s with Host %s: status %d, want %d", path, tc.host, p.status, want)
				}
			}
		})
	}
	// A state-changing request with a foreign Host is refused too.
	form := url.Values{"_csrf": {e.csrf(t, c)}}
	if p := e.do(t, c, "POST", "/learning/pause", form, map[string]string{"Host": "attacker.example:" + port}); p.status != http.StatusForbidden || e.ctl.Paused() {
		t.Errorf("POST with foreign Host: status %d, paused %v", p.status, e.ctl.Paused())
	}
}

func TestCSRFRequired(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.login(t)
	tok := e.csrf(t, c)
	origin := e.base
	tests := []struct {
		name string
		form url.Values
		hdr  map[string]string
		want int
	}{
		{"no token", url.Values{}, nil, http.StatusForbidden},
		{"wrong token", url.Values{"_csrf": {tok[:len(tok)-2] + "xx"}}, nil, http.StatusForbidden},
		{"other session's token", url.Values{"_csrf": {e.csrf(t, e.login(t))}}, nil, http.StatusForbidden},
		{"cross-site origin", url.Values{"_csrf": {tok}}, map[string]string{"Origin": "http://attacker.example"}, http.StatusForbidden},
		{"opaque origin", url.Values{"_csrf": {tok}}, map[string]string{"Origin": "null"}, http.StatusForbidden},
		{"cross-site fetch", url.Values{"_csrf": {tok}}, map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"form token", url.Values{"_csrf": {tok}}, map[string]string{"Origin": origin}, http.StatusSeeOther},
		{"header token", url.Values{}, map[string]string{csrfHeader: tok}, http.StatusSeeOther},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_ = e.ctl.SetPaused(false)
			p := e.do(t, c, "POST", "/learning/pause", tc.form, tc.hdr)
			if p.status != tc.want {
				t.Fatalf("status %d, want %d", p.status, tc.want)
			}
			if paused := e.ctl.Paused(); paused != (tc.want == http.StatusSeeOther) {
				t.Errorf("paused = %v", paused)
			}
		})
	}
	// Without a session, a POST is refused whatever it carries.
	if p := e.do(t, e.client(t), "POST", "/learning/pause", url.Values{"_csrf": {tok}}, nil); p.status != http.StatusUnauthorized {
		t.Errorf("no session: status %d", p.status)
	}
}

func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p := e.get(t, e.login(t), "/")
	for k, want := range map[string]string{"X-Frame-Options": "DENY", "Referrer-Policy": "same-origin",
		"X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"} {
		if got := p.header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if csp := p.header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "unsafe") {
		t.Errorf("CSP %q", csp)
	}
}

// pages lists every page with a marker it must show.
func pages(memID string) []struct{ path, marker string } {
	return []struct{ path, marker string }{
		{"/", `data-testid="state"`},
		{"/sessions", `data-testid="sessions-table"`},
		{"/sessions/sess-1", `data-testid="turns-table"`},
		{"/turns/1", `data-testid="turn-injected"`},
		{"/skills", `data-testid="skills-table"`},
		{"/skills?category=communication&q=short", `concise-answers`},
		{"/skills/new", `data-testid="skill-form"`},
		{"/skills/concise-answers", `data-testid="skill-versions"`},
		{"/skills/concise-answers/edit", `data-testid="skill-form"`},
		{"/memory", `data-testid="memories-table"`},
		{"/memory?q=vim&type=preference", `prefers vim`},
		{"/memory/" + memID, `data-testid="memory-history"`},
		{"/scores", `data-testid="score-chart"`},
		{"/training", `data-testid="policy"`},
		{"/settings", `data-testid="settings-form"`},
		{"/setup", `data-testid="setup-form"`},
		{"/logs", `data-testid="log"`},
	}
}

func TestEveryPageRendersAndNoSecretShows(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seed(t)
	c := e.login(t)
	for _, pg := range pages("1") {
		t.Run(pg.path, func(t *testing.T) {
			p := e.get(t, c, pg.path)
			if p.status != http.StatusOK {
				t.Fatalf("status %d: %.300s", p.status, p.body)
			}
			if !strings.Contains(p.body, pg.marker) {
				t.Errorf("page lacks %q", pg.marker)
			}
			for _, secret := range []string{testSecret, "TOPSECRET", "prm-SECRET-0123456789"} {
				if strings.Contains(p.body, secret) {
					t.Errorf("page shows a secret (%s)", secret)
				}
			}
		})
	}
	if p := e.get(t, c, "/skills/no-such-skill"); p.status != http.StatusNotFound {
		t.Errorf("unknown skill: status %d", p.status)
	}
	if p := e.get(t, c, "/nowhere"); p.status != http.StatusNotFound {
		t.Errorf("unknown path: status %d", p.status)
	}
}

func TestSettingsRefuseBadValueAndSaveNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.login(t)
	before, _ := e.db.Settings(context.Background())
	form := url.Values{"proxy.port": {"http"}, "llm.model_id": {"other-model"}, "scheduler.sleep_start": {"25:00"},
		"llm.api_key": {"sk-new-SECRET-should-not-echo"}}
	p := e.post(t, c, "/settings", form)
	if p.status != http.StatusUnprocessableEntity {
		t.Fatalf("status %d", p.status)
	}
	for _, want := range []string{`data-testid="error-proxy.port"`, `not a whole number`, `data-testid="error-scheduler.sleep_start"`,
		`value="other-model"`, `data-testid="settings-refused"`} {
		if !strings.Contains(p.body, want) {
			t.Errorf("refused page lacks %q", want)
		}
	}
	if strings.Contains(p.body, "sk-new-SECRET") || strings.Contains(p.body, testSecret) {
		t.Error("refused page shows a secret")
	}
	after, _ := e.db.Settings(context.Background())
	if len(after) != len(before) || after["llm.api_key"] != testSecret || after["llm.model_id"] != before["llm.model_id"] {
		t.Errorf("settings changed although refused: %v", after)
	}
	// A good change saves only what changed, and says it applies now.
	p = e.post(t, c, "/settings", url.Values{"llm.model_id": {"other-model"}, "proxy.port": {"30000"}, "llm.api_key": {""}})
	if p.status != http.StatusSeeOther {
		t.Fatalf("good save: status %d %.300s", p.status, p.body)
	}
	stored, _, _ := config.Load(context.Background(), e.db)
	if stored.LLM.ModelID != "other-model" || stored.LLM.APIKey != testSecret {
		t.Errorf("stored: model %q, key kept %v", stored.LLM.ModelID, stored.LLM.APIKey == testSecret)
	}
	if _, ok := mustSettings(t, e)["proxy.port"]; ok {
		t.Error("an unchanged key was stored")
	}
	if p := e.get(t, c, "/settings"); !strings.Contains(p.body, "Saved and applied: llm.model_id.") {
		t.Error("no note of the change applied after saving")
	}
}

func mustSettings(t *testing.T, e *env) map[string]string {
	t.Helper()
	s, err := e.db.Settings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSettingsSecretClearAndPreset(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.login(t)
	if p := e.post(t, c, "/settings", url.Values{"clear:rl.prm_api_key": {"on"}}); p.status != http.StatusSeeOther {
		t.Fatalf("clear: status %d", p.status)
	}
	if p := e.post(t, c, "/settings/preset", url.Values{"preset": {"openai"}}); p.status != http.StatusSeeOther {
		t.Fatalf("preset: status %d", p.status)
	}
	s := mustSettings(t, e)
	if s["rl.prm_api_key"] != "" || s["llm.provider"] != "openai" || s["llm.api_base"] != "https://api.openai.com/v1" || s["llm.api_key"] != testSecret {
		t.Errorf("settings: %v", s)
	}
}

func TestSetupSavesWhatSetupAsks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.login(t)
	bad := url.Values{"llm.provider": {"custom"}, "llm.api_base": {""}, "llm.model_id": {""}, "mode": {"skills_only"}, "proxy.port": {"99999"}}
	if p := e.post(t, c, "/setup", bad); p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `data-testid="error-llm.api_base"`) {
		t.Fatalf("bad setup: status %d", p.status)
	}
	good := url.Values{"llm.provider": {"qwen"}, "llm.api_base": {"https://api.moonshot.cn/v1"}, "llm.model_id": {"kimi-k2.5"},
		"llm.api_key": {"sk-qwen-key-123456"}, "mode": {"skills_only"}, "proxy.port": {"31000"}}
	if p := e.post(t, c, "/setup", good); p.status != http.StatusSeeOther {
		t.Fatalf("good setup: status %d", p.status)
	}
	cfg, _, _ := config.Load(context.Background(), e.db)
	qwen, _ := config.PresetByName("qwen")
	if cfg.LLM.Provider != "qwen" || cfg.LLM.APIBase != qwen.APIBase || cfg.LLM.ModelID != qwen.Model ||
		cfg.LLM.APIKey != "sk-qwen-key-123456" || cfg.Mode != config.ModeSkillsOnly || cfg.Proxy.Port != 31000 {
		t.Errorf("config after setup: %+v", cfg.LLM)
	}
}

func TestSkillFormsThroughHTTP(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seed(t)
	c := e.login(t)
	ctx := context.Background()
	form := url.Values{"name": {"pin-python"}, "description": {"Use when choosing a Python version."}, "category": {"coding"},
		"tags": {"python, PyEnv, python"}, "body": {"1. Read .python-version."}}
	if p := e.post(t, c, "/skills", form); p.status != http.StatusSeeOther {
		t.Fatalf("create: status %d %.300s", p.status, p.body)
	}
	if p := e.post(t, c, "/skills", form); p.status != http.StatusUnprocessableEntity {
		t.Errorf("duplicate create: status %d", p.status)
	}
	form.Set("body", "1. Read .python-version first.")
	if p := e.post(t, c, "/skills/pin-python", form); p.status != http.StatusSeeOther {
		t.Fatalf("edit: status %d", p.status)
	}
	sk, err := e.db.Skill(ctx, "pin-python")
	if err != nil || sk.Version != 2 || sk.Source != "web" || strings.Join(sk.Tags, ",") != "python,pyenv" {
		t.Fatalf("skill %+v, %v", sk, err)
	}
	for _, step := range []struct{ path, version string }{{"/skills/pin-python/disable", ""}, {"/skills/pin-python/revert", "1"}} {
		if p := e.post(t, c, step.path, url.Values{"version": {step.version}}); p.status != http.StatusSeeOther {
			t.Fatalf("%s: status %d", step.path, p.status)
		}
	}
	sk, _ = e.db.Skill(ctx, "pin-python")
	if sk.Version != 3 || sk.Body != "1. Read .python-version." || !sk.Enabled {
		t.Errorf("after revert: %+v", sk)
	}
	if p := e.get(t, c, "/skills/pin-python"); !strings.Contains(p.body, `data-testid="skill-asks-none"`) {
		t.Errorf("a skill without asks: %.300s", p.body)
	}
	if err := e.db.SetSkillAsks(ctx, "pin-python", sk.Version, []string{"which python does this repo want?", "<b>pyenv</b> says version not installed"}); err != nil {
		t.Fatal(err)
	}
	if p := e.get(t, c, "/skills/pin-python"); !strings.Contains(p.body, "which python does this repo want?") ||
		!strings.Contains(p.body, "&lt;b&gt;pyenv&lt;/b&gt; says") {
		t.Errorf("the skill's asks are not shown (escaped): %.300s", p.body)
	}
	if p := e.get(t, c, "/skills/pin-python"); strings.Contains(p.body, "In other languages") {
		t.Errorf("a skill without asks in other languages shows the section: %.300s", p.body)
	}
	if err := e.db.SetSkillAsksIn(ctx, "pin-python", sk.Version, "de", []string{"welches Python will dieses Repo?", "pyenv sagt <i>nicht installiert</i>", "Python-Version?"}); err != nil {
		t.Fatal(err)
	}
	if p := e.get(t, c, "/skills/pin-python"); !strings.Contains(p.body, `data-testid="skill-asks-de" lang="de"`) ||
		!strings.Contains(p.body, "<h4>German</h4>") || !strings.Contains(p.body, "pyenv sagt &lt;i&gt;nicht installiert&lt;/i&gt;") {
		t.Errorf("the skill's asks in German are not shown (escaped): %s", p.body)
	}
	// The skills page says which languages the person writes in and how
	// far the asks in each are: German is wanted (3 requests), Italian not
	// yet (1).
	// Before any request in German, pin-python's German asks (set above)
	// are listed, and none are being written.
	if p := e.get(t, c, "/skills"); !regexp.MustCompile(`data-testid="skill-language-de">.*0 requests seen.*1 of \d+ skills have their asks in it, and no more are written`).MatchString(p.body) ||
		strings.Contains(p.body, `data-testid="skill-language-it"`) {
		t.Errorf("the languages card before any request in another language: %s", p.body)
	}
	if err := e.db.AddLanguagesSeen(ctx, map[string]int{"de": 3, "it": 1}); err != nil {
		t.Fatal(err)
	}
	p := e.get(t, c, "/skills")
	de := regexp.MustCompile(`data-testid="skill-language-de">.*?</li>`).FindString(p.body)
	it := regexp.MustCompile(`data-testid="skill-language-it">.*?</li>`).FindString(p.body)
	if !strings.Contains(de, "3 requests seen") || !regexp.MustCompile(`1 of \d+ skills have their asks in it`).MatchString(de) ||
		!strings.Contains(it, "1 requests seen") || !strings.Contains(it, "written once 3 requests have come") ||
		!strings.Contains(p.body, "skills.ask_languages: auto") {
		t.Errorf("the languages card:\n%s\n%s", de, it)
	}
	empty := url.Values{"name": {"Bad Name"}, "description": {"x"}, "body": {"y"}}
	if p := e.post(t, c, "/skills", empty); p.status != http.StatusUnprocessableEntity || !strings.Contains(p.body, `data-testid="error-name"`) {
		t.Errorf("bad name: status %d", p.status)
	}
}

func TestMemoryFormsThroughHTTP(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.login(t)
	ctx := context.Background()
	if p := e.post(t, c, "/memory", url.Values{"scope": {"work"}, "type": {"fact"}, "topic": {"deploy day"}, "content": {"Deploys happen on Tuesdays."}}); p.status != http.StatusSeeOther {
		t.Fatalf("add: status %d %.300s", p.status, p.body)
	}
	ms, _ := e.db.Memories(ctx, store.MemoryFilter{Scope: "work"})
	if len(ms) != 1 {
		t.Fatalf("memories: %+v", ms)
	}
	id := i64(ms[0].ID)
	if p := e.post(t, c, "/memory/"+id, url.Values{"content": {"Deploys happen on Wednesdays."}}); p.status != http.StatusSeeOther {
		t.Fatalf("edit: status %d %.300s", p.status, p.body)
	}
	ms, _ = e.db.Memories(ctx, store.MemoryFilter{Scope: "work"})
	if len(ms) != 1 || ms[0].Content != "Deploys happen on Wednesdays." {
		t.Fatalf("after edit: %+v", ms)
	}
	newID := i64(ms[0].ID)
	if p := e.post(t, c, "/memory/"+newID+"/pin", nil); p.status != http.StatusSeeOther {
		t.Fatalf("pin: status %d", p.status)
	}
	if m, _ := e.db.Memory(ctx, ms[0].ID); !m.Pinned {
		t.Error("not pinned")
	}
	if p := e.post(t, c, "/memory", url.Values{"scope": {"work"}, "type": {"fact"}, "content": {""}}); p.status != http.StatusUnprocessableEntity {
		t.Errorf("empty memory: status %d", p.status)
	}
	if p := e.post(t, c, "/memory/"+newID+"/forget", nil); p.status != http.StatusSeeOther {
		t.Fatalf("forget: status %d", p.status)
	}
	if all, _ := e.db.Memories(ctx, store.MemoryFilter{Scope: "work", History: true}); len(all) != 0 {
		t.Errorf("after forget: %d memories left", len(all))
	}
}
